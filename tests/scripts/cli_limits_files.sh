#!/usr/bin/env bash
# Limits and files, end to end through `satlab render` (docs/reliability.md): an image over
# --max-megapixels or SATLAB_MAX_MEGAPIXELS is refused in one line with nothing written; --out never
# replaces an input (the image or the depth map, also through a link or another spelling of the path);
# nothing but --out appears, the working directory stays clean; without a CUDA device `--backend auto`
# says why and renders on the CPU.
# Usage: cli_limits_files.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
need_scene
mkdir "$tmp/cwd" "$tmp/in"
cp "$src/assets/default.png" "$tmp/in/image.png"          # 1280x720, 0.9 Mpx
cp "$src/assets/default_depth.png" "$tmp/in/depth.png"
cd "$tmp/cwd"
render() { "$bin" render --backend cpu --filter box --radius 3 "$@"; }
one_line() { [ "$(wc -l <"$tmp/err")" -eq 1 ] || { cat "$tmp/err"; fail "$1: expected one error line"; }; }

# Pixel limit: from the option, from the environment; under the limit the same file renders.
render --image "$tmp/in/image.png" --max-megapixels 0.5 --out "$tmp/a.png" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] || fail "an image over --max-megapixels was not refused with exit 1"
one_line "--max-megapixels"
grep -q "image.png: image is 1280x720 (0.9 Mpx), more than the limit of 0.5 Mpx" "$tmp/err" ||
  { cat "$tmp/err"; fail "unclear limit message"; }
[ ! -e "$tmp/a.png" ] || fail "output written for a refused image"
SATLAB_MAX_MEGAPIXELS=0.5 render --image "$tmp/in/image.png" --out "$tmp/a.png" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "limit of 0.5 Mpx" "$tmp/err" || { cat "$tmp/err"; fail "SATLAB_MAX_MEGAPIXELS not applied"; }
one_line "SATLAB_MAX_MEGAPIXELS"
# The depth map is checked too (its own limit message), the option wins over the environment.
SATLAB_MAX_MEGAPIXELS=0.5 render --image "$tmp/in/image.png" --max-megapixels 1 --out "$tmp/a.png" >/dev/null 2>&1 ||
  fail "--max-megapixels 1 did not override SATLAB_MAX_MEGAPIXELS=0.5"
"$bin" render --backend cpu --filter box --image "$tmp/in/image.png" --depth "$tmp/in/depth.png" \
  --max-megapixels 0.5 --out "$tmp/b.png" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] || fail "limit with a depth map not refused"
SATLAB_MAX_MEGAPIXELS=lots render --image "$tmp/in/image.png" --out "$tmp/b.png" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "SATLAB_MAX_MEGAPIXELS='lots'" "$tmp/err" || { cat "$tmp/err"; fail "bad SATLAB_MAX_MEGAPIXELS"; }
one_line "bad SATLAB_MAX_MEGAPIXELS"
for bad in 0 -3 lots; do
  render --image "$tmp/in/image.png" --max-megapixels $bad --out "$tmp/b.png" >/dev/null 2>&1
  [ $? -eq 2 ] || fail "--max-megapixels $bad is not a usage error"
done
[ ! -e "$tmp/b.png" ] || fail "output written for a refused run"
# No fixed ceiling: a limit of 5 Gpx is a user's like any other.
render --image "$tmp/in/image.png" --max-megapixels 5000 --out "$tmp/c.png" >/dev/null 2>"$tmp/err" ||
  { cat "$tmp/err"; fail "--max-megapixels 5000 refused"; }
rm "$tmp/c.png"

# Never overwrite an input: --out naming the image or the depth map, through a link, or spelled
# differently, is refused in one line and the input is unchanged.
ln -s "$tmp/in/image.png" "$tmp/link.png"
ln "$tmp/in/depth.png" "$tmp/hard.png"
sum() { md5sum "$tmp/in/image.png" "$tmp/in/depth.png"; }
before=$(sum)
for out in "$tmp/in/image.png" "$tmp/in/../in/image.png" "$tmp/link.png" "$tmp/in/depth.png" "$tmp/hard.png"; do
  "$bin" render --backend cpu --image "$tmp/in/image.png" --depth "$tmp/in/depth.png" --out "$out" \
    >/dev/null 2>"$tmp/err"
  [ $? -eq 1 ] || fail "--out $out (an input) was not refused with exit 1"
  one_line "--out $out"
  grep -q "refusing to overwrite" "$tmp/err" || { cat "$tmp/err"; fail "unclear message for --out $out"; }
done
[ "$(sum)" = "$before" ] || fail "an input changed"
ls "$tmp/in" | grep -q tmp && fail "a temporary file was left next to the inputs"

# Writes only where asked: a render run from an empty folder leaves it empty.
render --image "$tmp/in/image.png" --out "$tmp/ok.png" >/dev/null 2>&1 || fail "render failed"
[ -s "$tmp/ok.png" ] || fail "no output"
[ -z "$(ls -A "$tmp/cwd")" ] || { ls -A "$tmp/cwd"; fail "render wrote into the working directory"; }
[ "$(ls "$tmp" | sort | tr "\n" " ")" = "a.png cwd err hard.png in link.png ok.png " ] ||
  { ls -A "$tmp"; fail "unexpected files next to the output"; }

# No CUDA device: --backend auto says why on one note line and renders on the CPU; with a device it
# renders on the GPU without a note.
"$bin" render --image "$tmp/in/image.png" --filter box --out "$tmp/auto.png" >"$tmp/out" 2>"$tmp/err" ||
  { cat "$tmp/err"; fail "--backend auto failed"; }
if grep -q "using the CPU backend" "$tmp/err"; then
  grep -qE "satlab: note: using the CPU backend: .{8,}" "$tmp/err" || { cat "$tmp/err"; fail "no reason given"; }
  grep -q ", cpu (" "$tmp/out" || { cat "$tmp/out"; fail "the note says CPU but the run did not use it"; }
  echo "no CUDA device here: $(cat "$tmp/err")"
else
  grep -q ", gpu (" "$tmp/out" || { cat "$tmp/out" "$tmp/err"; fail "neither a GPU run nor a CPU note"; }
fi
echo "cli_limits_files: all checks passed"
