#!/usr/bin/env bash
# The test command (npm test): sets up whatever is missing (nsjail, node modules, every
# toolchain, Chromium for the page tests), then type-checks and runs the whole vitest suite
# against the real jail, then the jail's tests again on cgroup v2 in a VM (scripts/check-cgroup-v2.sh).
# Re-running on a set-up machine starts testing within seconds.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
require_root
require_node
started=$(date +%s)
step "system packages"
# redis-server: the tests start their own on a loopback port (src/testing/redis-server.ts) for the queue over Redis
# systemd: its systemd-analyze checks the service units (src/sandbox-hosts/service-units.test.ts)
apt_install ca-certificates debootstrap squashfs-tools chromium redis-server systemd
step "nsjail and the jail supervisor"
bash "$here/scripts/install-nsjail.sh"
step "node modules"
node_modules
step "test clients (the real third-party clients the API tests drive)"
bash "$here/scripts/install-test-clients.sh"
step "toolchains"
provision --langs "${ARBITER_LANGS:-all}"
echo "setup took $(( $(date +%s) - started )) s"
step "type check"
(cd "$here" && npx tsc --noEmit)
step "tests"
cd "$here"
# the compile cache outlives runs (it lives beside the toolchains): start each test run without it,
# so a test that expects a compile gets one
rm -rf /var/lib/arbiter/compile-cache
# the unit tier first, two files at a time (no jail, no server, nothing timed: 137 s one at a time in
# CI on 2026-11-30, 88 s two at a time; four at a time, 81-96 s, stretched CPU-bound tests too far);
# then the rest one file at a time: the jail and end-to-end tests measure time, and these machines
# have 2 cores (--passWithNoTests: the files asked for may all be in one of the two runs)
npx vitest run --project unit --maxWorkers=2 --passWithNoTests "$@"
npx vitest run --project jail --project e2e --project browser --fileParallelism=false --passWithNoTests --testTimeout=120000 --hookTimeout=300000 "$@"
# the whole suite also proves the jail on the other cgroup version: this machine's is v1, Debian 12 and
# Ubuntu hosts have v2 (a Debian 12 kernel under QEMU; skipped when only some tests were asked for)
if [ $# -eq 0 ]; then
  step "the jail on cgroup v2"
  bash "$here/scripts/check-cgroup-v2.sh" >"$here/data/cgroup-v2-check.log" 2>&1 || {
    tail -n 60 "$here/data/cgroup-v2-check.log"
    exit 1
  }
  grep -aE 'V2CHECK|Test Files|Tests |check-cgroup-v2:' "$here/data/cgroup-v2-check.log" | tr -d '\033'
fi
