#!/usr/bin/env bash
# The GUI's --sat-builder/--reduce and the timings table, headless (EGL; Mesa in CI): a bad name makes a
# scripted run fail with the popup's line listing the valid names; a good run reports its stages, the
# display's draw and ui stages (GL timer queries) among them; --compare-all and --lab print their tables.
. "$(dirname "$0")/lib/common.sh"
bundled_scene  # the app's default scene, the 384 x 216 one

"$bin" --headless --size 640x360 --frames 3 --backend cpu --sat-builder no_such_builder >"$tmp/log" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -q "unknown SAT builder.*'no_such_builder' (valid: cpu)" "$tmp/err" ||
  { cat "$tmp/log" "$tmp/err"; fail "a bad --sat-builder did not fail the scripted run with the valid names"; }

# The box gather (its stages sat and blur); the shaped DoF modes time their tables inside their dof stage.
printf '{"satlab_preset": 1, "params": {"dof_mode": "gather_box"}}\n' >"$tmp/box.json"
"$bin" --headless --size 640x360 --frames 14 --continuous --backend cpu --sat-builder cpu --reduce cpu \
  --preset "$tmp/box.json" >"$tmp/log" 2>"$tmp/err" || { cat "$tmp/log" "$tmp/err"; fail "headless run with the CPU builders failed"; }
for stage in sat blur draw ui; do
  grep -q "stages (warm median ms, cold first runs excluded; SAT cpu, reduction cpu):.* $stage [0-9.]*;" "$tmp/log" ||
    { cat "$tmp/log" "$tmp/err"; fail "the stage summary lacks $stage"; }
done
# --compare-all: on a GPU one line per SAT builder with its badge; without one the reason, never silence.
"$bin" --headless --size 800x600 --frames 12 --continuous --backend cpu --compare-all >"$tmp/log" 2>"$tmp/err" ||
  { cat "$tmp/log" "$tmp/err"; fail "headless run with --compare-all failed"; }
grep -q "satlab: compare all: nothing to compare: \|satlab: compare .* bit-identical" "$tmp/log" ||
  { cat "$tmp/log"; fail "--compare-all printed neither its table nor why it is empty"; }
grep -q "DIFFERS\|failed:" "$tmp/log" && { cat "$tmp/log"; fail "a SAT builder differs from the CPU reference"; }
# --lab: on a GPU the table with every variant correct; without one the CPU's own reductions and scans
# (cpu: asks for them anywhere), and for the other families the reason, never silence. A bad spec is a
# usage error.
"$bin" --headless --size 800x600 --frames 3 --backend cpu --lab scan:12:uint32 >"$tmp/log" 2>"$tmp/err" ||
  { cat "$tmp/log" "$tmp/err"; fail "headless run with --lab failed"; }
grep -q "satlab: lab: scan uint32 n=2^12" "$tmp/log" || { cat "$tmp/log"; fail "--lab printed no table (the CPU's without a GPU)"; }
grep -q " NO$" "$tmp/log" && { cat "$tmp/log"; fail "a Lab variant differs from the CPU reference"; }
"$bin" --headless --size 800x600 --frames 1 --backend cpu --lab cpu:reduce:14 >"$tmp/log" 2>"$tmp/err" ||
  { cat "$tmp/log" "$tmp/err"; fail "headless run with --lab cpu:reduce:14 failed"; }
grep -q "satlab: lab: reduce int32 n=2^14 on the CPU" "$tmp/log" && grep -q "^cpu_reduce_sequential .* yes$" "$tmp/log" ||
  { cat "$tmp/log"; fail "--lab cpu:reduce:14 printed no CPU table"; }
grep -q " NO$" "$tmp/log" && { cat "$tmp/log"; fail "a CPU Lab variant differs from the reference"; }
"$bin" --headless --size 800x600 --frames 1 --backend cpu --lab cpu:scan:12:float >"$tmp/log" 2>"$tmp/err" ||
  { cat "$tmp/log" "$tmp/err"; fail "headless run with --lab cpu:scan:12:float failed"; }
grep -q "satlab: lab: the CPU variants take 32-bit integers" "$tmp/log" || { cat "$tmp/log"; fail "a float CPU scan was not refused"; }
for lab in "compact:12 compact int32" "sort:12 sort uint32"; do
  set -- $lab
  "$bin" --headless --size 800x600 --frames 1 --backend cpu --lab "$1" >"$tmp/log" 2>"$tmp/err" ||
    { cat "$tmp/log" "$tmp/err"; fail "headless run with --lab $1 failed"; }
  grep -q "satlab: lab: no GPU variants to compare: \|satlab: lab: $2 $3 n=2^12" "$tmp/log" ||
    { cat "$tmp/log"; fail "--lab $1 printed neither its table nor why it is empty"; }
  grep -q " NO$" "$tmp/log" && { cat "$tmp/log"; fail "a Lab $2 variant differs from the CPU reference"; }
done
"$bin" --headless --frames 1 --lab reduce:12:uint32 >"$tmp/log" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "LOG2N 10..28" "$tmp/err" || { cat "$tmp/err"; fail "a bad --lab spec was not a usage error"; }
echo "ok"
