#!/usr/bin/env bash
# satlab bench video on a tiny clip (CPU backend): its table and JSON hold every row asked for with the
# stages it names, the memory rows of N and 4N frames, and it leaves no clip behind. Skips where FFmpeg's
# libraries are not installed.
# Usage: cli_bench_video.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
need_scene
need_python3 "to read the JSON"
export SATLAB_ASSETS=$src/assets
mkdir -p "$tmp/clips"
if ! "$bin" bench video --sizes 96x64 --codecs h264,ffv1 --frames 8 --backend cpu --dof-mode gather_box --memory \
  --dir "$tmp/clips" --json "$tmp/v.json" >"$tmp/log" 2>&1; then
  grep -q "FFmpeg's libraries" "$tmp/log" && skip "$(tail -1 "$tmp/log")"
  cat "$tmp/log"; fail "bench video failed"
fi
grep -q "^96x64 *h264" "$tmp/log" || { cat "$tmp/log"; fail "no h264 row in the table"; }
python3 - "$tmp/v.json" <<'PY' || fail "the JSON is not what the table says"
import json, sys
j = json.load(open(sys.argv[1]))
rows = {(r["size"], r["codec"]): r for r in j["rows"]}
assert set(rows) == {("96x64", "h264"), ("96x64", "ffv1")}, rows.keys()
for r in rows.values():
    for k in ("decode_fps", "transcode_fps", "render_over_transcode", "still_pipeline_warm_ms", "pipeline_over_still"):
        assert r[k] > 0, (k, r[k])
    for run in ("render_synthetic", "render_depth_clip"):
        assert r[run]["frames"] == 8, r[run]
        assert r[run]["filter_ms"] > 0 and r[run]["encode_ms"] > 0, r[run]
    assert r["render_depth_clip"]["refiner"] != "", r
assert [m["frames"] for m in j["memory"]] == [8, 32], j["memory"]
assert all(m["peak_rss_mib"] > 0 for m in j["memory"])
PY
[ -z "$(ls -A "$tmp/clips")" ] || { ls "$tmp/clips"; fail "clips left behind"; }
echo "cli_bench_video: all checks passed"
