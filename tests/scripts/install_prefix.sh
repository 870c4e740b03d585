#!/usr/bin/env bash
# `cmake --install` of the build tree that holds the binary under test into a temporary prefix: the
# executable, every bundled scene, the desktop entry and the icon land there; the installed satlab, run
# from elsewhere with SATLAB_ASSETS unset, prints its version and git revision and renders the bundled
# scene from PREFIX/share/satlab (the same bytes as the build tree's render); with that folder gone it
# fails in one line instead of falling back to the source tree. The version script gives "unknown"
# without git.
# Usage: install_prefix.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
build=$(cd "$(dirname "$bin")/.." && pwd)
[ -f "$build/cmake_install.cmake" ] || skip "'$build' is no CMake build tree"
p=$tmp/prefix

cmake --install "$build" --prefix "$p" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "cmake --install"; }
for f in bin/satlab share/applications/satlab.desktop share/icons/hicolor/scalable/apps/satlab.svg \
  share/icons/hicolor/256x256/apps/satlab.png; do
  [ -s "$p/$f" ] || fail "$f not installed"
done
diff -r "$src/assets" "$p/share/satlab/assets" >/dev/null || fail "share/satlab/assets differs from assets/"
grep -q '^Exec=satlab' "$p/share/applications/satlab.desktop" && grep -q '^Icon=satlab$' "$p/share/applications/satlab.desktop" ||
  fail "desktop entry lacks Exec or Icon"
if command -v desktop-file-validate >/dev/null; then
  desktop-file-validate "$p/share/applications/satlab.desktop" || fail "desktop-file-validate"
fi

installed() { (cd "$tmp" && env -u SATLAB_ASSETS "$p/bin/satlab" "$@"); }
installed --version >"$tmp/version" 2>&1 || { cat "$tmp/version"; fail "--version exited non-zero"; }
grep -Eq '^satlab [0-9]+\.[0-9]+\.[0-9]+ \(git ([0-9a-f]{7,}(-dirty)?|unknown)\)$' "$tmp/version" ||
  { cat "$tmp/version"; fail "--version does not print the version and git revision"; }
cmp -s "$tmp/version" <("$bin" --version) || fail "the installed --version differs from the build tree's"
# A source tree without git (a tarball) builds with the revision "unknown", or the one the packager gives.
mkdir "$tmp/nogit"
cmake -DSRC="$tmp/nogit" -DOUT="$tmp/v.cpp" -DVERSION=1.2.3 -P "$src/cmake/version.cmake" &&
  grep -q 'kGitRevision = "unknown"' "$tmp/v.cpp" || fail "version.cmake without git"
cmake -DSRC="$tmp/nogit" -DOUT="$tmp/v.cpp" -DVERSION=1.2.3 -DGIT_REVISION=abc1234 -P "$src/cmake/version.cmake" &&
  grep -q 'kGitRevision = "abc1234"' "$tmp/v.cpp" || fail "version.cmake ignores SATLAB_GIT_REVISION"

installed render --backend cpu --out "$tmp/installed.png" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "installed render"; }
# The same bytes as the build tree's render of the scene and its depth map named explicitly.
"$bin" render --image "$src/assets/default.png" --depth "$src/assets/default_depth.png" --backend cpu \
  --out "$tmp/built.png" >/dev/null 2>&1 || fail "build-tree render"
cmp -s "$tmp/installed.png" "$tmp/built.png" || fail "the installed render differs from the build tree's"

# No share/satlab: one line naming where it looked, exit 1; the source tree is not used behind its back.
mv "$p/share/satlab" "$p/share/satlab.hidden"
installed render --backend cpu --out "$tmp/none.png" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "bundled scene not found.*$p/bin/../share/satlab/assets" "$tmp/err" ||
  { cat "$tmp/out" "$tmp/err"; fail "a prefix without its assets did not fail in one line"; }
grep -q "$src" "$tmp/err" && fail "the installed binary looked in the source tree"
[ ! -e "$tmp/none.png" ] || fail "rendered without assets"
# SATLAB_ASSETS still points anywhere.
(cd "$tmp" && SATLAB_ASSETS="$p/share/satlab.hidden/assets" "$p/bin/satlab" render --backend cpu --out "$tmp/env.png") \
  >/dev/null 2>&1 || fail "SATLAB_ASSETS not honoured"
cmp -s "$tmp/env.png" "$tmp/built.png" || fail "the render through SATLAB_ASSETS differs"
echo "install_prefix: all checks passed"
