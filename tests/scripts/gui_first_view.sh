#!/usr/bin/env bash
# A large photo opens without a frozen window (headless, CPU backend): its first view is a preview of the
# visible region, rendered in a fraction of the full frame's time, while the full frame renders on the
# worker thread and is shown when done. Checked as ratios within one run (the app's own timings), never
# against a wall-clock threshold.
# Usage: gui_first_view.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"
need_python3 "to write the test image"
cd "$tmp" || exit 1
export PYTHONPATH="$src/tests/scripts"
python3 - <<'PY' || fail "cannot write the test image"
import png_util
png_util.write_rgb("big.png", 2400, 1600, lambda x, y: (x * 255 // 2400, y * 255 // 1600, 200 * ((x // 40 + y // 40) % 2)))
PY
headless --backend cpu --synthetic-depth gradient --size 1280x720 --frames 6 big.png >run.log 2>&1 ||
  { cat run.log; fail "the run failed"; }
python3 - run.log <<'PY' || { cat run.log; fail "the first view"; }
import re, sys
log = open(sys.argv[1]).read()
first = re.search(r"first view \((a preview|the full frame)\) ([\d.]+) ms", log)
assert first and first.group(1) == "a preview", "the first view was not a preview"
preview = float(re.search(r"preview \d+x\d+ of 2400x1600 \(level \d+\), ([\d.]+) ms", log).group(1))
full = float(re.search(r"full 2400x1600 done, ([\d.]+) ms, shown", log).group(1))
assert preview * 5 < full, f"preview {preview} ms against the full frame's {full} ms"
print(f"ok: first view a preview ({preview:.1f} ms, {full / preview:.0f}x under the full frame's {full:.1f} ms)")
PY
echo "gui_first_view: all checks passed"
