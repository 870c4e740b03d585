#!/usr/bin/env bash
# `satlab render` on photos with embedded depth: the summary names the source; a depth map beside the
# image wins over it; a broken embedded depth is one note line and the image renders with synthetic depth.
. "$(dirname "$0")/lib/common.sh"
data="$src/tests/data/embedded_depth"
[ -f "$data/gd_standard_xmp.jpg" ] || skip "no samples under '$data'"

check() {  # FILE EXPECTED-SUMMARY-PART
  "$bin" render --image "$data/$1" --backend cpu --out "$tmp/out.png" >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "$1 did not render"; }
  grep -qF "$2" "$tmp/log" || { cat "$tmp/log"; fail "$1: summary lacks '$2'"; }
}
check gd_standard_xmp.jpg "depth: embedded GDepth RangeInverse near 0.3 far 4.1; the map spans"
# The phone's map is smaller than the photo: refined by the default refiner, unless --refine says otherwise.
grep -qE ", 12x8 refine wmedian \((cpu|gpu), [0-9.]+ ms\)" "$tmp/log" || { cat "$tmp/log"; fail "the embedded map was not refined"; }
check gd_extended_xmp.jpg "depth: embedded GDepth RangeLinear near 0.3 far 4.1"
check dd_container.jpg "depth: embedded Dynamic Depth RangeInverse near 0.3 far 4.1 (ignored: confidence map"

# A depth map beside the image is used instead.
cp "$data/gd_standard_xmp.jpg" "$tmp/a.jpg"
cp "$src/assets/default_depth.png" "$tmp/a.depth.png"
"$bin" render --image "$tmp/a.jpg" --backend cpu --out "$tmp/a_out.png" >"$tmp/log" 2>&1 || fail "a.jpg did not render"
grep -q "embedded" "$tmp/log" && { cat "$tmp/log"; fail "embedded depth used although a.depth.png is beside the image"; }

# Broken XMP: rendered with synthetic depth, one note saying why.
sed 's|</rdf:RDF>|</rdf:RDX>|' "$data/gd_standard_xmp.jpg" >"$tmp/bad.jpg"
"$bin" render --image "$tmp/bad.jpg" --backend cpu --out "$tmp/bad_out.png" >"$tmp/log" 2>"$tmp/err" ||
  { cat "$tmp/log" "$tmp/err"; fail "an image with broken XMP did not render"; }
[ "$(grep -c "embedded depth not used: XMP is not well-formed XML" "$tmp/err")" -eq 1 ] ||
  { cat "$tmp/err"; fail "broken XMP not reported in one note"; }
grep -q "synthetic depth" "$tmp/log" || { cat "$tmp/log"; fail "broken XMP: no fallback to synthetic depth"; }
echo "ok: embedded depth in render"
