#!/usr/bin/env bash
# The GPU work of the guided filter (issue 16, items 1 and 2), in one call: its GPU tests (GPU = CPU
# within core's derived bound, odd sizes, radii past the image, every float SAT builder, 4K with the
# measured worst difference printed), compute-sanitizer memcheck and racecheck on its kernels (small
# sizes), `satlab depth refine` on the GPU against the CPU, and the `satlab bench depth` rows at
# 3840x2160, radius 8 and 32, colour and gray, per stage. Logs and JSON go to $OUT (default device-out).
#   tools/device-guided.sh [BIN_DIR]      (BIN_DIR holds satlab and satlab_gpu_tests; default: the ci
#                                          preset's build/ci/app and build/ci/tests)
set -u -o pipefail
BIN=${1:-}
OUT=${OUT:-device-out}
mkdir -p "$OUT"
SATLAB=${BIN:+$BIN/satlab}
TESTS=${BIN:+$BIN/satlab_gpu_tests}
SATLAB=${SATLAB:-build/ci/app/satlab}
TESTS=${TESTS:-build/ci/tests/satlab_gpu_tests}
export SATLAB_GIT_REV=${SATLAB_GIT_REV:-$(cat "${BIN:-.}/git_rev" 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)}
SAN=${SAN:-/usr/local/cuda/bin/compute-sanitizer}
status=0
step() { echo "== $1"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader || true

step "GPU tests: guided filter"
"$TESTS" --gtest_filter='GpuGuidedFilter.*' 2>&1 | tee "$OUT/guided-tests.log" |
  grep -E '^\[  (PASSED|FAILED|SKIPPED) |FAILED|Failure|^guided ' | head -60
grep -q '^\[  PASSED' "$OUT/guided-tests.log" && ! grep -q '^\[  FAILED' "$OUT/guided-tests.log" || status=1

for tool in memcheck racecheck; do
  step "compute-sanitizer $tool: guided filter kernels (tests up to 25000 pixels, without the 4K case)"
  SATLAB_TEST_MAX_N=25000 $SAN --tool $tool --error-exitcode 9 --print-limit 20 "$TESTS" \
    --gtest_filter='GpuGuidedFilter.*:-GpuGuidedFilter.FourK*' >"$OUT/guided-sanitizer-$tool.log" 2>&1
  rc=$?
  tail -3 "$OUT/guided-sanitizer-$tool.log"
  [ $rc -eq 0 ] || { echo "$tool: exit $rc"; status=1; }
done

step "satlab depth refine: GPU against CPU on the bundled scene"
if [ -f assets/default.png ] && [ -f assets/default_depth.png ]; then
  for b in gpu cpu; do
    "$SATLAB" depth refine assets/default.png --depth assets/default_depth.png --radius 16 --eps 1e-3 \
      --backend $b --out "$OUT/refined-$b.png" 2>&1 | tee -a "$OUT/refine.log" || status=1
  done
  python3 - "$OUT/refined-gpu.png" "$OUT/refined-cpu.png" <<'PY' 2>&1 | tee -a "$OUT/refine.log" || status=1
import struct, sys, zlib
def read(path):
    data, pos, idat = open(path, "rb").read(), 8, b""
    while pos < len(data):
        n, t = struct.unpack(">I4s", data[pos:pos + 8]); body = data[pos + 8:pos + 8 + n]
        if t == b"IHDR": w, h = struct.unpack(">II", body[:8])
        if t == b"IDAT": idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    return [struct.unpack(">H", raw[y * (2 * w + 1) + 1 + 2 * x: y * (2 * w + 1) + 3 + 2 * x])[0] for y in range(h) for x in range(w)]
a, b = read(sys.argv[1]), read(sys.argv[2])
d = max(abs(x - y) for x, y in zip(a, b))
print(f"refine gpu vs cpu (16-bit levels): max difference {d}")
PY
fi

step "satlab bench depth: 3840x2160, radius 8 and 32"
"$SATLAB" bench depth --sizes 3840x2160 --radii 8 32 --json "$OUT/guided-bench.json" \
  >"$OUT/guided-bench.log" 2>&1 || status=1
"$SATLAB" bench depth --sizes 1920x1080 7680x4320 --radii 8 32 --json "$OUT/guided-bench-sizes.json" \
  >>"$OUT/guided-bench.log" 2>&1 || status=1
cat "$OUT/guided-bench.log"
echo "device-guided: status $status"
exit $status
