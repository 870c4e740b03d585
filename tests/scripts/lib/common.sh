# shellcheck shell=bash
# The set-up every tests/scripts/*.sh shares; each script begins with
#   . "$(dirname "$0")/lib/common.sh"
# A script is run as `SCRIPT SATLAB_BINARY SOURCE_DIR` (tests/CMakeLists.txt) and exits 0 (passed), 1 (failed,
# after a "FAIL: why" line) or 77 (skipped, after a "SKIP: why" line). This file lives below tests/scripts
# so that the test glob (tests/scripts/*.sh) does not take it for a test.
# Sets bin and src (the two arguments) and tmp, a private folder removed at exit; XDG_CONFIG_HOME points
# into tmp, so the app's settings and recent files never touch the user's. Skips when there is no binary.
set -u
bin=${1:-} src=${2:-}
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
[ -x "$bin" ] || skip "no satlab binary at '$bin'"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME="$tmp/config"

# What a script needs beyond the binary, each skipping with its reason when missing.
need_scene() { [ -f "$src/assets/default.png" ] || skip "no bundled scene under '$src/assets'"; }
need_python3() { command -v python3 >/dev/null || skip "python3 is needed $*"; }  # need_python3 "to WHY"
need_xvfb() { command -v xvfb-run >/dev/null || skip "xvfb-run is not installed (Debian package xvfb)"; }
need_gen_scene() {  # sets gen: the ground-truth renderer of the same build tree
  gen=$(dirname "$bin")/../tools/gen_scene
  [ -x "$gen" ] || skip "no gen_scene binary beside satlab"
}

# Under the sanitizers (SATLAB_SANITIZED, set by tests/CMakeLists.txt) long runs are shortened.
sanitized() { [ -n "${SATLAB_SANITIZED:-}" ]; }

# The bundled scene as the scripts that click, drag and compare screenshots use it: sets scene and
# scene_depth, scene_w, scene_h. The same scene as the ground-truth set renders it, 384 x 216 (a ninth of
# assets/default.png's pixels: one frame of that takes seconds under the sanitizers, and these scripts
# check what the input does, not the frame's size), in an assets folder of its own that is also the app's
# (SATLAB_ASSETS): its default scene; every other file there is the bundled one, so the panels list the
# same scenes. The other scripts (gui_smoke, cli_stream_*, ...) run the bundled 1280 x 720 one.
bundled_scene() {
  need_scene
  [ -f "$src/assets/ground_truth/default.png" ] && [ -f "$src/assets/ground_truth/default_depth.png" ] ||
    skip "no ground-truth scene under '$src/assets/ground_truth'"
  mkdir -p "$tmp/assets"
  local f
  for f in "$src"/assets/*; do
    case ${f##*/} in
      default.png | default_depth.png) cp "$src/assets/ground_truth/${f##*/}" "$tmp/assets/" ;;
      *) ln -s "$f" "$tmp/assets/" ;;
    esac || fail "cannot make the small scene's assets folder"
  done
  export SATLAB_ASSETS=$tmp/assets
  scene=$tmp/assets/default.png scene_depth=$tmp/assets/default_depth.png scene_w=384 scene_h=216
}

# The app with no display at all: the headless EGL path.
headless() { env -u DISPLAY -u WAYLAND_DISPLAY "$bin" --headless "$@"; }

# xvfb_run XVFB_RUN_OPTIONS... -- COMMAND ARGS...: COMMAND under xvfb-run (need_xvfb first), with COMMAND's
# own exit status. xvfb-run's status alone is not enough: now and then (several runs at once) it fails to
# remove its temporary directory and exits 5 whatever the command returned, which turned a passing check
# red. xvfb-run's status is used only when the command's was never written (xvfb-run failed to start it).
xvfb_run() {
  local opts=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    opts+=("$1")
    shift
  done
  shift
  local rc_file status rc
  rc_file=$(mktemp)
  xvfb-run "${opts[@]}" sh -c '"$@"; echo $? >"$0"' "$rc_file" "$@"
  status=$?
  rc=$(cat "$rc_file" 2>/dev/null)
  rm -f "$rc_file"
  [ -n "$rc" ] && return "$rc"
  return "$status"
}
