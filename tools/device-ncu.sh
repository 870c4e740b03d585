#!/usr/bin/env bash
# Nsight Compute on the GPU machine (/usr/local/cuda/bin/ncu; its counters can be read there): one launch
# of the kernels matching a name, after a few warm-up launches, profiled inside `satlab bench sat`, with the
# summary that said where sat_lookback_2d's time goes (docs/performance.md, tuning log 27). Report under $OUT.
#   tools/device-ncu.sh BIN_DIR KERNEL_REGEX [bench sat options...]
#   e.g. tools/device-ncu.sh build-bin 'f32::lookback_2d' --variants sat_lookback_2d --sizes 4096x4096
# KERNEL_REGEX matches the demangled name. Knobs (SATLAB_SAT_*) pass through the environment.
set -u -o pipefail
BIN=${1:?BIN_DIR}
KERNEL=${2:?kernel name regex}
shift 2
OUT=${OUT:-device-out}
mkdir -p "$OUT"
NCU=/usr/local/cuda/bin/ncu
timeout 300 "$NCU" --kernel-name-base demangled -k "regex:$KERNEL" --launch-skip 3 --launch-count 1 \
  --section SpeedOfLight --section Occupancy --section SchedulerStats --section WarpStateStats \
  --section SourceCounters --section MemoryWorkloadAnalysis \
  --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum" \
  "$BIN/satlab" bench sat --no-blur --no-check --runs 20 --warmup 2 "$@" > "$OUT/ncu.txt" 2>&1
rc=$?
# The headline numbers, and the stall reasons worth more than 0.1 cycles per issued instruction.
grep -E "Duration|DRAM Throughput|Issued Warp|Eligible Warps|Achieved Active Warps|Registers Per|Block Limit|excessive|==ERROR==" \
  "$OUT/ncu.txt"
grep -E "issue_stalled" "$OUT/ncu.txt" | awk '$NF + 0 > 0.1' | sed -E 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//'
echo "device-ncu: exit $rc"
exit $rc
