#!/usr/bin/env bash
# Any size within a memory budget: the CPU backend streams a generated 20480x20480 RGB TIFF (419 Mpx, 1.2 GB,
# well past the 268.4 Mpx that used to be the ceiling) through `satlab render --memory-budget 192M` into a
# JPEG, and its peak RSS (/usr/bin/time) stays within the budget. The file is satlab bench stream's scene
# (noise over structure). Skipped under the sanitizers, where it would take minutes: the ci preset runs it.
# Usage: cli_stream_big.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
sanitized && skip "a 0.4 Gpx render is too slow instrumented (the ci preset runs it)"
[ -x /usr/bin/time ] || skip "/usr/bin/time is needed to measure peak RSS (Debian package time)"
need_python3 "to read the result's size"
w=20480 h=20480 budget_mib=192
free_mib=$(df -Pm "$tmp" | awk 'NR == 2 {print $4}')
[ "${free_mib:-0}" -gt 2500 ] || skip "needs 2.5 GB free under $tmp, has ${free_mib} MB"

"$bin" bench stream --generate-only --size ${w}x$h --dir "$tmp" >/dev/null || fail "cannot write the input"
in=$tmp/stream_${w}x$h.tif
start=$(date +%s%N)
/usr/bin/time -f %M -o "$tmp/time" "$bin" render --backend cpu --image "$in" --out "$tmp/out.jpg" --filter box \
  --radius 4 --memory-budget ${budget_mib}M >"$tmp/log" 2>"$tmp/err" || { cat "$tmp/err"; fail "the render failed"; }
wall_ms=$((($(date +%s%N) - start) / 1000000))
grep -q "streamed in" "$tmp/log" || { cat "$tmp/log"; fail "not streamed"; }
rss_mib=$(($(tail -n 1 "$tmp/time") / 1024))
grep "note: streaming" "$tmp/err"
echo "render of ${w}x$h: $wall_ms ms, peak RSS $rss_mib MiB (budget $budget_mib MiB)"
[ "$rss_mib" -le "$budget_mib" ] || fail "peak RSS $rss_mib MiB is over the memory budget of $budget_mib MiB"
python3 - "$tmp/out.jpg" $w $h <<'PY' || fail "the result is not a ${w}x$h JPEG"
import struct, sys
b = open(sys.argv[1], "rb").read()
i = 2
while b[i + 1] not in (0xC0, 0xC1, 0xC2):
    i += 2 + (b[i + 2] << 8 | b[i + 3])
h, w = struct.unpack(">HH", b[i + 5:i + 9])
assert (w, h) == (int(sys.argv[2]), int(sys.argv[3])), (w, h)
assert len(b) > w * h // 20, "suspiciously small: %d bytes" % len(b)  # noise does not compress to nothing
PY
echo "cli_stream_big: all checks passed"
