#!/usr/bin/env bash
# Arbiter without systemd (a container, CI): the same privilege split as the units in scripts/systemd/
# — the jail daemon as root, the server as $ARBITER_USER with no capabilities and no_new_privs — and
# the same supervision: a process that dies is started again after a second. SIGHUP is passed to both
# (live config); SIGTERM/SIGINT stop both. Run as root, in the foreground.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
user=${ARBITER_USER:-arbiter}
exec_sh="$here/scripts/arbiter-exec.sh"
[ "$(id -u)" = 0 ] || { echo "run-service.sh runs as root (it starts the jail daemon)" >&2; exit 1; }

jail_pid=0
server_pid=0
start_jail() { "$exec_sh" jail & jail_pid=$!; }
start_server() {
  setpriv --reuid="$user" --regid="$user" --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs -- "$exec_sh" server &
  server_pid=$!
}
alive() { [ "$1" -gt 0 ] && kill -0 "$1" 2>/dev/null; }

stopping=0
trap 'stopping=1; kill -TERM $server_pid $jail_pid 2>/dev/null' TERM INT
trap 'kill -HUP $server_pid $jail_pid 2>/dev/null' HUP

start_jail
start_server
echo "arbiter: jail daemon pid $jail_pid (root), server pid $server_pid ($user)"
while [ "$stopping" = 0 ]; do
  # returns when a child ends or a trapped signal arrives
  wait -n
  code=$?
  [ "$stopping" = 1 ] && break
  # 3: the jail socket or the data directory is another installation's (src/jobs/jail-socket-owner.ts):
  # starting again would not help, and must never take the other one over
  if [ "$code" = 3 ]; then
    echo "arbiter: refused to start beside another installation (message above); stopping" >&2
    kill -TERM $server_pid $jail_pid 2>/dev/null
    wait
    exit 3
  fi
  if ! alive "$jail_pid"; then echo "arbiter: the jail daemon exited; starting it again" >&2; sleep 1; start_jail; fi
  if ! alive "$server_pid"; then echo "arbiter: the server exited; starting it again" >&2; sleep 1; start_server; fi
done
wait
