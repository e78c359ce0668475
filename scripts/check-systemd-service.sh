#!/usr/bin/env bash
# Proves the systemd path on a real systemd: boots a fresh Debian 12 (systemd 252, cgroup v2) under
# QEMU with this checkout, the provisioned toolchains and the jail binaries shared in (9p), runs
# scripts/install-service.sh there (setup.sh's service step: arbiter user, data directory, the two
# units) and then scripts/systemd-check/vm-check.sh: the server runs as arbiter with no capabilities,
# a job completes, `kill -9` of the server is survived (systemd restarts it, the job is not lost),
# `systemctl reload` reaches both units, `systemctl stop arbiter` stops both; then a sandbox host:
# Redis with an ACL user, the API host with pool.size 0, install-worker.sh (setup.sh --worker's service
# step) starting arbiter-worker.service as root, a job run there, `kill -9` of it survived, a clean stop.
# Usage (root, on a set-up machine): bash scripts/check-systemd-service.sh
# The VM's root is cached in $ARBITER_SYSTEMD_VM (default /var/lib/arbiter-ops-service/systemd-vm).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
require_root
apt_install qemu-system-x86 debootstrap e2fsprogs
cache=${ARBITER_SYSTEMD_VM:-/var/lib/arbiter-ops-service/systemd-vm}
root=$cache/root
# a root from before redis-server was in the list is made again
[ -e "$root/usr/bin/redis-server" ] || rm -f "$cache/.root-done"
if [ ! -e "$cache/.root-done" ]; then
  step "debootstrap a Debian 12 root with systemd and a kernel"
  rm -rf "$root"
  mkdir -p "$cache"
  debootstrap --variant=minbase \
    --include=systemd,systemd-sysv,dbus,linux-image-amd64,initramfs-tools,kmod,iproute2,libstdc++6,procps,util-linux,passwd,redis-server \
    bookworm "$root"
  touch "$cache/.root-done"
fi

# the service runs the build (dist/) as setup.sh leaves it; from the sources through tsx, its start
# under emulation took longer than the check waits
step "build (dist/), as setup.sh does"
(cd "$here" && npm run -s build)

step "VM image"
install -D -m 755 "$(readlink -f "$(command -v node)")" "$root/usr/local/bin/node"
install -D -m 755 "$here/scripts/systemd-check/vm-check.sh" "$root/opt/systemd-check/vm-check.sh"
printf "PROJECT='%s'\n" "$here" >"$root/opt/systemd-check/env"
# a git worktree whose node_modules links to another checkout's: that folder is shared in too, at the
# same path, so the link resolves inside the VM
modules=$(readlink -f "$here/node_modules")
extra=()
if [ "$modules" != "$here/node_modules" ]; then
  printf "MODULES='%s'\n" "$modules" >>"$root/opt/systemd-check/env"
  extra=(-virtfs "local,path=$modules,mount_tag=modules,security_model=none,id=modules,readonly=on")
fi
cat >"$root/etc/systemd/system/arbiter-vm-check.service" <<'UNIT'
[Unit]
Description=Arbiter systemd check (runs once, then powers off)
After=multi-user.target
[Service]
Type=oneshot
ExecStart=/opt/systemd-check/vm-check.sh
StandardOutput=tty
StandardError=tty
TTYPath=/dev/ttyS0
UNIT
mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
ln -sf /etc/systemd/system/arbiter-vm-check.service "$root/etc/systemd/system/multi-user.target.wants/arbiter-vm-check.service"
echo arbiter-vm >"$root/etc/hostname"
# the serial console is the check's output: no login prompt there (its vhangup would cut the output off)
for unit in serial-getty@ttyS0.service getty@tty1.service; do ln -sf /dev/null "$root/etc/systemd/system/$unit"; done
# a fresh machine: no arbiter user, no units, no data from a previous boot
chroot "$root" sh -c 'userdel arbiter 2>/dev/null; rm -rf /var/lib/arbiter-data /var/lib/arbiter-worker /etc/arbiter /etc/systemd/system/arbiter.service /etc/systemd/system/arbiter-jail.service /etc/systemd/system/arbiter-worker.service /etc/systemd/system/multi-user.target.wants/arbiter*.service; ln -sf /etc/systemd/system/arbiter-vm-check.service /etc/systemd/system/multi-user.target.wants/' || true
img=$cache/disk.img
rm -f "$img"
truncate -s 4G "$img"
mkfs.ext4 -q -F -d "$root" "$img"

step "boot (tcg) and check"
log=$cache/console.log
kernel=$(ls "$root"/boot/vmlinuz-* | sort -V | tail -n 1)
initrd=$(ls "$root"/boot/initrd.img-* | sort -V | tail -n 1)
share() { echo "local,path=$1,mount_tag=$2,security_model=none,id=$2$3"; }
timeout 3600 qemu-system-x86_64 -accel tcg,thread=multi -cpu max -smp 2 -m 4096 -nographic -no-reboot \
  -kernel "$kernel" -initrd "$initrd" \
  -append "console=ttyS0 root=/dev/vda rw panic=-1 loglevel=4 systemd.show_status=false" \
  -drive "file=$img,format=raw,if=virtio" \
  -virtfs "$(share "$here" proj "")" \
  -virtfs "$(share /var/lib/arbiter/toolchains toolchains ,readonly=on)" \
  -virtfs "$(share /var/lib/arbiter/bin bin ,readonly=on)" "${extra[@]}" | tee "$log"
result=$(grep -a -o 'SYSTEMD-CHECK-RESULT [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
echo "systemd check: ${result:-no result} (console log: $log)"
[ "${result:-1}" = 0 ]
