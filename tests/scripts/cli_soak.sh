#!/usr/bin/env bash
# A short soak on the CPU backend: frames with changing filters, parameters and image sizes (seven
# sizes, each seen before measuring starts) must not grow host memory by more than a few MB.
set -u
bin=$1 src=$2
[ -x "$bin" ] && [ -f "$src/assets/default.png" ] || { echo "SKIP: no binary or bundled scene"; exit 77; }
out=$("$bin" soak --frames 560 --resize-every 20 --max-drift-mb 8 --backend cpu 2>&1) || { echo "$out"; echo "FAIL: soak"; exit 1; }
echo "$out"
echo "$out" | grep -q '"frames": 560' || { echo "FAIL: no result line"; exit 1; }
