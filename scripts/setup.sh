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
(cd "$here" && npm run -s cli -- doctor --lang C,PYTHON3 >/dev/null) && echo "doctor: the jail works"
[ "${1:-}" = "--no-start" ] && exit 0
step "starting Arbiter (Ctrl-C stops it)"
cd "$here" && exec npm start
