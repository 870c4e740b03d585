#!/usr/bin/env bash
# The image-format work on the GPU machine (Ubuntu 24.04, none of libwebp/libtiff/libheif/lcms2 installed):
# the binary must start and link no missing library; WebP, TIFF, CMYK JPEG and EXIF orientation work there
# (linked statically); HEIC is refused with one line naming libheif1 and ICC profiles are reported as not
# applied where lcms2 is missing; the format tests run (HEIC/ICC tests skip with the reason there).
# Everything goes to $OUT (default ./device-out).
#   tools/device-formats.sh [BIN_DIR]     (BIN_DIR holds satlab, satlab_cpu_tests and make_format_seeds)
set -u -o pipefail
BIN=${1:-build/ci}
OUT=${OUT:-device-out}
mkdir -p "$OUT"
status=0
step() { echo "== $1"; }
SATLAB="$BIN/app/satlab"; [ -x "$SATLAB" ] || SATLAB="$BIN/satlab"
TESTS="$BIN/tests/satlab_cpu_tests"; [ -x "$TESTS" ] || TESTS="$BIN/satlab_cpu_tests"

step "ldd: no library missing"
ldd "$SATLAB" | tee "$OUT/formats-ldd.txt"
if grep -q "not found" "$OUT/formats-ldd.txt"; then echo "MISSING LIBRARY"; status=1; fi
for l in libheif.so.1 liblcms2.so.2; do
  if ldconfig -p | grep -q "$l"; then echo "$l: installed here"; else echo "$l: not installed here"; fi
done | tee -a "$OUT/formats-ldd.txt"

step "format tests"
"$TESTS" --gtest_filter='Exif*:Orientation*:Formats*:Io*' > "$OUT/formats-tests.log" 2>&1 || status=1
grep -E '^\[  (PASSED|FAILED|SKIPPED)|SKIPPED|Failure' "$OUT/formats-tests.log" | head -30

step "render: each format, from the committed fuzz seeds"
for f in tests/fuzz/corpus/jpeg/exif6_icc.jpg tests/fuzz/corpus/jpeg/cmyk.jpg tests/fuzz/corpus/webp/exif_icc.webp \
         tests/fuzz/corpus/tiff/rgb16.tif tests/fuzz/corpus/heif/o6.heic tests/fuzz/corpus/heif/plain.avif; do
  for ext in png webp tif jpg; do
    "$SATLAB" render "$f" --filter box --radius 1 -o "$OUT/render-$(basename "$f").$ext" >> "$OUT/formats-render.log" 2>&1
    echo "$f -> .$ext: exit $?" >> "$OUT/formats-render.log"
  done
done
cat "$OUT/formats-render.log"
exit $status
