#!/usr/bin/env bash
# Sets up Arbiter on a Debian 12 machine (as root) and starts the service in the foreground:
# nsjail and the supervisor, node modules, every toolchain of the manifest, then `npm start`.
# Pass --no-start to set up only. Re-running it is quick: each step skips what is done.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
require_root
require_node
step "system packages"
apt_install ca-certificates debootstrap
step "nsjail and the jail supervisor"
bash "$here/scripts/install-nsjail.sh"
step "node modules"
node_modules
step "toolchains"
provision --langs "${ARBITER_LANGS:-all}"
step "self-check"
# doctor exits 1 unless a program ran in the jail and every language it tried passed its self-test
check_langs=${ARBITER_LANGS:-all}
[ "$check_langs" = all ] && check_langs=C,PYTHON3
if report=$(cd "$here" && npm run -s cli -- doctor --lang "$check_langs"); then
  echo "doctor: the jail works"
else
  printf '%s\n' "$report" >&2
  echo "doctor: the self-check failed (report above); not starting Arbiter" >&2
  exit 1
fi
[ "${1:-}" = "--no-start" ] && exit 0
step "starting Arbiter (Ctrl-C stops it)"
cd "$here" && exec npm start
