#!/usr/bin/env bash
# Runs the jail's tests on a cgroup v2 host, from a machine that has cgroup v1 (as this project's
# own development machines do): boots a Debian 12 kernel under KVM with a pure v2 hierarchy, shares
# in this checkout, the provisioned toolchains and the jail binaries (read-only, 9p), and runs the
# sandbox and worker tests there — real nsjail, real toolchains, cgroup v2 memory/pids/cpu.
# Usage: bash scripts/check-cgroup-v2.sh [vitest arguments...]
#   e.g. every JVM and node table: src/jobs/worker.test.ts src/jobs/language-tables.test.ts
#   -t '^(JAVA|JAVA8|JAVA14|JAVA21|KOTLIN2|SCALA3|GROOVY|TYPESCRIPT5|JAVASCRIPT|JAVASCRIPT_NODE) in the jail'
#   default: the hostile-program tables of C, CPP, PYTHON3, and one per runtime of the
#   JVM's and node's (JAVA21, JAVASCRIPT_NODE), and the containment tests of src/jobs/worker.test.ts
#   (each table's limits are measured against its language's own start there; the other JVM and
#   node codes run the same two runtimes with other compilers, CPP11, CPP14, CPP17, CPP20 and CPP23
#   the same g++ as CPP with another -std, and with them all the check would take over an hour more; each
#   passed in a check run by hand, docs/sandbox/figures-and-quotas.md),
#   the tables of src/jobs/language-tables.test.ts (the languages beyond the spec's and bullseye's
#   older GCCs; its limits are roomy enough for emulation), one per compiler and runtime: not
#   C_GCC10, C_GCC9_GNU17, CPP_GCC9, CPP_GCC10 (bullseye's GCCs, as C_GCC9), CPP_CLANG (clang, as
#   C_CLANG), ELIXIR (the BEAM, as ERLANG), MULTIFILE (bash, as BASH), nor GROOVY (its JVM crashes
#   under TCG's -cpu max now and then; figures-and-quotas.md), and every test of
#   src/sandbox/reuse.test.ts (prepared jails reused), src/sandbox/dodges.test.ts (figures and quotas;
#   its JVM rows have roomy time limits), src/sandbox/net-counters.test.ts (no network figure passes
#   from one run to the next), src/jobs/jail-shaped.test.ts (paths a jail shaped) and
#   src/packages/interactive-modes.test.ts (interactive and multi-pass problems: two wired jails, in
#   prepared jails and with one nsjail per step); of the tables, the rows a cgroup can decide (below)
# A file whose test process node died of a fault under emulation (the kernel logged it, no test
# failed), or whose every failed test shows a JVM's own report of SIGILL or SIGSEGV, runs once more
# in the same boot (scripts/cgroup-v2/emulation-faults.ts, vm-init.sh; docs/sandbox/README.md).
# ARBITER_V2_ACCEL=kvm uses hardware virtualisation; the default, tcg, emulates (slow but works on
# hosts whose nested KVM cannot boot a guest, as on this project's machines); ARBITER_V2_CPU: the CPU
# it emulates (default max; e.g. qemu64, Haswell).
# ARBITER_PREFIX: where the jail binaries to test are (default /var/lib/arbiter: its bin/ is shared
# in as the VM's /var/lib/arbiter/bin), e.g. a private install of scripts/install-nsjail.sh.
# Needs root and a set-up machine (npm test has run once). The VM's root is cached in
# /var/lib/arbiter/v2check.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
require_root
accel=${ARBITER_V2_ACCEL:-tcg}
case $accel in
  kvm) cpu=(-enable-kvm -cpu host,-arch-capabilities) ;;
  tcg) cpu=(-accel tcg,thread=multi -cpu "${ARBITER_V2_CPU:-max}") ;;
  *) echo "check-cgroup-v2: ARBITER_V2_ACCEL is kvm or tcg" >&2; exit 2 ;;
esac
apt_install qemu-system-x86 debootstrap e2fsprogs

cache=/var/lib/arbiter/v2check
root=$cache/root
mkdir -p "$cache"
# one check at a time: the VM's root, its env file and its disk image are this one folder's
exec 9>"$cache/.lock"
flock 9
if [ ! -e "$cache/.root-done" ]; then
  step "debootstrap a Debian 12 root with its kernel"
  rm -rf "$root"
  mkdir -p "$cache"
  debootstrap --variant=minbase --include=linux-image-amd64,initramfs-tools,kmod,iproute2,libstdc++6 bookworm "$root"
  touch "$cache/.root-done"
fi

step "VM image"
# the host's node (same Debian 12 libraries) runs the tests inside
install -D -m 755 "$(readlink -f "$(command -v node)")" "$root/usr/local/bin/node"
install -D -m 755 "$here/scripts/cgroup-v2/vm-init.sh" "$root/opt/v2check/init"
# every table but those of codes that share a compiler and runtime with one kept (a table added for a
# new code runs here too); of each table kept, every row but those whose verdict comes from an exit
# status, a signal or the output caps alone (nothing a cgroup decides: the table's null dereference
# stays, so a signal death is never read as MLE there); of the interactive tables, the rows that
# kill, time out or probe, not those that only wire pipes differently (each kept row passed on v2 in
# the CI runs before 2026-11-30; docs/development/tests.md)
tables='(?!(?:CPP11|CPP14|CPP17|CPP20|CPP23|JAVA|JAVA8|JAVA14|KOTLIN2|SCALA3|TYPESCRIPT5|GROOVY|JAVASCRIPT|C_GCC10|C_GCC9_GNU17|CPP_GCC9|CPP_GCC10|CPP_CLANG|ELIXIR|MULTIFILE) in the jail)'
rows='(?![A-Z0-9_]+ in the jail (?:compile error|division by zero|abort[(][)]|exit[(]3[)]|stdout past the cap|stderr past the cap|exit status 3 is RE|an uncaught error is RE))'
wiring='(?!interactive and multi-pass problems, .* (?:wrong|leaves|closes|crashes|floods|drains): )'
[ $# -gt 0 ] || set -- src/jobs/worker.test.ts src/jobs/language-tables.test.ts src/sandbox/reuse.test.ts src/sandbox/dodges.test.ts src/sandbox/net-counters.test.ts src/jobs/jail-shaped.test.ts src/packages/interactive-modes.test.ts \
  -t "^$tables$rows$wiring"
# the VM's init is a POSIX shell: each argument single-quoted
quoted=""
for a in "$@"; do quoted="$quoted '${a//\'/\'\\\'\'}'"; done
# a worktree's node_modules may be a link to another checkout's: that folder is shared in too, at its
# path, writable (vitest writes its bundled config there)
modules=$(readlink -f "$here/node_modules")
[ "$modules" = "$here/node_modules" ] && modules=""
printf "PROJECT='%s'\nMODULES='%s'\nVITEST_ARGS=\"%s\"\n" "$here" "$modules" "${quoted//\"/\\\"}" >"$root/opt/v2check/env"
img=$cache/disk.img
rm -f "$img"
truncate -s 4G "$img"
mkfs.ext4 -q -F -d "$root" "$img"

step "boot ($accel, cgroup v2) and run: vitest$quoted"
log=$cache/console.log
kernel=$(ls "$root"/boot/vmlinuz-* | sort -V | tail -n 1)
initrd=$(ls "$root"/boot/initrd.img-* | sort -V | tail -n 1)
share() { echo "local,path=$1,mount_tag=$2,security_model=none,id=$2$3"; }
timeout 3600 qemu-system-x86_64 "${cpu[@]}" -smp 2 -m 6144 -nographic -no-reboot \
  -kernel "$kernel" -initrd "$initrd" \
  -append "console=ttyS0 root=/dev/vda rw init=/opt/v2check/init panic=-1 loglevel=4" \
  -drive "file=$img,format=raw,if=virtio" \
  -virtfs "$(share "$here" proj "")" \
  -virtfs "$(share /var/lib/arbiter/toolchains toolchains ,readonly=on)" \
  -virtfs "$(share "${ARBITER_PREFIX:-/var/lib/arbiter}/bin" bin ,readonly=on)" \
  ${modules:+-virtfs "$(share "$modules" modules "")"} | tee "$log"
rc=$(sed -n 's/.*V2CHECK-RESULT \([0-9]*\).*/\1/p' "$log" | tail -n 1)
echo "check-cgroup-v2: tests exited ${rc:-?} (console log: $log)"
[ "${rc:-1}" = 0 ]
