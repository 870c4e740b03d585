#!/usr/bin/env bash
# Writers that never lose data: every output format, whole and streamed in tiles, and the 16-bit depth
# writer, onto a file system that fails mid-write. The failure is injected with a file size limit
# (`ulimit -f`, SIGXFSZ ignored: writes past it fail with EFBIG), which needs no privileges; where root may
# mount one in a private mount namespace, a full tmpfs (ENOSPC) too. Each refusal exits 1 with one line
# (notes aside) and leaves no file behind, the temporary one included.
# Usage: cli_write_failure.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
need_python3 "to write the test image"
cd "$tmp" || exit 1
python3 - <<'PY' || fail "cannot write the test image"
import os, struct, zlib
w, h = 600, 500  # noise: no output format compresses it under the 256 KiB limit
raw = b"".join(b"\0" + os.urandom(w * 3) for _ in range(h))
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
open("noise.png", "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                              + chunk(b"IDAT", zlib.compress(raw, 1)) + chunk(b"IEND", b""))
PY
mkdir out
check() {  # check WHAT DIR: the last command's exit, one line, nothing left in DIR
  local what=$1 dir=$2 rc
  rc=$(cat rc)
  [ "$rc" = 1 ] || { cat err; fail "$what: exit $rc, not 1"; }
  [ "$(grep -vc '^satlab: note:' err)" = 1 ] || { cat err; fail "$what: not one line"; }
  [ -z "$(ls -A "$dir")" ] || { ls -la "$dir"; fail "$what: left $(ls -A "$dir")"; }
}
limited() {  # limited CMD...: under a 256 KiB file size limit, SIGXFSZ ignored; exit status into ./rc
  bash -c 'trap "" XFSZ; ulimit -f 256; "$@"; echo $? >rc' limited "$@" 2>err
}
n=0
for ext in png tif jpg webp; do
  limited "$bin" render noise.png --backend cpu --filter box --radius 0 --whole --out "out/r.$ext"
  check "whole $ext" out
  n=$((n + 1))
  [ $ext = webp ] && continue  # streamed output: TIFF, PNG and JPEG
  limited "$bin" render noise.png --backend cpu --filter box --radius 0 --tile 128 --out "out/r.$ext"
  check "streamed $ext" out
  n=$((n + 1))
done
limited "$bin" depth refine noise.png --depth noise.png --refine none --backend cpu --out out/depth.png
check "16-bit depth PNG" out
n=$((n + 1))
echo "ok: $n writers refused a file size limit with one line and left nothing"
# A temporary file of a killed run (SIGKILL: no handler removes it) goes with the next run of that output;
# one of a live process stays.
: >out/r.png.tmp-999999999 && : >"out/r.png.tmp-$$"
"$bin" render noise.png --backend cpu --filter box --radius 0 --out out/r.png >/dev/null 2>err || { cat err; fail "render"; }
[ ! -e out/r.png.tmp-999999999 ] || fail "a dead process's temporary file was left"
[ -e "out/r.png.tmp-$$" ] || fail "a live process's temporary file was removed"
rm -f out/*
echo "ok: a dead run's temporary file removed, a live one's kept"
# A full file system, where a private tmpfs can be mounted (root, unshare).
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
  mkdir full
  unshare -m bash -c 'mount -t tmpfs -o size=256k tmpfs full || exit 77
    "$1" render noise.png --backend cpu --filter box --radius 0 --whole --out full/r.png 2>err; echo $? >rc
    ls -A full >left' tmpfs "$bin"
  if [ $? = 77 ]; then
    echo "skip: a full tmpfs (mount refused here)"
  else
    [ "$(cat rc)" = 1 ] || { cat err; fail "full tmpfs: exit $(cat rc), not 1"; }
    [ ! -s left ] || fail "full tmpfs: left $(cat left)"
    grep -q "No space left on device" err || { cat err; fail "full tmpfs: not ENOSPC"; }
    echo "ok: a full tmpfs: one line (ENOSPC), nothing left"
  fi
else
  echo "skip: a full tmpfs (needs root and unshare -m)"
fi
