#!/usr/bin/env bash
# `satlab render` end to end: good inputs write a filtered PNG; bad ones exit non-zero with one line.
. "$(dirname "$0")/lib/common.sh"
bundled_scene  # the 384 x 216 one

"$bin" --help >"$tmp/help" 2>&1 || fail "--help exited non-zero"
grep -q render "$tmp/help" || fail "--help does not mention render"
"$bin" render --help >/dev/null 2>&1 || fail "render --help exited non-zero"

"$bin" render --image "$scene" --depth "$scene_depth" --filter dof \
  --focus 0.2 --aperture 40 --max-radius 16 --backend cpu --out "$tmp/dof.png" >"$tmp/log" 2>&1 ||
  { cat "$tmp/log"; fail "dof render failed"; }
[ -s "$tmp/dof.png" ] || fail "no dof.png written"
"$bin" render --image "$scene" --filter box --radius 0 --backend cpu --out "$tmp/same.png" \
  >/dev/null 2>&1 || fail "box render failed"
"$bin" render --image "$scene" --filter box --radius 6 --backend cpu --out "$tmp/box.png" \
  >/dev/null 2>&1 || fail "box render failed"
cmp -s "$tmp/dof.png" "$tmp/box.png" && fail "dof and box results are identical"
# Radius 0 is the identity: decode both and compare pixels through satlab itself (box 0 of the output
# must equal box 0 of the input, byte for byte as PNG written by the same encoder).
"$bin" render --image "$tmp/same.png" --filter box --radius 0 --backend cpu --out "$tmp/same2.png" >/dev/null 2>&1
cmp -s "$tmp/same.png" "$tmp/same2.png" || fail "radius 0 is not the identity"

# Aperture 0 puts everything in focus: the dof filter is then the identity too.
"$bin" render --image "$scene" --depth "$scene_depth" --filter dof --aperture 0 \
  --backend cpu --out "$tmp/sharp.png" >/dev/null 2>&1 || fail "dof render with aperture 0 failed"
cmp -s "$tmp/same.png" "$tmp/sharp.png" || fail "dof with aperture 0 is not the identity"
# An output folder that does not exist: one line naming the output, exit 1.
"$bin" render --image "$scene" --filter box --backend cpu --out "$tmp/no/such/dir/o.png" \
  >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "o.png" "$tmp/err" ||
  { cat "$tmp/err"; fail "unwritable output not reported in one line"; }

# Bad inputs: non-zero exit, exactly one line naming the file, nothing written.
printf 'not an image' >"$tmp/text.png"
: >"$tmp/empty.png"
head -c 200 "$scene" >"$tmp/truncated.png"
for bad in "$tmp/text.png" "$tmp/empty.png" "$tmp/truncated.png" "$tmp/missing.png"; do
  "$bin" render --image "$bad" --filter box --backend cpu --out "$tmp/bad_out.png" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ $rc -ne 0 ] || fail "exit 0 for $bad"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || { cat "$tmp/err"; fail "expected one error line for $bad"; }
  grep -q "$(basename "$bad")" "$tmp/err" || { cat "$tmp/err"; fail "error line does not name $bad"; }
  [ ! -e "$tmp/bad_out.png" ] || fail "output written for $bad"
done
"$bin" render --image "$scene" --filter gauss --out "$tmp/x.png" >/dev/null 2>&1
[ $? -eq 2 ] || fail "unknown filter is not a usage error (exit 2)"
"$bin" render --image "$scene" --depth "$tmp/text.png" --out "$tmp/x.png" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q text.png "$tmp/err" || fail "bad depth map not reported"
# The written PNG has the input's size (IHDR width and height, big-endian, bytes 16..23).
ihdr() { od -An -tx1 -j16 -N8 "$1" | tr -d ' \n'; }
[ "$(ihdr "$tmp/dof.png")" = "$(ihdr "$scene")" ] || fail "output size differs from the input"
# Inconsistent parameters are usage errors, found before any file is read.
"$bin" render --image "$tmp/missing.png" --near 5 --far 2 --out "$tmp/x.png" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "--far <= --near is not a usage error (exit 2)"
grep -q far_depth "$tmp/err" || { cat "$tmp/err"; fail "usage error does not name the parameter"; }
# --backend gpu renders where a CUDA backend exists; elsewhere one line saying why, exit 1.
"$bin" render --image "$scene" --filter box --backend gpu --out "$tmp/gpu.png" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ]; then
  [ $rc -eq 1 ] || fail "--backend gpu failed with exit $rc, expected 1"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qi gpu "$tmp/err" || { cat "$tmp/err"; fail "unclear --backend gpu error"; }
  [ ! -e "$tmp/gpu.png" ] || fail "output written although the GPU backend failed"
fi
# DoF modes: out-of-range blades, layers or a max radius past the shaped modes' 511 are usage errors in one
# line naming the option; every mode renders the bundled scene.
for args in "--blades 9:--blades" "--blades 4:--blades" "--blades nan:--blades" "--layers 1:--layers" \
            "--dof-mode layered --max-radius 600:--max-radius" "--max-radius 5000:--max-radius" \
            "--max-radius -1:--max-radius" "--max-radius nan:--max-radius" "--max-radius inf:--max-radius" \
            "--aperture -1:--aperture" "--aperture nan:--aperture" "--aperture inf:--aperture" \
            "--focus nan:--focus" "--blade-rotation nan:--blade-rotation" "--near -1:--near" \
            "--dof-mode bokeh:--dof-mode" "--aperture-shape star:--aperture-shape" \
            "--response-shoulder 0.95:--response-shoulder" "--response-shoulder -0.1:--response-shoulder"; do
  "$bin" render --image "$scene" ${args%%:*} --out "$tmp/x.png" >/dev/null 2>"$tmp/err"
  [ $? -eq 2 ] || fail "'${args%%:*}' is not a usage error (exit 2)"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || { cat "$tmp/err"; fail "'${args%%:*}': expected one error line"; }
  [ "$(wc -c <"$tmp/err")" -le 200 ] || { cat "$tmp/err"; fail "'${args%%:*}': the error line is over 200 characters"; }
  grep -q -- "${args##*:}" "$tmp/err" || { cat "$tmp/err"; fail "the usage error does not name ${args##*:}"; }
done
for mode in gather_box gather_shape gather_linear layered spread; do
  "$bin" render --image "$scene" --depth "$scene_depth" --dof-mode $mode \
    --aperture-shape polygon --blades 7 --backend cpu --out "$tmp/mode_$mode.png" >/dev/null 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "render --dof-mode $mode failed"; }
done
# Each mode's picture is its own: none falls back to another's.
modes=(gather_box gather_shape gather_linear layered spread)
for ((i = 0; i < ${#modes[@]}; ++i)); do
  for ((j = i + 1; j < ${#modes[@]}; ++j)); do
    cmp -s "$tmp/mode_${modes[i]}.png" "$tmp/mode_${modes[j]}.png" &&
      fail "the ${modes[j]} mode gave the ${modes[i]} mode's picture"
  done
done
# The camera response: a shoulder changes the linear-light modes' picture.
"$bin" render --image "$scene" --depth "$scene_depth" --dof-mode spread \
  --aperture-shape polygon --blades 7 --response-shoulder 0.4 --backend cpu --out "$tmp/shoulder.png" \
  >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; fail "render --response-shoulder 0.4 failed"; }
cmp -s "$tmp/mode_spread.png" "$tmp/shoulder.png" && fail "--response-shoulder 0.4 gave the plain sRGB picture"
# Bokeh highlights: bad values are usage errors naming the option; on the bundled scene they find sprites,
# change the picture, and a small cap is reported as hit.
for args in "--highlights maybe:--highlights" "--highlight-threshold 2:--highlight-threshold" \
            "--highlight-gain 0.5:--highlight-gain" "--highlight-cap 0:--highlight-cap"; do
  "$bin" render --image "$scene" ${args%%:*} --out "$tmp/x.png" >/dev/null 2>"$tmp/err"
  [ $? -eq 2 ] || fail "'${args%%:*}' is not a usage error (exit 2)"
  grep -q -- "${args##*:}" "$tmp/err" || { cat "$tmp/err"; fail "the usage error does not name ${args##*:}"; }
done
"$bin" render --image "$scene" --depth "$scene_depth" --focus 0.1 --backend cpu \
  --highlights on --highlight-gain 4 --highlight-cap 50 --out "$tmp/hl.png" >"$tmp/out" 2>&1 ||
  { cat "$tmp/out"; fail "render --highlights on failed"; }
grep -q "highlights 50 splatted.*cap hit" "$tmp/out" || { cat "$tmp/out"; fail "render did not report the cap hit"; }
"$bin" render --image "$scene" --depth "$scene_depth" --focus 0.1 --backend cpu \
  --out "$tmp/nohl.png" >/dev/null 2>&1 || fail "render without highlights failed"
cmp -s "$tmp/hl.png" "$tmp/nohl.png" && fail "highlights on gave the picture without them"
# A subcommand of a group needs its leaf: usage error.
"$bin" bench >/dev/null 2>&1
[ $? -eq 2 ] || fail "satlab bench without a benchmark is not a usage error"
# bench sat's timing method is queued or synced, nothing else: a usage error naming the option.
"$bin" bench sat --timing sometimes --sizes 64x64 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || fail "bench sat --timing sometimes is not a usage error (exit 2)"
grep -q -- --timing "$tmp/err" || { cat "$tmp/err"; fail "the usage error does not name --timing"; }
"$bin" bench cpu --family sat --size 64 --reps 1 >"$tmp/bench" 2>&1 || { cat "$tmp/bench"; fail "bench cpu failed"; }
grep -q "^64x64 *sat" "$tmp/bench" || { cat "$tmp/bench"; fail "bench cpu printed no sat row"; }
# The CPU's reduction and scan variants: every row correct (a wrong one fails the command), in the JSON too.
"$bin" bench cpu --family reduce --family scan --log2n 17 --reps 1 --threads 2 --json "$tmp/prims.json" \
  >"$tmp/bench" 2>&1 || { cat "$tmp/bench"; fail "bench cpu of the primitives failed"; }
grep -q "^cpu_single_pass .* yes$" "$tmp/bench" && grep -q "^cpu_reduce_sequential .* yes$" "$tmp/bench" ||
  { cat "$tmp/bench"; fail "bench cpu printed no scan or reduction rows"; }
python3 - "$tmp/prims.json" <<'PY' || fail "bench cpu's JSON rows"
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
fams = {r["family"] for r in rows}
assert fams == {"cpu.reduce", "cpu.scan"}, fams
ran = [r for r in rows if "refused" not in r]
assert ran and all(r["correct"] and r["n"] == 2**17 and r["fraction_of_copy"] > 0 for r in ran), ran
PY
# `satlab variants --json` lists the dof family: every mode `render --dof-mode` takes, gather_box first (a
# build without CUDA has no GPU registry), and the CPU's reductions and scans in every build.
if command -v python3 >/dev/null; then
  "$bin" variants --json >"$tmp/variants.json" 2>"$tmp/err" || { cat "$tmp/err"; fail "variants --json failed"; }
  python3 - "$tmp/variants.json" <<'PY' || fail "variants --json does not list the dof modes"
import json, sys
variants = json.load(open(sys.argv[1]))
gpu = [v for v in variants if v["machine"] == "gpu"]
dof = [v["name"] for v in gpu if v["family"] == "dof"]
assert not gpu or dof == ["gather_box", "gather_shape", "gather_linear", "layered", "spread"], dof
cpu = [v["name"] for v in variants if v["machine"] == "cpu"]  # every build: the CPU's reductions and scans
assert "cpu_sequential" in cpu and "cpu_reduce_sequential" in cpu, cpu
PY
fi
# A depth map with holes (NaN) and an infinity renders, with a note naming the file, as its filled map does
# (every mode); one without a single finite value renders flat.
if command -v python3 >/dev/null; then
  python3 - "$tmp" <<'PY'
import struct, sys
w, h = 64, 36
def pfm(path, value):
    with open(path, "wb") as f:
        f.write(b"Pf\n%d %d\n-1.0\n" % (w, h))
        for y in range(h):
            f.write(struct.pack("<%df" % w, *[value(x, y) for x in range(w)]))
ramp = lambda x, y: 1.0 + 0.1 * x + 0.05 * y
def holes(x, y):
    if 10 <= x < 14: return float("nan")          # a column of holes: each from its row's nearer side
    if (x, y) == (40, 20): return float("inf")    # the largest finite value instead
    return ramp(x, y)
def filled(x, y):
    if 10 <= x < 14: return ramp(9 if x < 12 else 14, y)
    if (x, y) == (40, 20): return ramp(w - 1, h - 1)
    return ramp(x, y)
pfm(sys.argv[1] + "/holes.pfm", holes)
pfm(sys.argv[1] + "/filled.pfm", filled)
pfm(sys.argv[1] + "/nodepth.pfm", lambda x, y: float("nan"))
PY
  for mode in gather_box spread layered; do
    "$bin" render --image "$scene" --depth "$tmp/holes.pfm" --dof-mode $mode --backend cpu \
      --out "$tmp/holes_$mode.png" >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "a depth map with NaN failed ($mode)"; }
    grep -q "holes.pfm: 144 pixels without depth (NaN)" "$tmp/out" || { cat "$tmp/out"; fail "no note of the holes"; }
    "$bin" render --image "$scene" --depth "$tmp/filled.pfm" --dof-mode $mode --backend cpu \
      --out "$tmp/filled_$mode.png" >/dev/null 2>&1 || fail "the filled depth map failed ($mode)"
    cmp -s "$tmp/holes_$mode.png" "$tmp/filled_$mode.png" || fail "NaN holes did not render as their filled map ($mode)"
  done
  "$bin" render --image "$scene" --depth "$tmp/nodepth.pfm" --backend cpu --out "$tmp/nodepth.png" \
    >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "a depth map of NaN alone failed"; }
  grep -q "flat" "$tmp/out" || { cat "$tmp/out"; fail "no note that the map is flat"; }
fi
echo "cli_render: all checks passed"
