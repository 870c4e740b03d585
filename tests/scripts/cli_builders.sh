#!/usr/bin/env bash
# `satlab render --sat-builder/--reduce`: a name the backend does not have exits 1 with one line that
# lists the valid names; the CPU backend's own names work and are reported.
. "$(dirname "$0")/lib/common.sh"
need_scene
img="$src/assets/default.png" depth="$src/assets/default_depth.png"

"$bin" render --image "$img" --depth "$depth" --backend cpu --sat-builder no_such_builder --out "$tmp/a.png" \
  >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] || { cat "$tmp/err"; fail "unknown SAT builder not one line, exit 1"; }
grep -q "unknown SAT builder.*'no_such_builder' (valid: cpu)" "$tmp/err" || { cat "$tmp/err"; fail "valid names not listed"; }
[ -e "$tmp/a.png" ] && fail "a result was written despite the bad builder"

"$bin" render --image "$img" --depth "$depth" --backend cpu --reduce harris99 --out "$tmp/b.png" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "unknown reduction.*'harris99' (valid: cpu)" "$tmp/err" || { cat "$tmp/err"; fail "unknown reduction"; }

"$bin" render --image "$img" --depth "$depth" --backend cpu --sat-builder cpu --reduce cpu --out "$tmp/c.png" \
  >"$tmp/log" 2>&1 || { cat "$tmp/log"; fail "the CPU backend's own names were refused"; }
grep -q "SAT cpu, reduction cpu" "$tmp/log" || { cat "$tmp/log"; fail "the builders used are not reported"; }
echo "ok"
