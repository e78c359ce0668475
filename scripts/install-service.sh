#!/usr/bin/env bash
# The last part of setup.sh (run it alone after an upgrade that changed only code): the `arbiter`
# system user and its data directory ($ARBITER_DATA, default ./data), then the service. With systemd as
# PID 1: arbiter.service (the server, as arbiter, no capabilities) and arbiter-jail.service (the root
# jail daemon), enabled and (re)started. Without systemd (a container, CI): the same two processes in
# the foreground under scripts/run-service.sh. --no-start: the user and data only.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
require_root
data=${ARBITER_DATA:-$here/data}
step "the arbiter user and its data directory ($data)"
service_user "$data"
[ "${1:-}" = "--no-start" ] && exit 0
if [ -d /run/systemd/system ] && [ "$(ps -p 1 -o comm=)" = systemd ]; then
  step "systemd units arbiter.service + arbiter-jail.service"
  install_units "$data"
  systemctl daemon-reload
  systemctl enable --quiet arbiter-jail.service arbiter.service
  # restart, not start: a re-run after `git pull` is the upgrade; the jail daemon too, so it runs
  # the new code and mounts the toolchain roots' new images (it has its own mount namespace)
  systemctl restart arbiter-jail.service arbiter.service
  systemctl --no-pager --lines=5 status arbiter.service arbiter-jail.service || true
  echo "Arbiter runs as a service: journalctl -u arbiter -u arbiter-jail -f (logs); systemctl reload arbiter (config)"
else
  step "starting Arbiter in the foreground: no systemd here (PID 1 is $(ps -p 1 -o comm=)); Ctrl-C stops it"
  ARBITER_DATA=$data exec bash "$here/scripts/run-service.sh"
fi
