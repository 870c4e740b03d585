#!/usr/bin/env bash
# The GUI's --sat-builder/--reduce and the timings table, headless (EGL; Mesa in CI): a bad name makes a
# scripted run fail with the popup's line listing the valid names; a good run reports its stages, the
# display's draw and ui stages (GL timer queries) among them.
set -u
bin=${1:-} src=${2:-}
[ -x "$bin" ] || { echo "SKIP: no satlab binary at '$bin'"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$bin" --headless --size 640x360 --frames 3 --backend cpu --sat-builder no_such_builder >"$tmp/log" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -q "unknown SAT builder.*'no_such_builder' (valid: cpu)" "$tmp/err" ||
  { cat "$tmp/log" "$tmp/err"; fail "a bad --sat-builder did not fail the scripted run with the valid names"; }

"$bin" --headless --size 640x360 --frames 14 --continuous --backend cpu --sat-builder cpu --reduce cpu \
  >"$tmp/log" 2>"$tmp/err" || { cat "$tmp/log" "$tmp/err"; fail "headless run with the CPU builders failed"; }
for stage in sat blur draw ui; do
  grep -q "stages (median ms; SAT cpu, reduction cpu):.* $stage [0-9.]*;" "$tmp/log" ||
    { cat "$tmp/log" "$tmp/err"; fail "the stage summary lacks $stage"; }
done
# --compare-all: on a GPU one line per SAT builder with its badge; without one the reason, never silence.
"$bin" --headless --size 800x600 --frames 12 --continuous --backend cpu --compare-all >"$tmp/log" 2>"$tmp/err" ||
  { cat "$tmp/log" "$tmp/err"; fail "headless run with --compare-all failed"; }
grep -q "satlab: compare all: nothing to compare: \|satlab: compare .* bit-identical" "$tmp/log" ||
  { cat "$tmp/log"; fail "--compare-all printed neither its table nor why it is empty"; }
grep -q "DIFFERS\|failed:" "$tmp/log" && { cat "$tmp/log"; fail "a SAT builder differs from the CPU reference"; }
echo "ok"
