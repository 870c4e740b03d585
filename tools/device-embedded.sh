#!/usr/bin/env bash
# Embedded depth on the GPU machine (Ubuntu 24.04, no libheif): satlab starts without libheif.so, renders
# the GDepth / Dynamic Depth samples on the GPU backend with the source named in its line, and a HEIC file
# gives one clear line (no libheif there) instead of a crash. Nothing here is a GPU kernel of its own.
# Logs go to $OUT (default ./device-out).
#   tools/device-embedded.sh [BIN_DIR] [SRC_DIR]      (BIN_DIR holds satlab)
set -u -o pipefail
BIN=${1:-build-gpu-h3/bin}
SRC=${2:-.}
OUT=${OUT:-device-out}
mkdir -p "$OUT"
data="$SRC/tests/data/embedded_depth"
status=0
step() { echo "== $1"; }

step "satlab's shared libraries (libheif must not be among them)"
ldd "$BIN/satlab" | tee "$OUT/embedded-ldd.log"
grep -q heif "$OUT/embedded-ldd.log" && { echo "satlab links libheif"; status=1; }
ls /usr/lib/x86_64-linux-gnu/libheif* 2>/dev/null | tee -a "$OUT/embedded-ldd.log" || echo "no libheif here" | tee -a "$OUT/embedded-ldd.log"

for f in gd_standard_xmp.jpg gd_extended_xmp.jpg dd_container.jpg; do
  step "render $f on the GPU"
  "$BIN/satlab" render --image "$data/$f" --backend gpu --out "$OUT/embedded-$f.png" 2>&1 |
    tee -a "$OUT/embedded-render.log" | tail -2
  grep -q "depth: embedded .* near 0.3 far 4.1" <(tail -1 "$OUT/embedded-render.log") || { echo "no embedded depth line for $f"; status=1; }
done

step "HEIC depth without libheif: one line, no crash"
"$BIN/satlab" render --image "$data/heic_aux.heic" --backend gpu --out "$OUT/embedded-heic.png" \
  > "$OUT/embedded-heic.log" 2>&1
rc=$?
cat "$OUT/embedded-heic.log"
{ [ $rc -eq 0 ] || [ $rc -eq 1 ]; } || { echo "HEIC render exit $rc"; status=1; }
echo "device-embedded: status $status"
exit $status
