#!/usr/bin/env bash
# `satlab depth stereo` end to end on a tiny generated pair (random texture: background at disparity 4, a
# rectangle in front at 12): the output is a 16-bit PNG whose values / 256 are the disparities; bad
# arguments exit 2 with one line, bad files exit 1 with one line, nothing written.
. "$(dirname "$0")/lib/common.sh"
need_python3 "to make the pair"
backend=${SATLAB_STEREO_BACKEND:-cpu}  # tools/device.sh stereo: gpu

python3 "$src/tests/scripts/stereo_png.py" pair "$tmp/l.png" "$tmp/r.png" || fail "could not write the pair"
"$bin" depth stereo "$tmp/l.png" "$tmp/r.png" --out "$tmp/d.png" --max-disparity 16 --backend "$backend" >"$tmp/log" 2>&1 ||
  { cat "$tmp/log"; fail "depth stereo failed"; }
python3 "$src/tests/scripts/stereo_png.py" check "$tmp/d.png" || fail "wrong disparities in d.png"
"$bin" depth stereo "$tmp/l.png" "$tmp/r.png" --out "$tmp/raw.png" --max-disparity 16 --no-fill --backend "$backend" \
  >/dev/null 2>&1 || fail "depth stereo --no-fill failed"
python3 "$src/tests/scripts/stereo_png.py" check "$tmp/raw.png" nofill || fail "wrong --no-fill output"
"$bin" depth stereo "$tmp/l.png" "$tmp/r.png" --out "$tmp/refined.png" --max-disparity 16 --refine --backend "$backend" \
  >/dev/null 2>&1 || fail "depth stereo --refine failed"
python3 "$src/tests/scripts/stereo_png.py" size "$tmp/refined.png" || fail "--refine output does not decode"

# Usage errors: exit 2, one line, nothing written.
for args in "--max-disparity 1024" "--max-disparity -1" "--window 16" "--wide 513" "--backend tpu" "" "--out"; do
  # shellcheck disable=SC2086
  "$bin" depth stereo "$tmp/l.png" "$tmp/r.png" $args ${args:+--out "$tmp/bad.png"} >/dev/null 2>"$tmp/err"
  rc=$?
  [ $rc -eq 2 ] || { cat "$tmp/err"; fail "exit $rc for '$args', expected 2"; }
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || { cat "$tmp/err"; fail "expected one error line for '$args'"; }
  [ ! -e "$tmp/bad.png" ] || fail "output written for '$args'"
done
"$bin" depth >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] || { cat "$tmp/err"; fail "bare 'depth' not a one-line usage error"; }

# Bad files and a size mismatch: exit 1, one line naming the problem, nothing written.
printf 'not an image' >"$tmp/text.png"
"$bin" depth stereo "$tmp/text.png" "$tmp/r.png" --out "$tmp/bad.png" --backend "$backend" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q text.png "$tmp/err" ||
  { cat "$tmp/err"; fail "bad left image not reported in one line"; }
"$bin" depth stereo "$tmp/l.png" "$src/assets/default.png" --out "$tmp/bad.png" --backend "$backend" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "differ in size" "$tmp/err" ||
  { cat "$tmp/err"; fail "size mismatch not reported in one line"; }
# A wide window whose sums would overflow 16 bits beside a larger window: exit 1, one line; a larger
# --window alone lowers the default wide window instead.
"$bin" depth stereo "$tmp/l.png" "$tmp/r.png" --out "$tmp/bad.png" --window 15 --wide 56 --backend "$backend" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "wide window radius 56" "$tmp/err" ||
  { cat "$tmp/err"; fail "an overflowing wide window not reported in one line"; }
"$bin" depth stereo "$tmp/l.png" "$tmp/r.png" --out "$tmp/w15.png" --max-disparity 16 --window 15 --backend "$backend" \
  >/dev/null 2>&1 || fail "depth stereo --window 15 failed"
[ ! -e "$tmp/bad.png" ] || fail "output written for bad files"
echo "ok"
