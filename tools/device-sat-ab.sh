#!/usr/bin/env bash
# A/B runs of SAT builders' tuning knobs in one device call: `satlab bench sat --phases` once per
# setting, each in its own process (the knobs are read once per process), logs and JSON under $OUT.
#   tools/device-sat-ab.sh BIN_DIR "VARIANT..." "SIZE..." SETTING...
# SETTING: environment assignments, "SATLAB_SAT_TILED_SUMS=grid SATLAB_SAT_LB2D_BLOCKS=3", or
# "default". The order of the settings is repeated once reversed, so that a drift of the machine over
# the call shows up as a difference between the two passes of one setting. BENCH_ARGS: more options for
# `satlab bench sat` (e.g. --no-check).
set -u -o pipefail
BIN=${1:?BIN_DIR}
VARIANTS=${2:?variants}
SIZES=${3:?sizes}
shift 3
OUT=${OUT:-device-out}
mkdir -p "$OUT"
# The commit the JSON records: the GPU machine's copy of the tree has no current git HEAD, so BIN_DIR/git_rev
# (written beside the binaries: git rev-parse --short HEAD > BIN_DIR/git_rev) or SATLAB_GIT_REV.
export SATLAB_GIT_REV=${SATLAB_GIT_REV:-$(cat "$BIN/git_rev" 2>/dev/null || echo unknown)}
settings=("$@")
order=()
for ((i = 0; i < ${#settings[@]}; ++i)); do order+=("$i"); done
for ((i = ${#settings[@]} - 1; i >= 0; --i)); do order+=("$i"); done
pass=0
for i in "${order[@]}"; do
  s=${settings[$i]}
  pass=$((pass + 1))
  echo "== [$pass] $s"
  env_args=()
  [ "$s" = default ] || read -r -a env_args <<< "$s"
  # shellcheck disable=SC2086
  env "${env_args[@]}" "$BIN/satlab" bench sat --no-blur --phases --variants $VARIANTS --sizes $SIZES ${BENCH_ARGS:-} \
    --json "$OUT/ab-$pass.json" > "$OUT/ab-$pass.log" 2>&1 || echo "bench failed: exit $?"
  grep -vE '^(device|variant|wrote)' "$OUT/ab-$pass.log"
done
