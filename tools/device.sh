#!/usr/bin/env bash
# The GPU machine's work, one part per call (../shared/DEVICE.md: build here, carry the binaries; each part
# fits one call). Logs and JSON go to $OUT (default ./device-out); the exit status is 0 when every check held.
#   tools/device.sh PART BIN_DIR [ARGS...]
#   tools/device.sh --dry-run PART BIN_DIR [ARGS...]   stand-in binaries; lists the commands the part runs
#   tools/device.sh help
# BIN_DIR holds satlab, satlab_gpu_tests and (holdout, timings) gen_scene, side by side or as in a build
# tree (app/, tests/, tools/); BIN_DIR/git_rev (git rev-parse --short HEAD, written where it was built)
# names the commit in the JSON, as the machine's copy of the tree has no git HEAD. Parts whose tests or
# rows draw with GL (HighlightSplatGl, the highlights' GL splat, timings) need DEVICE.md's headless recipe
# (.gl unpacked, __EGL_VENDOR_LIBRARY_FILENAMES set) first.
#
# Parts:
#   tests         every GPU test suite, then `satlab verify` (every family)
#   bench         `bench sat --pipeline-only` (every DoF mode at 3840x2160, the highlights' CUDA and GL splat
#                 rows), `bench sat` of sat_tiled's u8/rgba8/rgba16 tables, `bench depth`, `bench stereo`
#   sanitize      compute-sanitizer memcheck and racecheck at small sizes on the DoF modes, spread, highlights,
#                 the GL splat's CUDA records, compaction and sort, the guided filter, stereo and the SAT
#                 builders' float and 16-bit paths (NPP's own kernels left out)
#   sanitize-all  memcheck (leak check), racecheck, initcheck and synccheck side by side over the whole GPU
#                 suite at SATLAB_TEST_MAX_N (default 320000); TOOLS, LIMIT_S (450), RACE_SHARDS (6) choose
#   reliability   the whole GPU suite (the real out-of-memory included), the fault / fallback / limits
#                 scripts, a 10,000-frame GPU soak, then sanitize-all (docs/reliability.md)
#   quality       `satlab quality --backend gpu`, every case and mode, highlights off and on, against the CPU
#                 backend's scores in docs/quality/quality-cpu.json (the modes are bit-identical)
#   holdout       renders the held-out ground truth (gen_scene --truth --holdout), `satlab quality` on it with
#                 both backends, the GPU rows against the CPU's there and docs/quality/holdout-cpu.json
#   lens          the lens's features (docs/lens.md): the spread, shaped-mode and CoC GPU = CPU tests, memcheck and
#                 racecheck on spread, `verify --families dof`; thin-lens truth (LENS samples, default 24) for
#                 each of TRUTHS (default "plain oval-0.5-0 oval-2-30"; also profile-P, hole-H, chromatic-C,
#                 holdout-NAME) into DIR
#                 (default /tmp/satlab-lens), `satlab quality --backend gpu` on each; `bench sat --pipeline-only
#                 --dof-modes spread` (the feature rows beside plain spread)
#   layers        spread's and layered's 4K frames and GPU scores at 6, 7 and 8 depth layers (LAYERS="...")
#   primitives    compaction and sort: tests, bench rows with own/CUB ratios (2^16..2^26; SATLAB_BENCH_FULL=1
#                 the whole sweep), `verify --families compact sort`, sanitizers, Nsight Compute summaries
#                 (SATLAB_NCU=0: none)
#   sat [bench|quick|none]   SAT, blur and pipeline tests, memcheck and racecheck at <= 140000 pixels (NPP's
#                 own hazards not counted), then `bench sat`: every size (bench), three (quick) or none
#   sat variant NAME         the same tests, the sanitizers on builder NAME alone, `render --sat-builder NAME`
#                 against the CPU backend, NAME's bench rows beside sat_tiled, CUB and NPP
#   sat-ab "VARIANT..." "SIZE..." SETTING...   `bench sat --phases` once per SETTING (bench policies
#                 BUILDER@POLICY benched beside VARIANT, e.g. "sat_tiled@rows8", or "default": none), each
#                 in its own process, the order repeated reversed so that drift shows; BENCH_ARGS adds options
#   ncu KERNEL_REGEX [bench sat options...]    Nsight Compute on one launch of the kernels matching the
#                 demangled name inside `satlab bench sat`, with the stall summary
#   guided        the guided filter: GPU tests (4K worst difference printed), sanitizers, `depth refine` GPU
#                 against CPU, `bench depth` at 1920x1080, 3840x2160 and 7680x4320, r = 8 and 32
#   select        subject select: GPU = CPU tests, memcheck and racecheck on them, `verify --families select`,
#                 `depth select` GPU against CPU on the bundled coffee photo, `bench depth`'s select rows at
#                 4000x3000 (12 Mpx) and 1920x1080
#   stereo        the stereo matcher: GPU = CPU tests, sanitizers, tests/scripts/cli_depth_stereo.sh on the GPU,
#                 `bench stereo` (3840x2160, 128 disparities) with the default and every 8-bit SAT builder
#   stereo-speed [PAIRS_DIR]  box rows against sat_lookback_2d in `bench stereo`, with and without the wide
#                 window; `depth stereo` GPU = CPU byte for byte on `tools/gen_stereo PAIRS_DIR --ss 2` pairs
#   stream [VIPS_TAR]  streaming (docs/streaming.md): the GpuTiled tests, `bench stream` on the GPU (box and
#                 dof, GPX sizes, default "0.25 1 4"; FILTERS, default "box dof"), the inputs kept in DIR
#                 (default /tmp/satlab-stream), then libvips convsep (box r 10) 3 times on each, from
#                 VIPS_TAR (tools/pack_vips.sh, made on a Debian 12 machine) where given
#   video [AV_TAR] clips (docs/clips.md): FFmpeg's libraries from AV_TAR (tools/pack_av.sh: the .so files of
#                 Debian 12's libavcodec59, libavformat59, libswscale6 and what they need; `tools/pack_av.sh OUT
#                 --device-libs tools/gpu-machine-libs.txt` packs them in 9 MB, the rest stand-ins) on LD_LIBRARY_PATH;
#                 the NVDEC and conversion tests, memcheck on them; `bench video --backend gpu` at 1920x1080
#                 and 3840x2160, H.264 and HEVC, both decoders (cpu, nvdec), with --memory, the clips kept;
#                 then the headless app playing the 4K and 1080p H.264 clips with each decoder (--play, 600
#                 frames; the summary's playback rate)
#   timings       truthful timings: pipeline tests, memcheck on the every-stage test, headless Timings panel
#                 screenshots and exports at 4K (run every frame: all warm; focus sweep: reduce and sat
#                 "not run"), and in a window where Xvfb was carried (DEVICE.md's window recipe)
set -u -o pipefail

usage() { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
DRY=0
[ "${1:-}" = --dry-run ] && { DRY=1; shift; }
PART=${1:-help}
case "$PART" in
  help | -h | --help) usage; exit 0 ;;
  tests | bench | sanitize | sanitize-all | reliability | quality | holdout | lens | layers | primitives | sat | sat-ab | \
    ncu | guided | select | stereo | stereo-speed | stream | video | timings) ;;
  *) echo "tools/device.sh: unknown part '$PART' (tools/device.sh help)" >&2; exit 2 ;;
esac
BIN=${2:-}
[ -n "$BIN" ] || { echo "tools/device.sh $PART: BIN_DIR missing (tools/device.sh help)" >&2; exit 2; }
shift 2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export SATLAB_ASSETS=${SATLAB_ASSETS:-$ROOT/assets}  # the bundled scene (bench video pans it)
SAN=${COMPUTE_SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}
NCU=${NCU:-/usr/local/cuda/bin/ncu}
if [ $DRY = 1 ]; then
  # Stand-ins for the binaries, the CUDA tools, nvidia-smi and Xvfb: each records its command line.
  dry=$(mktemp -d)
  trap 'rm -rf "$dry"' EXIT
  mkdir "$dry/bin" "$dry/path"
  for b in bin/satlab bin/satlab_gpu_tests bin/gen_scene path/compute-sanitizer path/ncu path/nvidia-smi path/Xvfb; do
    printf '#!/bin/sh\necho "$(env | grep -E "^(SATLAB|GTEST)_" | grep -v ^SATLAB_GIT_REV | sort | tr "\\n" " ")%s $*" >>"%s"\n' \
      "${b#*/}" "$dry/commands" >"$dry/$b"
    case $b in *tests | *sanitizer) echo 'echo "[  PASSED  ] 0 tests."' >>"$dry/$b" ;; esac
    chmod +x "$dry/$b"
  done
  echo "dry run: BIN_DIR $BIN stands in as $dry/bin" >"$dry/commands"
  BIN=$dry/bin SAN=$dry/path/compute-sanitizer NCU=$dry/path/ncu PATH=$dry/path:$PATH OUT=$dry/out TMPDIR=$dry
  export TMPDIR
fi
[ -d "$BIN" ] || { echo "tools/device.sh: no directory '$BIN'" >&2; exit 2; }
BIN=$(cd "$BIN" && pwd)
OUT=${OUT:-device-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
export OUT
bin_of() {  # bin_of NAME SUBDIR: BIN_DIR/NAME, or BIN_DIR/SUBDIR/NAME in a build tree
  if [ -x "$BIN/$2/$1" ] && [ ! -x "$BIN/$1" ]; then echo "$BIN/$2/$1"; else echo "$BIN/$1"; fi
}
SATLAB=$(bin_of satlab app)
TESTS=$(bin_of satlab_gpu_tests tests)
GEN_SCENE=$(bin_of gen_scene tools)
export SATLAB_GIT_REV=${SATLAB_GIT_REV:-$(cat "$BIN/git_rev" 2>/dev/null || echo unknown)}
status=0
LOG=/dev/null  # a part that keeps one log of its steps sets LOG

step() { echo "== $1 ($(date +%T))" | tee -a "$LOG"; }
run() {  # run LIMIT LOGNAME CMD...: the command's output appended to $OUT/LOGNAME, its tail shown; LIMIT 0: none
  local limit=$1 log=$OUT/$2
  shift 2
  timeout "$limit" "$@" >>"$log" 2>&1
  local rc=$?
  tail -4 "$log"
  [ $rc -eq 0 ] || { echo "exit $rc: $*" | tee -a "$LOG"; status=1; }
}
gpu_tests() {  # gpu_tests [--no-skip] LIMIT LOGNAME FILTER: a GPU test subset; --no-skip: a skip fails too
  # (where nothing may skip: a skip there means the device was not found)
  local bad='FAILED'
  [ "$1" = --no-skip ] && { bad='(FAILED|SKIPPED)'; shift; }
  local log=$OUT/$2
  timeout "$1" "$TESTS" --gtest_filter="$3" >"$log" 2>&1 || status=1
  grep -E '^\[  (PASSED|FAILED|SKIPPED) |Failure|Expected|Which is|^guided ' "$log" | head -40 | tee -a "$LOG"
  grep -q '^\[  PASSED' "$log" && ! grep -qE "^\[  $bad " "$log" || status=1
}
sanitizer() {  # sanitizer TOOL MAX_N LIMIT LOGNAME FILTER: compute-sanitizer on a test subset at small sizes,
  # its output appended to $OUT/LOGNAME
  local log=$OUT/$4
  SATLAB_TEST_MAX_N=$2 timeout "$3" "$SAN" --tool "$1" --error-exitcode 9 --print-limit 20 "$TESTS" \
    --gtest_filter="$5" >>"$log" 2>&1
  local rc=$?
  grep -E '^\[  (PASSED|FAILED) |SUMMARY' "$log" | tail -3 | tee -a "$LOG"
  [ $rc -eq 0 ] || { echo "$1: exit $rc" | tee -a "$LOG"; status=1; }
}
same_rows() {  # same_rows GPU_JSON CPU_JSON...: every row both have scores the same, whole and band
  python3 - "$@" <<'PY' || status=1
import json, sys
def rows(f):
    return {(r["case"], r["mode"], r.get("highlights", False)): r for r in json.load(open(f))["rows"]}
gpu, fail = rows(sys.argv[1]), False
for f in sys.argv[2:]:
    cpu = rows(f)
    both = [k for k in cpu if k in gpu]
    bad = [k for k in both if any(cpu[k][m] != gpu[k][m] for m in ("whole", "band"))]
    print(f"{f}: {len(both)} rows in both, {len(bad)} differing: {bad[:8]}")
    fail = fail or bool(bad) or not both
sys.exit(1 if fail else 0)
PY
}

part_tests() {
  step "GPU tests, every suite"
  run 420 gpu-tests.log "$TESTS"
  grep -E '^\[  FAILED|Failure' "$OUT/gpu-tests.log" | head -30
  step "satlab verify"
  run 120 verify.log "$SATLAB" verify
}

part_bench() {
  step "bench sat --pipeline-only: every DoF mode and the highlight rows at 3840x2160"
  run 150 bench.log "$SATLAB" bench sat --pipeline-only --json "$OUT/dof.json"
  step "bench sat: sat_tiled's u8, rgba8 and rgba16 tables at 3840x2160"
  run 60 bench.log "$SATLAB" bench sat --no-blur --sizes 3840x2160 --variants sat_tiled --json "$OUT/sat-tiled.json"
  step "bench depth: guided filter"
  run 60 bench.log "$SATLAB" bench depth --json "$OUT/depth.json"
  step "bench stereo"
  run 60 bench.log "$SATLAB" bench stereo --json "$OUT/stereo.json"
}

part_sanitize() {
  # memcheck in one run; racecheck (far slower) in groups, each with its own time limit, without the 4K tests
  local filter='GpuDofModes.*:GpuDofSpread.*:GpuHighlights.*:HighlightSplatGl.*:Compact*:*Sort*:GpuGuided*:GpuStereo*:Sat.*'
  step "compute-sanitizer memcheck on the session's kernels (small sizes)"
  SATLAB_TEST_OWN_SAT_ONLY=1 sanitizer memcheck 20000 120 sanitize-memcheck.log "$filter"
  local group limit
  for group in 'GpuDofModes.*' 'GpuDofSpread.*' 'GpuHighlights.*:HighlightSplatGl.*:Compact*:*Sort*' \
               'GpuGuided*' 'GpuStereo*' 'Sat.*'; do
    step "compute-sanitizer racecheck on $group (small sizes)"
    # GpuDofSpread's random inputs take 170 s to over 240 s under racecheck (one run each, the same binary)
    limit=240
    [ "$group" = 'GpuDofSpread.*' ] && limit=330
    SATLAB_TEST_OWN_SAT_ONLY=1 sanitizer racecheck 20000 $limit sanitize-racecheck.log "$group:-*FourK*"
  done
}

part_sanitize_all() {
  # The test that fills the whole device to provoke a real out-of-memory runs without the sanitizers
  # (their own device allocations would change what it measures). racecheck, by far the slowest, runs as
  # RACE_SHARDS gtest shards side by side, the other tools as one process each; a tool's row sums its shards.
  local tools=${TOOLS:-memcheck racecheck initcheck synccheck} limit=${LIMIT_S:-450} shards=${RACE_SHARDS:-6}
  local filter='-GpuFaults.ARealOutOfMemory*' tool n k pids=()
  export SATLAB_TEST_MAX_N=${SATLAB_TEST_MAX_N:-320000}
  declare -A extra=([memcheck]="--leak-check full" [racecheck]="--racecheck-report all" [initcheck]="" [synccheck]="")
  "$SAN" --version | tail -1
  for tool in $tools; do
    n=1; [ "$tool" = racecheck ] && n=$shards
    for ((k = 0; k < n; ++k)); do
      (
        start=$(date +%s)
        # racecheck leaves NPP (the external SAT baseline) out: its hazards are NPP's own and it is slow there
        own=0; [ "$tool" = racecheck ] && own=1
        GTEST_TOTAL_SHARDS=$n GTEST_SHARD_INDEX=$k SATLAB_TEST_OWN_SAT_ONLY=$own timeout "$limit" \
          "$SAN" --tool "$tool" ${extra[$tool]} --error-exitcode 9 --print-limit 100 \
          "$TESTS" --gtest_filter="$filter" >"$OUT/sanitize-$tool.$k.log" 2>&1
        echo "$? $(($(date +%s) - start))" >"$OUT/sanitize-$tool.$k.rc"
      ) &
      pids+=($!)
    done
  done
  wait "${pids[@]}"

  local rc secs passed failed skipped summary r k_rc k_secs log p s
  printf '%-10s %5s %7s %8s %8s %8s  %s\n' tool exit seconds passed failed skipped summary
  for tool in $tools; do
    cat "$OUT"/sanitize-$tool.*.log >"$OUT/sanitize-$tool.log"
    rc=0 secs=0 passed=0 failed=0 skipped=0 summary=""
    for r in "$OUT"/sanitize-$tool.*.rc; do
      read -r k_rc k_secs <"$r"
      [ "$k_rc" = 0 ] || rc=$k_rc
      ((k_secs > secs)) && secs=$k_secs
    done
    for log in "$OUT"/sanitize-$tool.[0-9]*.log; do
      p=$(grep -oE '^\[  PASSED  \] [0-9]+' "$log" | grep -oE '[0-9]+$' || true)
      s=$(grep -oE '^\[  SKIPPED \] [0-9]+ test' "$log" | grep -oE '[0-9]+' || true)
      passed=$((passed + ${p:-0})) skipped=$((skipped + ${s:-0}))
      failed=$((failed + $(grep -cE '^\[  FAILED  \] [A-Za-z]' "$log")))
      summary+=$(grep -E '(ERROR|LEAK|RACECHECK|INITCHECK|SYNCCHECK) SUMMARY' "$log" | tail -1 | sed 's/^=* *//')$'\n'
    done
    # identical shard summaries once, with a count when more than one
    summary=$(printf '%s' "$summary" | sort | uniq -c | sed -E 's/^ *1 //; s/^ *([0-9]+) (.*)/\2 (x\1 shards)/' | paste -sd';')
    rm -f "$OUT"/sanitize-$tool.[0-9]*.log "$OUT"/sanitize-$tool.*.rc
    [ "$rc" = 124 ] && summary="cut short after ${limit} s; $summary"
    printf '%-10s %5s %7s %8s %8s %8s  %s\n' "$tool" "$rc" "$secs" "$passed" "$failed" "$skipped" "$summary"
    [ "$rc" = 0 ] || status=1
  done
  # Where hazards or errors were reported: the kernels named, most frequent first.
  for tool in $tools; do
    grep -oE '(in|kernel) [A-Za-z_:<>0-9]+\(' "$OUT/sanitize-$tool.log" | sort | uniq -c | sort -rn | head -8 |
      sed "s/^/$tool: /"
  done
}

part_reliability() {
  # Sequential until the sanitizers: the real out-of-memory test fills the device and the soak reads the
  # device's memory in use, so nothing else may run beside them.
  step "GPU tests"
  "$TESTS" >"$OUT/gpu-tests.log" 2>&1 || status=1
  grep -E '^\[  (PASSED|FAILED|SKIPPED) |^\[==========\]' "$OUT/gpu-tests.log" | tail -12
  local s
  for s in gui_gpu_fault gui_reliability cli_limits_files; do
    step "$s"
    bash "$ROOT/tests/scripts/$s.sh" "$SATLAB" "$ROOT" >"$OUT/$s.log" 2>&1 || status=1
    tail -4 "$OUT/$s.log"
  done
  step "GPU soak, 10000 frames"
  "$SATLAB" soak --backend gpu --frames 10000 --json "$OUT/soak-gpu.json" >"$OUT/soak-gpu.log" 2>&1 || status=1
  tail -3 "$OUT/soak-gpu.log"
  step "compute-sanitizer, the four tools"
  part_sanitize_all
}

part_quality() {
  step "satlab quality, GPU backend, every mode, highlights off and on"
  run 240 quality.log "$SATLAB" quality --backend gpu --highlights off,on --json "$OUT/quality-gpu.json"
  step "the GPU scores against the CPU backend's (docs/quality/quality-cpu.json)"
  same_rows "$OUT/quality-gpu.json" "$ROOT/docs/quality/quality-cpu.json"
}

part_holdout() {
  step "the held-out ground truth, rendered here"
  mkdir -p "$OUT/holdout"
  run 480 holdout.log "$GEN_SCENE" --truth "$OUT/holdout" --holdout
  step "satlab quality on it, GPU and CPU backends"
  local b
  for b in gpu cpu; do
    run 120 holdout.log "$SATLAB" quality --backend $b --highlights off,on --cases "$OUT/holdout/cases.json" \
      --json "$OUT/holdout-$b.json"
  done
  step "the GPU scores against the CPU backend's, here and committed"
  same_rows "$OUT/holdout-gpu.json" "$OUT/holdout-cpu.json" "$ROOT/docs/quality/holdout-cpu.json"
  (cd "$OUT/holdout" && sha256sum *.png | sort -k2) >"$OUT/holdout-sha256.txt"  # as docs/quality/holdout-sha256.txt
  rm -f "$OUT"/holdout/*.png
}

part_lens() {
  # Each truth by name: plain, oval-SQUEEZE-DEGREES, profile-P (--bokeh-profile), hole-H (--catadioptric),
  # chromatic-C (--chromatic); holdout-NAME: NAME's on the held-out cases.
  local dir=${DIR:-/tmp/satlab-lens} lens=${LENS:-24} truths=${TRUTHS:-"plain oval-0.5-0 oval-2-30"} t pids=()
  flags_of() {
    case $1 in
      oval-*) local a=${1#oval-}; echo "--anamorphic ${a%-*} --rotation ${a##*-}" ;;
      profile-*) echo "--bokeh-profile ${1#profile-}" ;;
      hole-*) echo "--catadioptric ${1#hole-}" ;;
      chromatic-*) echo "--chromatic ${1#chromatic-}" ;;
      cateye-*) echo "--cat-eye ${1#cateye-}" ;;
      holdout-*) echo "--holdout $(flags_of "${1#holdout-}")" ;;
    esac
  }
  # The truth renders on the host's cores while the GPU tests run.
  step "thin-lens truth at $lens x $lens samples: $truths"
  for t in $truths; do
    mkdir -p "$dir/$t"
    # shellcheck disable=SC2046  # the flags split into words
    "$GEN_SCENE" --truth "$dir/$t" --lens "$lens" $(flags_of "$t") >"$OUT/truth-$t.log" 2>&1 &
    pids+=($!)
  done
  step "GPU = CPU: spread, the shaped modes, the CoC map"
  gpu_tests 400 lens-tests.log 'GpuDofSpread.*:GpuDofModes.*'
  step "satlab verify --families dof"
  run 200 lens-verify.log "$SATLAB" verify --families dof
  step "compute-sanitizer memcheck on spread (small sizes)"
  SATLAB_TEST_OWN_SAT_ONLY=1 sanitizer memcheck 20000 200 lens-memcheck.log 'GpuDofSpread.Bit*'
  for p in "${pids[@]}"; do wait "$p" || status=1; done
  tail -n 2 "$OUT"/truth-*.log
  step "satlab quality --backend gpu on each truth"
  for t in "$dir"/*/; do
    run 200 lens-quality.log "$SATLAB" quality --backend gpu --runs 1 --cases "$t/cases.json" \
      --json "$OUT/quality-$(basename "$t").json"
  done
  step "bench sat --pipeline-only --dof-modes spread: plain and each feature"
  run 200 lens-bench.log "$SATLAB" bench sat --pipeline-only --no-scenes --dof-modes spread --json "$OUT/dof-lens.json"
}

part_layers() {
  local L
  for L in ${LAYERS:-6 7 8}; do
    step "bench sat --pipeline-only: spread and layered at $L depth layers"
    run 120 layers.log "$SATLAB" bench sat --pipeline-only --dof-modes spread layered --layers "$L" \
      --json "$OUT/dof-layers-$L.json"
    step "satlab quality, GPU backend, spread and layered at $L depth layers"
    run 120 layers.log "$SATLAB" quality --backend gpu --modes spread,layered --layers "$L" \
      --json "$OUT/quality-gpu-layers-$L.json"
  done
}

part_primitives() {
  LOG=$OUT/primitives.log
  local filter='*CompactVariant*:*SortVariant*:OnesweepSort.*:CompactSinglePass.*:CompactCheck.*:SortCheck.*'
  step "GPU tests ($filter)"
  gpu_tests 120 tests.log "$filter"
  # Default: 2^16 .. 2^26 by 4x (as recorded in bench/results/h200-primitives-compact-sort.json);
  # SATLAB_BENCH_FULL=1: the bench's whole sweep, which adds 2^28 (minutes of CPU checking).
  local sizes=(--sizes 2^16 2^18 2^20 2^22 2^24 2^26)
  [ "${SATLAB_BENCH_FULL:-0}" = 1 ] && sizes=()
  step "satlab bench primitives --families compact sort ${sizes[*]}"
  timeout 150 "$SATLAB" bench primitives --families compact sort "${sizes[@]}" \
    --json "$OUT/h200-primitives-compact-sort.json" >"$OUT/bench.log" 2>&1 || status=1
  grep -vE '^\s*$' "$OUT/bench.log" | tee -a "$LOG"
  python3 - "$OUT/h200-primitives-compact-sort.json" <<'PY' 2>&1 | tee -a "$LOG" || status=1
import json, sys
targets = [("compact", 1 << 26, "cub_select", 0.9), ("sort", 1 << 24, "cub_sort_pairs", 0.7)]
rows = []
for f in sys.argv[1:]:
    try:
        rows += json.load(open(f))["rows"]
    except (OSError, ValueError) as e:
        print(f"no results in {f}: {e}")
for fam, n, cub, target in targets:
    at = {r["variant"]: r for r in rows if r["family"] == fam and r["n"] == n and r.get("median_ms")}
    if cub not in at:
        print(f"{fam} n={n}: no {cub} row")
        continue
    for name, r in sorted(at.items(), key=lambda kv: kv[1]["median_ms"]):
        ratio = at[cub]["median_ms"] / r["median_ms"]
        print(f"{fam} n={n}: {name:28s} {r['median_ms']:.4f} ms = {ratio:.3f}x {cub}"
              f"{'  (target >= %.1fx)' % target if 'cub' not in name else ''}")
PY
  step "satlab verify --families compact sort"
  timeout 120 "$SATLAB" verify --families compact sort >"$OUT/verify.log" 2>&1 || status=1
  grep -iE 'compact|sort|fail|wrong' "$OUT/verify.log" | head -30 | tee -a "$LOG"
  # Our kernels only (CUB's left out): memcheck at n <= 20000, racecheck, the slow one, at n <= 9000
  # (several tiles of every shape); the compaction's first-poll pause forced on so its sleeps are covered.
  local own="${SAN_FILTER:-$filter-*cub_*}"
  step "compute-sanitizer memcheck, n <= 20000"
  SATLAB_TEST_FIRST_POLL_NS=500 sanitizer memcheck 20000 "${SAN_MEMCHECK_S:-60}" sanitizer-memcheck.log "$own"
  step "compute-sanitizer racecheck, n <= 9000"
  SATLAB_TEST_FIRST_POLL_NS=500 sanitizer racecheck 9000 "${SAN_RACECHECK_S:-90}" sanitizer-racecheck.log "$own"
  if [ "${SATLAB_NCU:-1}" = 0 ] || [ ! -x "$NCU" ]; then
    step "ncu: not run ($NCU missing or SATLAB_NCU=0)"
    return
  fi
  ncu_one() {  # NAME FAMILY SIZE ONLY-VARIANTS KERNEL-REGEX: one measured launch of each, after the warm-up
    step "ncu $1"
    timeout "${NCU_S:-40}" "$NCU" --section SpeedOfLight --section Occupancy --section LaunchStats \
      --section WarpStateStats --section MemoryWorkloadAnalysis -k "regex:$5" -s 6 -c "${NCU_COUNT:-2}" \
      "$SATLAB" bench primitives --families "$2" --sizes "$3" --only $4 --runs 20 --warmup 1 \
      >"$OUT/ncu-$1.log" 2>&1 || echo "ncu $1: exit $?" | tee -a "$LOG"
    grep -E '^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Memory Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Block Limit|Warp Cycles Per Issued|One or More Eligible|Stall' \
      "$OUT/ncu-$1.log" | head -60 >>"$LOG"
  }
  ncu_one sort-ours sort 2^24 "${NCU_SORT:-radix_onesweep}" 'onesweep_pass|digit_histograms'
  ncu_one sort-cub sort 2^24 cub_sort_pairs 'Onesweep|Histogram'
  ncu_one compact-ours compact 2^26 "${NCU_COMPACT:-compact_single_pass}" '^kernel$'
  ncu_one compact-cub compact 2^26 cub_select 'Select'
}

part_sat() {
  local mode=${1:-bench} only=${2:-}
  [ "$mode" = variant ] && { [ -n "$only" ] || { echo "sat variant: NAME missing" >&2; exit 2; }; }
  local filter='Sat.*:GpuBlur.*:GpuPipeline.*'
  step "GPU tests ($filter)"
  gpu_tests 0 gpu-tests.log "$filter"
  local san='Sat.*:GpuBlur.FractionalRadiusIsBit*' before ours
  step "compute-sanitizer memcheck (<= 140000 pixels)"
  SATLAB_TEST_SAT_ONLY=$only sanitizer memcheck 140000 240 sanitizer-memcheck.log "$san"
  step "compute-sanitizer racecheck (<= 140000 pixels)"
  before=$status
  SATLAB_TEST_SAT_ONLY=$only sanitizer racecheck 140000 240 sanitizer-racecheck.log "$san"
  # NPP's scanRow/scanCol report hazards of their own: the verdict is the count in satlab's kernels
  status=$before
  ours=$(grep 'Race reported' "$OUT/sanitizer-racecheck.log" | grep -vc 'scanRow<\|scanCol<')
  echo "racecheck: $ours hazards in satlab kernels"
  [ "$ours" -eq 0 ] || status=1
  case "$mode" in
    bench)
      step "satlab bench sat"
      "$SATLAB" bench sat --json "$OUT/h100-sat.json" >"$OUT/bench-sat.log" 2>&1 || status=1 ;;
    quick)
      step "satlab bench sat (quick)"
      "$SATLAB" bench sat --sizes 1920x1080 4096x4096 8192x8192 --json "$OUT/h100-sat-quick.json" \
        >"$OUT/bench-sat.log" 2>&1 || status=1 ;;
    variant)
      step "satlab render --sat-builder $only vs the CPU backend"
      local f
      for f in dof box; do
        "$SATLAB" render "$ROOT/assets/default.png" --filter $f --backend gpu --sat-builder "$only" -o "$OUT/render-$f-gpu.png" &&
          "$SATLAB" render "$ROOT/assets/default.png" --filter $f --backend cpu -o "$OUT/render-$f-cpu.png" &&
          cmp "$OUT/render-$f-gpu.png" "$OUT/render-$f-cpu.png" && echo "render $f: identical" ||
          { echo "render $f: differs"; status=1; }
      done
      step "satlab bench sat ($only, sat_tiled, sat_rows_columns, CUB, NPP)"
      "$SATLAB" bench sat --no-blur --phases --variants "$only" sat_tiled sat_rows_columns sat_rows_transpose_cub \
        npp_integral --sizes 1920x1080 3840x2160 4096x4096 4097x3001 8192x8192 16384x16384 \
        --json "$OUT/h100-sat-$only.json" >"$OUT/bench-sat.log" 2>&1 || status=1 ;;
    none) ;;
    *) echo "sat: unknown mode '$mode' (bench, quick, none, variant NAME)" >&2; exit 2 ;;
  esac
  [ -f "$OUT/bench-sat.log" ] && cat "$OUT/bench-sat.log"
}

part_sat_ab() {
  [ $# -ge 2 ] || { echo "sat-ab: \"VARIANT...\" \"SIZE...\" SETTING... (tools/device.sh help)" >&2; exit 2; }
  local variants=$1 sizelist=$2
  shift 2
  local settings=("$@") order=() i s pass=0 policies
  for ((i = 0; i < ${#settings[@]}; ++i)); do order+=("$i"); done
  for ((i = ${#settings[@]} - 1; i >= 0; --i)); do order+=("$i"); done
  for i in "${order[@]}"; do
    s=${settings[$i]}
    pass=$((pass + 1))
    step "[$pass] $s"
    policies=()
    [ "$s" = default ] || read -r -a policies <<<"$s"
    # shellcheck disable=SC2086
    "$SATLAB" bench sat --no-blur --phases --variants $variants "${policies[@]}" --sizes $sizelist ${BENCH_ARGS:-} \
      --json "$OUT/ab-$pass.json" >"$OUT/ab-$pass.log" 2>&1 || echo "bench failed: exit $?"
    grep -vE '^(device|variant|wrote)' "$OUT/ab-$pass.log"
  done
}

part_ncu() {
  [ $# -ge 1 ] || { echo "ncu: KERNEL_REGEX [bench sat options...] (tools/device.sh help)" >&2; exit 2; }
  local kernel=$1
  shift
  timeout 300 "$NCU" --kernel-name-base demangled -k "regex:$kernel" --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section SchedulerStats --section WarpStateStats \
    --section SourceCounters --section MemoryWorkloadAnalysis \
    --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum" \
    "$SATLAB" bench sat --no-blur --no-check --runs 20 --warmup 2 "$@" >"$OUT/ncu.txt" 2>&1 || status=1
  # The headline numbers, and the stall reasons worth more than 0.1 cycles per issued instruction.
  grep -E "Duration|DRAM Throughput|Issued Warp|Eligible Warps|Achieved Active Warps|Registers Per|Block Limit|excessive|==ERROR==" \
    "$OUT/ncu.txt"
  grep -E "issue_stalled" "$OUT/ncu.txt" | awk '$NF + 0 > 0.1' |
    sed -E 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//'
}

part_select() {
  step "GPU tests: subject select"
  gpu_tests --no-skip 0 select-tests.log 'SelectGpu.*'
  local tool b
  for tool in memcheck racecheck; do
    step "compute-sanitizer $tool: subject select"
    sanitizer $tool 320000 300 select-sanitizer-$tool.log 'SelectGpu.*'
  done
  step "satlab verify --families select"
  run 120 select-verify.log "$SATLAB" verify --families select
  step "satlab depth select: GPU against CPU on the coffee photo (alpha matte and depth)"
  for b in gpu cpu; do
    run 60 select-cli.log "$SATLAB" depth select "$ROOT/assets/coffee.png" --subject "250,250;290,150" \
      --background 20,20 --backend $b --out "$OUT/select-$b.png" --depth-out "$OUT/select-depth-$b.png"
  done
  cmp "$OUT/select-depth-gpu.png" "$OUT/select-depth-cpu.png" >>"$OUT/select-cli.log" 2>&1 &&
    echo "depth select: GPU and CPU depth PNGs are byte-identical" | tee -a "$OUT/select-cli.log" ||
    echo "depth select: GPU and CPU depth PNGs differ (the matte's float bound)" | tee -a "$OUT/select-cli.log"
  step "bench depth: subject select at 4000x3000 and 1920x1080"
  run 120 select-bench.log "$SATLAB" bench depth --no-refine --sizes 64x64 --radii 1 \
    --select-sizes 4000x3000 1920x1080 --runs 20 --json "$OUT/select-bench.json"
}

part_guided() {
  step "GPU tests: guided filter"
  gpu_tests 0 guided-tests.log 'GpuGuidedFilter.*'
  local tool b
  for tool in memcheck racecheck; do
    step "compute-sanitizer $tool: guided filter kernels (tests up to 25000 pixels, without the 4K case)"
    sanitizer $tool 25000 0 guided-sanitizer-$tool.log 'GpuGuidedFilter.*:-GpuGuidedFilter.FourK*'
  done
  step "satlab depth refine: GPU against CPU on the bundled scene"
  for b in gpu cpu; do
    "$SATLAB" depth refine "$ROOT/assets/default.png" --depth "$ROOT/assets/default_depth.png" --radius 16 \
      --eps 1e-3 --backend $b --out "$OUT/refined-$b.png" 2>&1 | tee -a "$OUT/refine.log" || status=1
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
  step "satlab bench depth: 3840x2160, then 1920x1080 and 7680x4320; radius 8 and 32"
  "$SATLAB" bench depth --sizes 3840x2160 --radii 8 32 --json "$OUT/guided-bench.json" \
    >"$OUT/guided-bench.log" 2>&1 || status=1
  "$SATLAB" bench depth --sizes 1920x1080 7680x4320 --radii 8 32 --json "$OUT/guided-bench-sizes.json" \
    >>"$OUT/guided-bench.log" 2>&1 || status=1
  cat "$OUT/guided-bench.log"
}

part_stereo() {
  step "GPU tests (stereo)"
  gpu_tests --no-skip 0 stereo-tests.log 'GpuStereo*'
  # Small sizes only (random pairs up to 320k pixels x disparities; the fixed small cases run whole). Of
  # the stereo kernels only the aggregation uses shared memory (the right winners' atomicMin), so racecheck
  # watches it and the SAT builder under it: the random-pair test (the default builder) is enough there;
  # memcheck runs every stereo test.
  step "compute-sanitizer memcheck (stereo, small sizes)"
  SATLAB_TEST_OWN_SAT_ONLY=1 sanitizer memcheck 320000 450 stereo-sanitizer-memcheck.log 'GpuStereo*'
  step "compute-sanitizer racecheck (stereo, small sizes)"
  SATLAB_TEST_OWN_SAT_ONLY=1 sanitizer racecheck 320000 450 stereo-sanitizer-racecheck.log \
    'GpuStereo.MatchesTheCpuBitForBitOnRandomPairsAtOddSizes'
  step "satlab depth stereo (CLI, GPU backend, the script test's pair)"
  SATLAB_STEREO_BACKEND=gpu bash "$ROOT/tests/scripts/cli_depth_stereo.sh" "$SATLAB" "$ROOT" >"$OUT/stereo-cli.log" 2>&1 ||
    { cat "$OUT/stereo-cli.log"; status=1; }
  step "satlab bench stereo 3840x2160, 128 disparities"
  "$SATLAB" bench stereo --runs 20 --json "$OUT/h100-stereo.json" 2>&1 | tee "$OUT/stereo-bench.log" || status=1
  # Every registered 8-bit SAT builder under the cost slices, one run each (a builder that fails is reported
  # and the rest still run).
  local b
  for b in $("$SATLAB" variants 2>/dev/null | awk '$1 == "sat" && $2 ~ /^sat_/ {print $2}'); do
    "$SATLAB" bench stereo --runs 10 --sat-builders "$b" --json "$OUT/h100-stereo-$b.json" 2>&1 |
      tee -a "$OUT/stereo-bench-builders.log" | grep -E '^stereo|satlab:' || status=1
  done
}

part_stereo_speed() {
  local pairs=${1:-} scene b
  LOG=$OUT/stereospeed.log
  step "GPU tests (stereo)"
  run 90 stereospeed.log "$TESTS" --gtest_filter='GpuStereo*'
  grep -E '^\[  (FAILED|SKIPPED) |Failure' "$LOG" | head -20
  local bench=("$SATLAB" bench stereo --runs 20)
  step "bench stereo 3840x2160, 128 disparities: box rows (default) and the SAT path, same run"
  run 60 stereospeed.log "${bench[@]}" --sat-builders box_rows sat_lookback_2d --json "$OUT/stereo.json"
  step "bench stereo: no wide window (--wide 0), both"
  run 60 stereospeed.log "${bench[@]}" --wide 0 --sat-builders box_rows sat_lookback_2d --json "$OUT/stereo-nowide.json"
  if [ -n "$pairs" ]; then
    step "depth stereo: GPU output byte-identical to the CPU's on the generated pairs"
    for scene in default occlusion; do
      for b in cpu gpu; do
        "$SATLAB" depth stereo "$pairs/${scene}_left.png" "$pairs/${scene}_right.png" --max-disparity 63 \
          --backend $b --out "$OUT/$scene-$b.png" >>"$LOG" 2>&1 || status=1
      done
      if cmp "$OUT/$scene-cpu.png" "$OUT/$scene-gpu.png"; then echo "$scene: identical" | tee -a "$LOG"
      else echo "$scene: DIFFERENT" | tee -a "$LOG"; status=1; fi
      rm -f "$OUT/$scene-cpu.png" "$OUT/$scene-gpu.png"
    done
  fi
  # Racecheck on the random pairs (every window shape, widths of whole 16-column groups: the box rows' warp
  # totals in shared memory, the right winners' atomicMin) and the several-stacks test.
  step "compute-sanitizer memcheck (stereo, small sizes)"
  SATLAB_TEST_OWN_SAT_ONLY=1 sanitizer memcheck 220000 70 stereospeed-memcheck.log 'GpuStereo*'
  step "compute-sanitizer racecheck (stereo, small sizes)"
  SATLAB_TEST_OWN_SAT_ONLY=1 sanitizer racecheck 220000 70 stereospeed-racecheck.log \
    'GpuStereo.MatchesTheCpuBitForBitOnRandomPairsAtOddSizes:GpuStereo.MatchesTheCpuOnAPairWithKnownDisparityAcrossSeveralStacks'
  grep -E '^stereo|^  [a-z]|^== bench' "$LOG" | tail -30
}

part_stream() {
  local vips_tar=${1:-} dir=${DIR:-/tmp/satlab-stream} f g
  mkdir -p "$dir"
  step "GPU tests: the tiled executor"
  gpu_tests --no-skip 300 stream-tests.log 'GpuTiled.*:GpuPipeline.*'
  for f in ${FILTERS:-box dof}; do
    step "bench stream --filter $f --gpx ${GPX:-0.25 1 4}"
    run 0 stream-$f.log "$SATLAB" bench stream --backend gpu --filter $f --gpx ${GPX:-0.25 1 4} --dir "$dir" --keep \
      --json "$OUT/stream-gpu-$f.json"
  done
  df -h "$dir" | tee -a "$LOG"
  [ -n "$vips_tar" ] || return 0
  step "libvips convsep, box r 10, on the same files"
  local v=$dir/vips
  mkdir -p "$v" && tar -xJf "$vips_tar" -C "$v" || { status=1; return; }
  local tm=/usr/bin/time
  [ -x $tm ] || tm=$v/time
  printf '21 1 21 0\n%s\n' "$(printf '1 %.0s' $(seq 21))" >"$dir/box.mat"
  LD_LIBRARY_PATH=$v "$v/vips" --version | tee -a "$LOG"
  for g in "$dir"/stream_*x*[0-9].tif; do
    for f in 1 2 3; do
      LD_LIBRARY_PATH=$v $tm -f "$(basename "$g") wall %e s, peak RSS %M KiB, user %U s, sys %S s" -a -o "$OUT/vips.txt" \
        "$v/vips" convsep "$g" "$dir/vips_out.tif" "$dir/box.mat" --precision integer >>"$OUT/vips.log" 2>&1 || status=1
      rm -f "$dir/vips_out.tif"
    done
  done
  cat "$OUT/vips.txt"
}

part_video() {
  local av_tar=${1:-} dir=${DIR:-/tmp/satlab-video} f
  mkdir -p "$dir"
  if [ -n "$av_tar" ]; then
    mkdir -p "$dir/av" && tar -xJf "$av_tar" -C "$dir/av" --strip-components=1 || { status=1; return; }
    export LD_LIBRARY_PATH=$dir/av${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  fi
  step "NVDEC and the device conversion (tests; memcheck)"
  gpu_tests --no-skip 200 nvdec-tests.log 'YuvInGpu.*:NvdecGpu.*:YuvGpu.*'
  sanitizer memcheck 4000000 200 sanitizer-nvdec.log 'YuvInGpu.*:NvdecGpu.*'
  step "bench video (gpu; decoders cpu and nvdec)"
  run 0 bench-video.log "$SATLAB" bench video --backend gpu --sizes ${SIZES:-1920x1080,3840x2160} \
    --codecs ${CODECS:-h264,hevc} --decoders cpu,nvdec --frames ${FRAMES:-120} --fps 240 --memory --keep \
    --dir "$dir" --json "$OUT/bench-video-gpu.json"
  cat "$OUT/bench-video.log" | tee -a "$LOG" >/dev/null
  for f in "$dir"/satlab_bench_video_*_3840x2160_h264.mp4 "$dir"/satlab_bench_video_*_1920x1080_h264.mp4; do
    [ -f "$f" ] || continue
    for d in cpu nvdec; do
      step "the app plays $(basename "$f") (headless, gpu, decoder $d)"
      run 0 "play-$d.log" "$SATLAB" --headless "$f" --play --frames ${PLAY_FRAMES:-600} --backend gpu --size 1920x1080 \
        --decoder "$d"
      grep "clip playback\|median" "$OUT/play-$d.log" | tail -3 | tee -a "$LOG"
    done
  done
}

part_timings() {
  "$SATLAB" --version | tee "$OUT/version.txt"
  step "GPU pipeline tests"
  gpu_tests --no-skip 0 gpu-tests.log 'GpuPipeline.*'
  step "compute-sanitizer memcheck, every-stage test (<= 140000 pixels)"
  sanitizer memcheck 140000 240 sanitizer-memcheck.log 'GpuPipeline.EveryStage*'
  local scene=()
  if [ -x "$GEN_SCENE" ]; then
    step "3840x2160 scene (gen_scene)"
    mkdir -p "$OUT/scene4k"
    "$GEN_SCENE" "$OUT/scene4k" 3840 2160 >"$OUT/scene4k.log" 2>&1 &&
      scene=("$OUT/scene4k/default.png" --depth "$OUT/scene4k/default_depth.png") || echo "gen_scene failed: the bundled scene"
  fi
  # A run's stage summary must hold a warm median (a number) for each pipeline stage of the GPU backend.
  check_summary() {  # LOG
    local line s
    line=$(grep "satlab: stages (warm median ms" "$1") || { echo "no stage summary in $1"; return 1; }
    echo "$line"
    for s in reduce normalise coc sat blur; do
      echo "$line" | grep -q " $s [0-9][0-9.]*;" || { echo "no warm median for $s"; return 1; }
    done
  }
  check_export() {  # DIR STATE_OF_REDUCE_AND_SAT
    python3 - "$1" "$2" <<'PY'
import glob, json, sys
j = json.load(open(sorted(glob.glob(sys.argv[1] + "/*_timings.json"))[-1]))
for s in j["stages"]:
    print(f'{s["stage"]:>24} {s["state"]:>8} ema {s["ema_ms"]:.4f} ms  cold {s["cold_ms"]:.4f} ms  warm runs {s["warm_runs"]}')
st = {s["stage"]: s for s in j["stages"]}
for name in ("reduce", "dof sat"):
    assert st[name]["state"] == sys.argv[2], f'{name}: {st[name]["state"]}, expected {sys.argv[2]}'
PY
  }
  step "headless, GPU backend, run every frame"
  # The box gather: its depth normalisation and SAT (the dof stage's sat phase) are kept between frames
  # (the shaped DoF modes rebuild their tables in every frame). Exports go to a scratch folder: $OUT keeps
  # logs and shots.
  local exp=${TMPDIR:-/tmp}/device-timings-export
  mkdir -p "$exp/export-continuous" "$exp/export-on-change"
  printf '{"satlab_preset": 1, "params": {"dof_mode": "gather_box"}}\n' >"$exp/box.json"
  "$SATLAB" --headless --size 1920x1080 --frames 150 --continuous --backend gpu "${scene[@]}" --preset "$exp/box.json" \
    --export "$exp/export-continuous" --screenshot "$OUT/timings-gpu-continuous.png" >"$OUT/continuous.log" 2>&1 ||
    { tail -5 "$OUT/continuous.log"; status=1; }
  grep "^satlab: " "$OUT/continuous.log" | head -5
  check_summary "$OUT/continuous.log" || status=1
  check_export "$exp/export-continuous" warm || status=1
  step "headless, GPU backend, focus sweep without 'run every frame' (the kept reduce and sat show as not run)"
  "$SATLAB" --headless --size 1920x1080 --frames 60 --sweep --backend gpu "${scene[@]}" --preset "$exp/box.json" \
    --export "$exp/export-on-change" --screenshot "$OUT/timings-gpu-on-change.png" >"$OUT/on-change.log" 2>&1 ||
    { tail -5 "$OUT/on-change.log"; status=1; }
  check_export "$exp/export-on-change" "not run" || status=1
  if command -v Xvfb >/dev/null; then
    step "window (Xvfb + NVIDIA GLX), GPU backend, run every frame"
    Xvfb :99 -screen 0 1920x1200x24 +extension GLX >"$OUT/xvfb.log" 2>&1 &
    local xvfb=$!
    sleep 3
    DISPLAY=:99 __GLX_VENDOR_LIBRARY_NAME=nvidia "$SATLAB" --size 1920x1080 --frames 150 --continuous --backend gpu \
      "${scene[@]}" --screenshot "$OUT/timings-gpu-window.png" >"$OUT/window.log" 2>&1 || { tail -5 "$OUT/window.log"; status=1; }
    check_summary "$OUT/window.log" || status=1
    kill "$xvfb"
  else
    echo "no Xvfb here: the window run is skipped (carry .x/, DEVICE.md)"
  fi
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.used,memory.total --format=csv,noheader |
  tee -a "$LOG" || true
"part_${PART//-/_}" "$@"
echo "tools/device.sh $PART: status $status" | tee -a "$LOG"
if [ $DRY = 1 ]; then
  echo "dry run: the commands run, in order (stand-ins, so the status above means nothing):"
  cat "$dry/commands"
  exit 0
fi
exit $status
