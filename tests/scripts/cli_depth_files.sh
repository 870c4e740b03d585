#!/usr/bin/env bash
# Depth map files as users have them: one of another shape than the photo (1:1 for 3:2) is accepted and
# stretched with a note naming both shapes; one that cannot be read is refused with one line that says it
# was the depth map, and nothing is written.
# Usage: cli_depth_files.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
need_python3 "to write the test files"
cd "$tmp" || exit 1
export PYTHONPATH="$src/tests/scripts"
python3 - <<'PY' || fail "cannot write the test files"
import png_util
png_util.write_rgb("photo.png", 150, 100, lambda x, y: (x, y, 100))
png_util.write_rgb("square.png", 60, 60, lambda x, y: (4 * x, 4 * x, 4 * x))
open("broken.png", "wb").write(b"\x89PNG\r\n\x1a\n" + b"not a png")
PY
"$bin" render photo.png --depth square.png --backend cpu --out out.png >log 2>&1 || { cat log; fail "a 1:1 depth map was refused"; }
grep -q "square.png: depth map is 60x60 (1:1), the image 150x100 (3:2): stretched" log ||
  { cat log; fail "no note naming both shapes"; }
"$bin" render photo.png --depth broken.png --backend cpu --out bad.png >log 2>&1
rc=$?
[ $rc = 1 ] || { cat log; fail "a broken depth map: exit $rc, not 1"; }
[ "$(wc -l <log)" = 1 ] && grep -q "broken.png (depth map): " log || { cat log; fail "the refusal does not name the depth map"; }
[ ! -e bad.png ] || fail "a result was written"
echo "cli_depth_files: all checks passed"
