#!/usr/bin/env bash
# --help names every file format satlab reads and writes (one table, app/io/file_formats.hpp): the app's
# image and depth options, and `render`'s inputs and --out; and the app's help lists the filter parameter
# flags `render` has (one definition, app/cli/filter_options.hpp).
# Usage: cli_help_formats.sh SATLAB_BINARY SOURCE_DIR. Exit 77: skipped (reason printed).
. "$(dirname "$0")/lib/common.sh"

"$bin" --help >"$tmp/app.txt" 2>&1 || { cat "$tmp/app.txt"; fail "satlab --help failed"; }
"$bin" render --help >"$tmp/render.txt" 2>&1 || { cat "$tmp/render.txt"; fail "satlab render --help failed"; }
# One line per help text, runs of blanks as one (CLI11 may wrap long descriptions).
app=$(tr -s ' \n' ' ' <"$tmp/app.txt") render=$(tr -s ' \n' ' ' <"$tmp/render.txt")
has() {  # has TEXT_NAME TEXT WHAT...: each WHAT is in TEXT
  local name=$1 text=$2
  shift 2
  for what in "$@"; do
    case "$text" in *"$what"*) ;; *) echo "$text"; fail "$name lacks '$what'" ;; esac
  done
}
read_formats=("JPEG" "PNG (8/16-bit)" "WebP" "TIFF (8/16-bit)" "HEIC/HEIF/AVIF" "BMP" "TGA" "Radiance HDR" "OpenEXR")
has "satlab --help" "$app" "${read_formats[@]}" "PFM (float)"
has "satlab render --help" "$render" "${read_formats[@]}" "PFM (float)" \
  "PNG (.png, 8-bit RGBA)" "JPEG (.jpg .jpeg, quality 95)" "WebP (.webp, lossless)" "TIFF (.tif .tiff, 8-bit RGBA)"
# The image option reads no PFM (a depth format only), and render writes no BMP.
case "$app" in *"Image to open:"*"PFM"*"--depth"*) fail "the image option lists PFM" ;; esac
case "$render" in *"--out"*"BMP (."*) fail "render claims to write BMP" ;; esac
echo "help: every format read and written is named"

# The filter parameter flags: every one of render's is on the app's command line too.
flags=$(grep -o -- '--[a-z-]*' "$tmp/render.txt" | sort -u)
for flag in --dof-mode --focus --layers --aperture-shape --highlights --response-shoulder; do
  echo "$flags" | grep -qx -- "$flag" || fail "render has no $flag"
done
sed -n '/Filter parameters/,$p' "$tmp/render.txt" | grep -o -- '--[a-z-]*' | sort -u >"$tmp/render_flags"
[ -s "$tmp/render_flags" ] || fail "render's help has no filter parameters group"
for flag in $(cat "$tmp/render_flags"); do
  grep -q -- "$flag" "$tmp/app.txt" || fail "the app's help lacks render's $flag"
done
echo "help: the app takes render's $(wc -l <"$tmp/render_flags") filter parameter flags"
echo "cli_help_formats: all checks passed"
