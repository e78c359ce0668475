#!/usr/bin/env bash
# Sets up Arbiter on a Debian 12 machine (as root): nsjail and the supervisor, node modules (and the
# build, when package.json has one), every toolchain of the manifest, a self-check, the `arbiter`
# system user owning the data directory, then the service: with systemd as PID 1 the units
# arbiter.service (server, as arbiter, no capabilities) + arbiter-jail.service (root jail daemon),
# enabled and (re)started; without systemd (a container, CI) the same two processes in the foreground
# under scripts/run-service.sh. Pass --no-start to set up without starting. Re-running it is quick
# (each step skips what is done) and is also how an upgrade is applied.
# --languages A,B: only these languages' toolchains (default: all; env ARBITER_LANGS does the same).
# --worker: a sandbox host instead (docs/admin/sandbox-hosts.md): the same jail and toolchains, then
# arbiter-worker.service (`cli worker`, root) taking jobs from ARBITER_REDIS_URL (kept in
# /etc/arbiter/worker.env, 0600); no server, no database.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
require_root
require_node
worker=no
args=()
# --languages C,PYTHON3 (codes or aliases; ARBITER_LANGS is the same): provision only these; every
# other code answers "not provisioned" until a later run provisions it
langs=${ARBITER_LANGS:-all}
while [ $# -gt 0 ]; do
  case $1 in
    --worker) worker=yes ;;
    --languages) langs=${2:?"--languages needs a list, e.g. --languages C,PYTHON3"}; shift ;;
    --languages=*) langs=${1#--languages=} ;;
    *) args+=("$1") ;;
  esac
  shift
done
step "system packages"
apt_install ca-certificates debootstrap squashfs-tools
step "nsjail and the jail supervisor"
bash "$here/scripts/install-nsjail.sh"
step "node modules"
node_modules
if (cd "$here" && npm run | grep -q '^  build$'); then
  step "build (dist/)"
  (cd "$here" && npm run -s build)
fi
step "toolchains"
provision --langs "$langs"
step "self-check"
# doctor exits 1 unless a program ran in the jail and every language it tried passed its self-test
check_langs=$langs
[ "$check_langs" = all ] && check_langs=C,PYTHON3
if report=$(cd "$here" && npm run -s cli -- doctor --lang "$check_langs"); then
  echo "doctor: the jail works"
else
  printf '%s\n' "$report" >&2
  echo "doctor: the self-check failed (report above); not starting Arbiter" >&2
  exit 1
fi
if [ "$worker" = yes ]; then
  ARBITER_DATA=${ARBITER_DATA:-$here/data} exec bash "$here/scripts/install-worker.sh" "${args[@]}"
fi
ARBITER_DATA=${ARBITER_DATA:-$here/data} exec bash "$here/scripts/install-service.sh" "${args[@]}"
