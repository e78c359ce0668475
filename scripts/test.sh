#!/usr/bin/env bash
# The test command (npm test): sets up whatever is missing (nsjail, node modules, every
# toolchain, Chromium for the page tests), then type-checks and runs the whole vitest suite
# against the real jail. Re-running on a set-up machine starts testing within seconds.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
require_root
require_node
started=$(date +%s)
step "system packages"
apt_install ca-certificates debootstrap chromium
step "nsjail and the jail supervisor"
bash "$here/scripts/install-nsjail.sh"
step "node modules"
node_modules
step "toolchains"
provision --langs "${ARBITER_LANGS:-all}"
echo "setup took $(( $(date +%s) - started )) s"
step "type check"
(cd "$here" && npx tsc --noEmit)
step "tests"
cd "$here"
# one file at a time: the jail and end-to-end tests measure time, and these machines have 2 cores
exec npx vitest run --fileParallelism=false --testTimeout=120000 --hookTimeout=300000 "$@"
