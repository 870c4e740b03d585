#!/usr/bin/env bash
# `satlab render` on several images and folders (--out-dir), with --preset and --synthetic-depth: every
# good image is written, a bad one gets one clear line, the exit code says whether any failed.
. "$(dirname "$0")/lib/common.sh"
bundled_scene  # scene.png below: the 384 x 216 one
mkdir -p "$tmp/in" "$tmp/out"
cp "$src/assets/coffee.png" "$src/assets/coffee.depth.png" "$tmp/in/"
cp "$scene" "$tmp/in/scene.png"
printf 'this is not an image' >"$tmp/in/corrupt.png"

# A folder with two good images and one corrupt file: two results, one failed line, exit non-zero.
"$bin" render "$tmp/in" --out-dir "$tmp/out" --backend cpu --max-radius 8 >"$tmp/log" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || { cat "$tmp/log" "$tmp/err"; fail "a folder with a corrupt file exited $rc, not 1"; }
[ -s "$tmp/out/coffee_dof_f0.20_a40_r8.png" ] || { ls "$tmp/out"; fail "coffee result not written"; }
[ -s "$tmp/out/scene_dof_f0.20_a40_r8.png" ] || { ls "$tmp/out"; fail "scene result not written"; }
[ "$(ls "$tmp/out" | wc -l)" -eq 2 ] || { ls "$tmp/out"; fail "expected exactly two outputs"; }
[ "$(grep -c '^failed' "$tmp/log")" -eq 1 ] || { cat "$tmp/log"; fail "expected one failed line"; }
grep -q '^failed .*corrupt.png: not a readable image' "$tmp/log" || { cat "$tmp/log"; fail "the failed line does not say why"; }
[ "$(grep -c '^ok' "$tmp/log")" -eq 2 ] || { cat "$tmp/log"; fail "expected two ok lines"; }
grep -q 'coffee.png .*depth coffee.depth' "$tmp/log" || { cat "$tmp/log"; fail "coffee.depth.png beside the image not used"; }
grep -q 'scene.png .*synthetic depth gradient' "$tmp/log" || { cat "$tmp/log"; fail "no synthetic depth for scene.png"; }
grep -q '2 of 3 images written' "$tmp/log" || { cat "$tmp/log"; fail "no summary line"; }
# One backend serves the whole batch: each result equals the single-image render of its input.
for name in coffee scene; do
  "$bin" render "$tmp/in/$name.png" --backend cpu --max-radius 8 --out "$tmp/single_$name.png" >/dev/null 2>&1 ||
    fail "single render of $name failed"
  cmp -s "$tmp/single_$name.png" "$tmp/out/${name}_dof_f0.20_a40_r8.png" || fail "batch result of $name != single render"
done
# Not a terminal: no progress bar escapes in the output.
grep -q $'\033' "$tmp/err" "$tmp/log" && fail "terminal escapes written to a file"

# On a terminal (util-linux `script` gives one): a progress bar on stderr, redrawn in place.
if command -v script >/dev/null; then
  mkdir "$tmp/out_tty"
  script -qec "'$bin' render '$tmp/in' --out-dir '$tmp/out_tty' --backend cpu --max-radius 8" "$tmp/tty" >/dev/null 2>&1
  grep -q $'\r\033\[K\[#*\.*\] [0-9]/3' "$tmp/tty" || { cat -v "$tmp/tty"; fail "no progress bar on a terminal"; }
  grep -q '2 of 3 images written' "$tmp/tty" || { cat -v "$tmp/tty"; fail "no summary on a terminal"; }
else
  echo "note: util-linux script not found: the terminal progress bar is not checked"
fi

# All good: exit 0. Images named one by one (positional and --image) are the same as the folder.
rm -f "$tmp/in/corrupt.png"
"$bin" render "$tmp/in/coffee.png" --image "$tmp/in/scene.png" --out-dir "$tmp/out2" --backend cpu >/dev/null 2>&1 &&
  fail "a missing --out-dir was accepted"
mkdir "$tmp/out2"
"$bin" render "$tmp/in/coffee.png" --image "$tmp/in/scene.png" --out-dir "$tmp/out2" --backend cpu --max-radius 8 \
  >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "two good images did not exit 0"; }
cmp -s "$tmp/out/coffee_dof_f0.20_a40_r8.png" "$tmp/out2/coffee_dof_f0.20_a40_r8.png" || fail "listed != folder result"

# A result that would overwrite an input is refused; the other inputs are still written.
cp "$scene" "$tmp/in/scene_box_r3.png"
"$bin" render "$tmp/in" --out-dir "$tmp/in" --filter box --radius 3 --backend cpu >"$tmp/log" 2>&1
[ $? -eq 1 ] || { cat "$tmp/log"; fail "overwriting an input was not a failure"; }
grep -q '^failed .*scene.png: refusing to overwrite an input' "$tmp/log" || { cat "$tmp/log"; fail "no refusal line"; }
cmp -s "$scene" "$tmp/in/scene_box_r3.png" || fail "an input was overwritten"
[ -s "$tmp/in/coffee_box_r3.png" ] || fail "the other inputs were not written"
rm -f "$tmp/in/"*_box_r3*.png
"$bin" render "$tmp/in/scene.png" --out "$tmp/in/scene.png" --filter box --backend cpu >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "refusing to overwrite an input" "$tmp/err" || { cat "$tmp/err"; fail "--out onto the input"; }
"$bin" render "$tmp/in/coffee.png" "$tmp/in/scene.png" --out "$tmp/x.png" --backend cpu >/dev/null 2>"$tmp/err"
[ $? -ne 0 ] && grep -q -- "--out-dir" "$tmp/err" || { cat "$tmp/err"; fail "--out with several images accepted"; }

# --preset sets the parameters; options on the command line override it.
printf '{"satlab_preset": 1, "params": {"filter": "box", "box_radius": 5}}\n' >"$tmp/box5.json"
"$bin" render "$tmp/in/scene.png" --preset "$tmp/box5.json" --backend cpu --out "$tmp/p.png" >/dev/null 2>&1 ||
  fail "render with a preset failed"
"$bin" render "$tmp/in/scene.png" --filter box --radius 5 --backend cpu --out "$tmp/b5.png" >/dev/null 2>&1
cmp -s "$tmp/p.png" "$tmp/b5.png" || fail "the preset's box radius 5 was not applied"
"$bin" render "$tmp/in/scene.png" --preset "$tmp/box5.json" --radius 0 --backend cpu --out "$tmp/p0.png" >/dev/null 2>&1
"$bin" render "$tmp/in/scene.png" --filter box --radius 0 --backend cpu --out "$tmp/b0.png" >/dev/null 2>&1
cmp -s "$tmp/p0.png" "$tmp/b0.png" || fail "--radius did not override the preset"
# A bad preset: one line naming the field, exit 1, nothing written.
printf '{"satlab_preset": 1, "params": {"focus": 3}}\n' >"$tmp/bad.json"
"$bin" render "$tmp/in/scene.png" --preset "$tmp/bad.json" --backend cpu --out "$tmp/bad.png" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "params.focus" "$tmp/err" ||
  { cat "$tmp/err"; fail "an out-of-range preset was not refused in one line naming the field"; }
[ ! -e "$tmp/bad.png" ] || fail "output written with a bad preset"

# Synthetic depth: none keeps a depthless image sharp (the identity), a gradient blurs; bad specs are usage errors.
"$bin" render "$tmp/in/scene.png" --synthetic-depth none --backend cpu --out "$tmp/none.png" >/dev/null 2>&1
cmp -s "$tmp/none.png" "$tmp/b0.png" || fail "--synthetic-depth none is not the identity"
"$bin" render "$tmp/in/scene.png" --synthetic-depth radial:x=0.3,radius=0.4 --backend cpu --out "$tmp/rad.png" \
  >/dev/null 2>&1 || fail "radial synthetic depth failed"
cmp -s "$tmp/rad.png" "$tmp/b0.png" && fail "radial synthetic depth did not blur"
"$bin" render "$tmp/in/scene.png" --synthetic-depth gradient:tilt=3 --out "$tmp/x.png" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q tilt "$tmp/err" || { cat "$tmp/err"; fail "a bad --synthetic-depth is not a usage error naming the key"; }
echo "cli_batch: all checks passed"
