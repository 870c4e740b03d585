#!/usr/bin/env bash
# The lens flags on `satlab render` (docs/lens.md): the four-edged focus range, the anamorphic squeeze and
# the bokeh profile and mirror hole, the lens presets, their equalities and their refusals.
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
# A profile and a hole change the frame; the presets are their flags; a gather mode refuses them in one line
# naming spread, and writes nothing; out of range is refused.
r --focus 0.3 --bokeh-profile 1 --out "$tmp/rim.png" >/dev/null 2>&1 || fail "--bokeh-profile render failed"
cmp -s "$tmp/plain.png" "$tmp/rim.png" && fail "the profile changed nothing"
r --focus 0.3 --lens soap-bubble --out "$tmp/bubble.png" >/dev/null 2>&1 || fail "--lens soap-bubble failed"
cmp -s "$tmp/rim.png" "$tmp/bubble.png" || fail "--lens soap-bubble is not --bokeh-profile 1"
r --focus 0.3 --catadioptric 0.45 --out "$tmp/ring.png" >/dev/null 2>&1 || fail "--catadioptric render failed"
cmp -s "$tmp/plain.png" "$tmp/ring.png" && fail "the hole changed nothing"
r --focus 0.3 --lens mirror-lens --out "$tmp/mirror.png" >/dev/null 2>&1 || fail "--lens mirror-lens failed"
cmp -s "$tmp/ring.png" "$tmp/mirror.png" || fail "--lens mirror-lens is not --catadioptric 0.45"
r --focus 0.3 --lens soap-bubble --bokeh-profile 0 --out "$tmp/flat.png" >/dev/null 2>&1 || fail "preset + flag failed"
cmp -s "$tmp/plain.png" "$tmp/flat.png" || fail "--bokeh-profile 0 beside --lens soap-bubble did not win"
for flag in "--bokeh-profile -1" "--catadioptric 0.3"; do
  # shellcheck disable=SC2086  # the flag and its value
  r --focus 0.3 --dof-mode gather_shape $flag --out "$tmp/bad.png" >/dev/null 2>"$tmp/err" && fail "gather_shape took $flag"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || { cat "$tmp/err"; fail "$flag in gather_shape: not one line"; }
  grep -q "(spread)" "$tmp/err" || { cat "$tmp/err"; fail "$flag in gather_shape: spread is not named"; }
  [ -e "$tmp/bad.png" ] && fail "$flag in gather_shape wrote a file"
done
r --focus 0.3 --catadioptric 0.9 --out "$tmp/bad.png" >/dev/null 2>&1 && fail "--catadioptric 0.9 accepted"
r --focus 0.3 --bokeh-profile 2 --out "$tmp/bad.png" >/dev/null 2>&1 && fail "--bokeh-profile 2 accepted"
echo "cli_lens: all checks passed"
