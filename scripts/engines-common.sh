# Shell functions of scripts/slurm-local, pg-local and sshd-local (sourced):
# a daemon is found through its PID file and stopped by that PID, never by
# its name.

# the daemons live in /usr/sbin, which a non-login PATH may lack
PATH="$PATH:/usr/sbin:/sbin"

# The PID in a PID file (its first line) if that process is alive and runs
# the program `name`, else nothing: a stale file, or a PID reused since.
live_pid() {
  local file=$1 name=$2 pid
  [ -s "$file" ] || return 0
  pid=$(head -n 1 "$file" | tr -dc 0-9)
  [ -n "$pid" ] || return 0
  if [ "$(ps -o comm= -p "$pid" 2>/dev/null)" = "$name" ]; then echo "$pid"; fi
}

# Stops the daemon of a PID file: `signal` (TERM by default) to its PID, then
# up to 30 s for it to exit, then KILL.
stop_daemon() {
  local file=$1 name=$2 signal=${3:-TERM} pid i
  pid=$(live_pid "$file" "$name")
  [ -n "$pid" ] || return 0
  kill -"$signal" "$pid" 2>/dev/null || return 0
  for i in $(seq 1 300); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  echo "$name ($pid) did not stop on $signal; sending KILL" >&2
  kill -KILL "$pid" 2>/dev/null || true
}
