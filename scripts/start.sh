#!/usr/bin/env bash
# npm start: the service in the foreground, from the compiled build (dist/). Builds first when dist/ is
# missing or older than the sources. Started as root, it runs the service's privilege split
# (scripts/run-service.sh: the jail daemon as root, the HTTP server as the `arbiter` user with no
# capabilities and no_new_privs, each restarted if it dies); SIGHUP to this process reloads the config
# in both, SIGTERM stops both. Not root: the server alone, unprivileged (it needs a jail daemon's
# socket, pool.jail_socket, to run jobs). `npm run dev` runs the sources through tsx instead.
# A missing data directory stops it (exit 1) unless `--init` asks for a fresh one.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
require_node
cd "$here"
data=${ARBITER_DATA:-$here/data}
# a data directory that is not there (a volume that failed to mount) is never replaced by an empty one:
# `npm start -- --init` (or setup.sh) makes a fresh one on purpose
if [ ! -d "$data" ]; then
  if [ "${1:-}" != --init ]; then
    echo "arbiter: the data directory $data does not exist (a volume that is not mounted? ARBITER_DATA naming another one?); nothing was started. For a fresh installation: npm start -- --init" >&2
    exit 1
  fi
  mkdir -p -m 0750 "$data"
  echo "arbiter: created a fresh data directory $data"
fi
export ARBITER_DATA=$data
stamp=dist/.built
# anything under src/ (or the build's own config) newer than the last build: build again
if [ ! -f "$stamp" ] || [ -n "$(find src package.json tsconfig.json tsconfig.build.json -newer "$stamp" -print -quit)" ]; then
  echo "arbiter: building dist/ (the sources changed since the last build)"
  npm run -s build
fi
if [ "$(id -u)" = 0 ]; then
  # the arbiter user and its data directory, as setup.sh makes them; skipped when ARBITER_USER names
  # another account (tests, a site's own user), whose data directory is then the caller's to prepare
  [ -n "${ARBITER_USER:-}" ] || service_user "$data" >/dev/null
  ARBITER_DATA=$data exec bash "$here/scripts/run-service.sh"
fi
echo "arbiter: not root, so only the HTTP server starts (as $(id -un)); jobs need the root jail daemon (pool.jail_socket)" >&2
exec bash "$here/scripts/arbiter-exec.sh" server
