#!/usr/bin/env bash
# The last part of `setup.sh --worker`: a sandbox host. Its data directory ($ARBITER_DATA, default ./data)
# is root's (0700): it holds only config.toml (queue.*, limits, pool.size = slots). The Redis URL, with
# its password, goes to /etc/arbiter/worker.env (0600 root) when ARBITER_REDIS_URL is set here. With
# systemd as PID 1: arbiter-worker.service, enabled and (re)started; without: `cli worker` in the
# foreground. --no-start: the directory and the env file only.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
require_root
data=${ARBITER_DATA:-$here/data}
# the unit reads /etc/arbiter/worker.env; ARBITER_WORKER_ENV moves it for tests only
env_file=${ARBITER_WORKER_ENV:-/etc/arbiter/worker.env}
step "the sandbox host's data directory ($data) and Redis URL"
mkdir -p "$data"
chown root:root "$data"
chmod 0700 "$data"
if [ -n "${ARBITER_REDIS_URL:-}" ]; then
  install -d -m 0755 "$(dirname "$env_file")"
  umask 077
  printf 'ARBITER_REDIS_URL=%s\n' "$ARBITER_REDIS_URL" >"$env_file"
  chmod 0600 "$env_file"
  echo "redis url: $env_file (0600 root)"
elif [ ! -f "$env_file" ] && ! grep -qs '^redis_url *= *"redis' "$data/config.toml"; then
  echo "no Redis URL: set ARBITER_REDIS_URL=redis://USER:PASSWORD@API-HOST:6379 and run this again" >&2
  exit 1
fi
[ "${1:-}" = "--no-start" ] && exit 0
if [ -d /run/systemd/system ] && [ "$(ps -p 1 -o comm=)" = systemd ]; then
  step "systemd unit arbiter-worker.service"
  sed -e "s|@ROOT@|$here|g" -e "s|@DATA@|$data|g" "$here/scripts/systemd/arbiter-worker.service" >/etc/systemd/system/arbiter-worker.service
  systemctl daemon-reload
  systemctl enable --quiet arbiter-worker.service
  systemctl restart arbiter-worker.service
  systemctl --no-pager --lines=5 status arbiter-worker.service || true
  echo "the sandbox host runs as a service: journalctl -u arbiter-worker -f"
else
  step "starting the sandbox host in the foreground: no systemd here; Ctrl-C stops it"
  set -a
  [ -f "$env_file" ] && source "$env_file"
  set +a
  ARBITER_DATA=$data exec bash "$here/scripts/arbiter-exec.sh" worker
fi
