#!/usr/bin/env bash
# The lens flags on `satlab render` (docs/lens.md): the four-edged focus range, the anamorphic squeeze and
# the lens presets, their equalities and their refusals.
. "$(dirname "$0")/lib/common.sh"
bundled_scene  # the 384 x 216 one

r() { "$bin" render --image "$scene" --depth "$scene_depth" --backend cpu --aperture 60 --max-radius 16 "$@"; }
r --focus 0.3 --out "$tmp/plain.png" >/dev/null 2>&1 || fail "plain render failed"
# The four edges all at the focus are the plain lens.
r --focus 0.3 --focus-range 0.3,0.3,0.3,0.3 --out "$tmp/four.png" >/dev/null 2>&1 || fail "four-edged render failed"
cmp -s "$tmp/plain.png" "$tmp/four.png" || fail "NO = NI = FI = FO = focus is not the plain lens"
# Ramps soften the blur next to the band: the result differs from the band without them, and from plain.
r --focus 0.3 --focus-range 0.2 --out "$tmp/band.png" >/dev/null 2>&1 || fail "+-T render failed"
r --focus 0.3 --focus-range 0,0.1,0.5,0.9 --out "$tmp/ramps.png" >/dev/null 2>&1 || fail "ramped render failed"
cmp -s "$tmp/band.png" "$tmp/ramps.png" && fail "the ramps changed nothing"
cmp -s "$tmp/plain.png" "$tmp/band.png" && fail "the band changed nothing"
# Without --focus, the focus is the inner edges' middle: the same frame as giving it.
r --focus-range 0,0.1,0.5,0.9 --out "$tmp/mid.png" >/dev/null 2>&1 || fail "render without --focus failed"
cmp -s "$tmp/ramps.png" "$tmp/mid.png" || fail "the focus is not (NI + FI) / 2 without --focus"
# Out of order, or malformed: one line naming the order or the form, exit non-zero, nothing written.
for bad in 0.4,0.1,0.5,0.9 0,0.35,0.5,0.9 0.1,0.2,0.3 0.1,x,0.3,0.4; do
  r --focus 0.3 --focus-range "$bad" --out "$tmp/bad.png" >"$tmp/out" 2>"$tmp/err" && fail "--focus-range $bad accepted"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || { cat "$tmp/err"; fail "--focus-range $bad: not one line"; }
  grep -qE "near outer <= near inner <= focus <= far inner <= far outer|is not T or NO,NI,FI,FO" "$tmp/err" ||
    { cat "$tmp/err"; fail "--focus-range $bad: the order or form expected is not named"; }
  [ -e "$tmp/bad.png" ] && fail "--focus-range $bad wrote a file"
done
# An oval differs from the disc; the anamorphic preset is its squeeze; flags beside a preset win.
r --focus 0.3 --anamorphic 0.5 --out "$tmp/oval.png" >/dev/null 2>&1 || fail "anamorphic render failed"
cmp -s "$tmp/plain.png" "$tmp/oval.png" && fail "the squeeze changed nothing"
r --focus 0.3 --lens anamorphic --out "$tmp/lens.png" >/dev/null 2>&1 || fail "--lens render failed"
cmp -s "$tmp/oval.png" "$tmp/lens.png" || fail "--lens anamorphic is not --anamorphic 0.5"
r --focus 0.3 --lens anamorphic --anamorphic 1 --out "$tmp/won.png" >/dev/null 2>&1 || fail "--lens with a flag failed"
cmp -s "$tmp/plain.png" "$tmp/won.png" || fail "--anamorphic beside --lens did not win"
r --focus 0.3 --anamorphic 5 --out "$tmp/bad.png" >/dev/null 2>"$tmp/err" && fail "--anamorphic 5 accepted"
r --focus 0.3 --lens nope --out "$tmp/bad.png" >/dev/null 2>"$tmp/err" && fail "--lens nope accepted"
grep -q "modern-prime" "$tmp/err" || { cat "$tmp/err"; fail "--lens nope does not list the presets"; }
echo "cli_lens: all checks passed"
