#!/usr/bin/env bash
# npm start: the service in the foreground, from the compiled build (dist/). Builds first when dist/ is
# missing or older than the sources. Started as root, it runs the service's privilege split
# (scripts/run-service.sh: the jail daemon as root, the HTTP server as the `arbiter` user with no
# capabilities and no_new_privs, each restarted if it dies); SIGHUP to this process reloads the config
# in both, SIGTERM stops both. Not root: the server alone, unprivileged (it needs a jail daemon's
# socket, pool.jail_socket, to run jobs). `npm run dev` runs the sources through tsx instead.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
require_node
cd "$here"
stamp=dist/.built
# anything under src/ (or the build's own config) newer than the last build: build again
if [ ! -f "$stamp" ] || [ -n "$(find src package.json tsconfig.json tsconfig.build.json -newer "$stamp" -print -quit)" ]; then
  echo "arbiter: building dist/ (the sources changed since the last build)"
  npm run -s build
fi
if [ "$(id -u)" = 0 ]; then
  data=${ARBITER_DATA:-$here/data}
  # the arbiter user and its data directory, as setup.sh makes them; skipped when ARBITER_USER names
  # another account (tests, a site's own user), whose data directory is then the caller's to prepare
  [ -n "${ARBITER_USER:-}" ] || service_user "$data" >/dev/null
  ARBITER_DATA=$data exec bash "$here/scripts/run-service.sh"
fi
echo "arbiter: not root, so only the HTTP server starts (as $(id -un)); jobs need the root jail daemon (pool.jail_socket)" >&2
exec bash "$here/scripts/arbiter-exec.sh" server
