# Sourced by the GUI scripts that need an X server: xvfb_run XVFB_RUN_OPTIONS... -- COMMAND ARGS...
# runs COMMAND under xvfb-run and returns COMMAND's own exit status. xvfb-run's status alone is not enough:
# now and then (several runs at once) it fails to remove its temporary directory and exits 5 whatever
# the command returned, which turned a passing check red. xvfb-run's status is used only when the
# command's was never written (xvfb-run failed to start it).
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
