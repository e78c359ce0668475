#!/bin/sh
# PID 1 of the cgroup v2 check VM (scripts/check-cgroup-v2.sh): mounts a pure cgroup v2 hierarchy
# at /sys/fs/cgroup, as Debian 12 and Ubuntu hosts have, shares in the project, the toolchains and
# the jail binaries from the host (9p), runs the given tests, prints their exit code, powers off.
export PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8
mount -t proc proc /proc 2>/dev/null
mount -t sysfs sys /sys 2>/dev/null
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mount -t cgroup2 cgroup2 /sys/fs/cgroup
. /opt/v2check/env
modprobe 9pnet_virtio && modprobe 9p
# the toolchain roots are squashfs images the supervisor loop-mounts
modprobe loop || true; modprobe squashfs || true
share() { mkdir -p "$2" && mount -t 9p -o "trans=virtio,version=9p2000.L,msize=524288,cache=loose$3" "$1" "$2"; }
share proj "$PROJECT" && share toolchains /var/lib/arbiter/toolchains ,ro && share bin /var/lib/arbiter/bin ,ro &&
  { [ -z "$MODULES" ] || share modules "$MODULES" ""; } || {
  echo "V2CHECK-RESULT 90 (9p shares)"; echo o >/proc/sysrq-trigger; sleep 60
}
ip link set lo up
# an address other than loopback (the VM has no network): the containment test checks that the jail
# cannot reach the host on it
modprobe dummy && ip link add arb0 type dummy && ip addr add 10.213.0.1/24 dev arb0 && ip link set arb0 up
echo "V2CHECK kernel $(uname -r); /sys/fs/cgroup is $(stat -f -c %T /sys/fs/cgroup); controllers: $(cat /sys/fs/cgroup/cgroup.controllers)"
cd "$PROJECT"
export ARBITER_DATA=/tmp/arbiter-data CI=1  # CI: a plain, line-by-line test report on the serial console
# the jail must see v2 here, or the run would prove nothing
# twice at most: node under emulation (TCG) once died of a SIGSEGV here (the same check, run again, passed)
node --import tsx src/cli.ts doctor --lang C,PYTHON3 >/tmp/doctor.json || node --import tsx src/cli.ts doctor --lang C,PYTHON3 >/tmp/doctor.json
cat /tmp/doctor.json
grep -q '"version": "v2"' /tmp/doctor.json || { echo "V2CHECK-RESULT 91 (doctor does not report cgroup v2)"; echo o >/proc/sysrq-trigger; sleep 60; }
eval "set -- $VITEST_ARGS"
vitest() { node node_modules/vitest/vitest.mjs run --fileParallelism=false --testTimeout=600000 --hookTimeout=600000 \
  --reporter=default --reporter=json --outputFile.json=/tmp/v2-report.json "$@"; }
vitest "$@"
rc=$?
# Under emulation (TCG) a JIT runtime dies now and then of a fault no host run has shown: node itself
# (a file's test process "exited unexpectedly"; the kernel logged a segfault or trap of node) or a JVM
# judged in the jail (its own report of SIGILL or SIGSEGV at a pc in the failed test's stdout). Such
# files run once more, only when every failure is one of these (scripts/cgroup-v2/emulation-faults.ts):
# an assertion, an import error or a process killed by anything else still fails the check, and so
# does the same fault twice.
faults=$(dmesg | grep -E 'node\[[0-9]+\]: segfault|traps: node\[' || true)
if [ "$rc" != 0 ] && [ -f /tmp/v2-report.json ]; then
  again=$(node --import tsx scripts/cgroup-v2/emulation-faults.ts /tmp/v2-report.json "$([ -n "$faults" ] && echo 1 || echo 0)" 2>/tmp/v2-rerun-reason)
  echo "V2CHECK after the run: $(cat /tmp/v2-rerun-reason)"
  if [ -n "$again" ]; then
    [ -z "$faults" ] || { echo "V2CHECK node faulted under emulation:"; echo "$faults"; }
    echo "V2CHECK running again, once:"; echo "$again"
    n=$#
    for a in "$@"; do case "$a" in *.test.ts) [ -f "$a" ] && continue ;; esac; set -- "$@" "$a"; done
    shift "$n"
    vitest "$@" $again
    rc=$?
  fi
fi
[ "$rc" = 0 ] || dmesg | grep -E 'node\[[0-9]+\]' | tail -n 20  # a fault of node, if any, for the log
echo "V2CHECK-RESULT $rc"
sync
echo o >/proc/sysrq-trigger
sleep 60
