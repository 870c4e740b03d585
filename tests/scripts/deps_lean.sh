#!/usr/bin/env bash
# `make run`'s dependency step (tools/install-deps.sh without options) asks for the app's packages only:
# with every package reported missing, it never asks for a benchmark anchor (OpenCV, matplotlib) or the
# tests' virtual display; `make test`'s (--test) adds the display but no anchor; --bench adds both. dpkg-query, apt-get and sudo are stand-ins
# that record what was asked, so nothing is installed.
# Usage: deps_lean.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"

mkdir -p "$tmp/bin"
cat >"$tmp/bin/dpkg-query" <<'SH'
#!/bin/sh
exit 1
SH
cat >"$tmp/bin/apt-get" <<'SH'
#!/bin/sh
[ "$1" = update ] && exit 0
echo "$@" >>"$ASKED"
SH
printf '#!/bin/sh\n"$@"\n' >"$tmp/bin/sudo"
chmod +x "$tmp/bin/"*
ASKED="$tmp/app.txt" PATH="$tmp/bin:$PATH" bash "$src/tools/install-deps.sh" >/dev/null || fail "install-deps.sh failed"
ASKED="$tmp/test.txt" PATH="$tmp/bin:$PATH" bash "$src/tools/install-deps.sh" --test >/dev/null ||
  fail "install-deps.sh --test failed"
ASKED="$tmp/bench.txt" PATH="$tmp/bin:$PATH" bash "$src/tools/install-deps.sh" --bench >/dev/null ||
  fail "install-deps.sh --bench failed"
for p in libglfw3-dev libimgui-dev libheif-dev; do
  grep -qw -- "$p" "$tmp/app.txt" || fail "make run's step does not ask for $p: $(cat "$tmp/app.txt")"
done
for p in python3-opencv python3-matplotlib xvfb; do
  ! grep -qw -- "$p" "$tmp/app.txt" || fail "make run's step asks for $p (a benchmark anchor or test tool)"
  grep -qw -- "$p" "$tmp/bench.txt" || fail "make bench-deps' step does not ask for $p"
done
grep -qw xvfb "$tmp/test.txt" || fail "make test's step does not ask for xvfb"
for p in python3-opencv python3-matplotlib; do
  ! grep -qw -- "$p" "$tmp/test.txt" || fail "make test's step asks for $p (no test uses it)"
done
echo "ok: make run asks for $(wc -w <"$tmp/app.txt") words of apt-get arguments, make test for $(wc -w <"$tmp/test.txt")"
