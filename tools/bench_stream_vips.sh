#!/usr/bin/env bash
# The libvips anchor of `satlab bench stream`: on the same generated file (an uncompressed striped RGB TIFF
# from `satlab bench stream --generate-only`) and the same filter, a box blur of radius R, times
#   libvips   vips convsep IN OUT MASK --precision integer   (MASK: a 1-D mask of 2R+1 ones, scale 2R+1)
#   satlab    render --backend BACKEND --filter box --radius R --compression none, streamed (--tile) within
#             the default budget and within --memory-budget BUDGET, with neither (the CPU backend streams by
#             default), and with --whole (the whole-image path, where the image fits the default budget)
# each RUNS times, reporting the median wall time and the largest peak RSS (/usr/bin/time) as a markdown
# table. Outputs are uncompressed RGB TIFF (both). libvips is a benchmark anchor,
# not a dependency: Debian's libvips-tools.
#   tools/bench_stream_vips.sh SATLAB_BINARY [WIDTHxHEIGHT ...]     (default 8192x8192)
# Environment: R (radius, 10), RUNS (3), BACKEND (cpu), BUDGET (256M), DIR (a temporary folder, removed).
set -u
bin=${1:?usage: tools/bench_stream_vips.sh SATLAB_BINARY [WIDTHxHEIGHT ...]}
shift
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(8192x8192)
R=${R:-10} RUNS=${RUNS:-3} BACKEND=${BACKEND:-cpu} BUDGET=${BUDGET:-256M}
command -v vips >/dev/null || { echo "vips is not installed (Debian package libvips-tools)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is needed (Debian package time)" >&2; exit 1; }
own_dir=
if [ -z "${DIR:-}" ]; then
  DIR=$(mktemp -d)
  own_dir=$DIR
fi
trap '[ -n "$own_dir" ] && rm -rf "$own_dir"' EXIT

# One command RUNS times: "median_wall_s max_rss_MiB".
measure() {
  local walls=() rss=0 i w m
  for ((i = 0; i < RUNS; i++)); do
    /usr/bin/time -f "%e %M" -o "$DIR/time" "$@" >"$DIR/out" 2>"$DIR/err" || { cat "$DIR/err" >&2; return 1; }
    read -r w m <"$DIR/time"
    walls+=("$w")
    [ "$m" -gt "$rss" ] && rss=$m
  done
  printf '%s %d\n' "$(printf '%s\n' "${walls[@]}" | sort -g | sed -n "$((RUNS / 2 + 1))p")" $((rss / 1024))
}

vips_version=$(vips --version)
echo "box radius $R ($((2 * R + 1))x$((2 * R + 1))), $RUNS runs each (median wall, largest peak RSS); $(nproc) cores;" \
  "$vips_version; satlab --backend $BACKEND"
echo
echo "| image | what | wall s | peak RSS MiB |"
echo "|---|---|---|---|"
mask="$DIR/box.mat"
{
  echo "$((2 * R + 1)) 1 $((2 * R + 1)) 0"
  for ((i = 0; i < 2 * R + 1; i++)); do printf '1 '; done
  echo
} >"$mask"
for size in "${sizes[@]}"; do
  "$bin" bench stream --generate-only --size "$size" --dir "$DIR" >/dev/null || exit 1
  in="$DIR/stream_$size.tif"
  row() { echo "| $size | $1 | $2 | $3 |"; }
  read -r w m < <(measure vips convsep "$in" "$DIR/vips_out.tif" "$mask" --precision integer) || exit 1
  row "libvips convsep, integer" "$w" "$m"
  render=("$bin" render --image "$in" --out "$DIR/satlab_out.tif" --backend "$BACKEND" --filter box --radius "$R"
          --compression none)
  read -r w m < <(measure "${render[@]}" --tile 1048576) || exit 1
  row "satlab render, streamed (default budget)" "$w" "$m"
  read -r w m < <(measure "${render[@]}" --tile 1048576 --memory-budget "$BUDGET") || exit 1
  row "satlab render, streamed (--memory-budget $BUDGET)" "$w" "$m"
  read -r w m < <(measure "${render[@]}") || exit 1
  if grep -q "streamed in" "$DIR/out"; then
    row "satlab render, no --tile (streamed)" "$w" "$m"
  else
    row "satlab render, no --tile (whole image)" "$w" "$m"
  fi
  read -r w m < <(measure "${render[@]}" --whole) || exit 1
  if grep -q "streamed in" "$DIR/out"; then
    row "satlab render --whole (streamed: too large to filter whole within the default budget)" "$w" "$m"
  else
    row "satlab render --whole (whole image)" "$w" "$m"
  fi
  rm -f "$in" "$DIR/vips_out.tif" "$DIR/satlab_out.tif"
done
