#!/bin/bash
# Inside the systemd check VM (scripts/check-systemd-service.sh), as a oneshot unit after boot: mount
# the shares, run install-service.sh as setup.sh would, then check the service as an admin would see it.
# Prints SYSTEMD-CHECK-RESULT 0 when every check passed (else the number of the failed one), powers off.
export PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8
. /opt/systemd-check/env
n=0
fail() { echo "FAILED check $n: $*"; journalctl --no-pager -u arbiter -u arbiter-jail | tail -40; echo "SYSTEMD-CHECK-RESULT $n"; sync; systemctl poweroff --force; sleep 60; }
check() { n=$((n + 1)); echo "== check $n: $1"; }
http() { node -e "fetch(process.argv[1], process.argv[2] ? { method: 'POST', headers: { 'client-secret': process.env.SECRET ?? '', 'content-type': 'application/json' }, body: process.argv[2] } : { headers: { 'client-secret': process.env.SECRET ?? '' } }).then(async (r) => { console.log(await r.text()); process.exit(r.ok ? 0 : 1) }, () => process.exit(1))" "$@"; }
# up to $1 seconds (not tries: under emulation one try of `http` alone takes seconds). A (re)start of the
# server took 6 min under emulation on a 2-core host with a load of 25 (2026-11-29): the waits that span
# one are 900 s, an upper bound that costs a passing check nothing
wait_for() { local end=$((SECONDS + $1)); while [ "$SECONDS" -lt "$end" ]; do eval "$2" >/dev/null 2>&1 && return 0; sleep 1; done; return 1; }

echo "SYSTEMD-CHECK kernel $(uname -r); PID 1 is $(ps -p 1 -o comm=) $(systemctl --version | head -n 1); cgroup fs $(stat -f -c %T /sys/fs/cgroup)"
modprobe 9pnet_virtio && modprobe 9p
# the toolchain roots are squashfs images the supervisor loop-mounts
modprobe loop || true; modprobe squashfs || true
share() { mkdir -p "$2" && mount -t 9p -o "trans=virtio,version=9p2000.L,msize=524288,cache=loose$3" "$1" "$2"; }
share proj "$PROJECT" && share toolchains /var/lib/arbiter/toolchains ,ro && share bin /var/lib/arbiter/bin ,ro || fail "9p shares"
if [ -n "${MODULES:-}" ]; then share modules "$MODULES" ,ro || fail "9p share of node_modules"; fi
cd "$PROJECT"
export ARBITER_DATA=/var/lib/arbiter-data

check "install-service.sh (setup.sh's service step) on a machine without the arbiter user"
bash scripts/install-service.sh || fail "install-service.sh"
check "the service answers /health"
wait_for 900 "http http://127.0.0.1:8080/health" || fail "no /health"
http http://127.0.0.1:8080/health
check "units active and enabled"
systemctl is-active arbiter arbiter-jail && systemctl is-enabled arbiter arbiter-jail || fail "units"
check "the server runs as arbiter with no capabilities; the jail daemon as root"
pid=$(systemctl show -p MainPID --value arbiter)
grep -E '^(Uid|Gid|Cap|NoNewPrivs)' "/proc/$pid/status"
[ "$(awk '/^Uid:/ {print $2}' "/proc/$pid/status")" = "$(id -u arbiter)" ] || fail "server uid"
for c in CapInh CapPrm CapEff CapBnd CapAmb; do grep -q "^$c:[[:space:]]*0000000000000000$" "/proc/$pid/status" || fail "$c not empty"; done
jpid=$(systemctl show -p MainPID --value arbiter-jail)
[ "$(awk '/^Uid:/ {print $2}' "/proc/$jpid/status")" = 0 ] || fail "jail daemon not root"
stat -c '%U:%G %a %n' "$ARBITER_DATA" "$ARBITER_DATA/config.toml" "$ARBITER_DATA/arbiter.db" /run/arbiter-jail /run/arbiter-jail/jail-*.sock
[ "$(stat -c %U "$ARBITER_DATA/arbiter.db")" = arbiter ] || fail "database owner"

check "a job runs through the jail daemon"
SECRET=$(runuser -u arbiter -- node --import tsx src/cli.ts clients create --name vm --json | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).client_secret))")
export SECRET
he=$(http http://127.0.0.1:8080/v4/partner/code-evaluation/submissions/ '{"lang":"PYTHON3","source":"import time\ntime.sleep(3)\nprint(input())","input":"survived"}' | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).he_id))")
[ -n "$he" ] || fail "submit"
url="http://127.0.0.1:8080/v4/partner/code-evaluation/submissions/$he/"
# past REQUEST_QUEUED = claimed and running in the jail (Python has no compile step: CODE_COMPILED at once)
wait_for 300 "http $url | grep -qv REQUEST_QUEUED" || fail "job never started"

check "kill -9 of the server: systemd restarts it and the job completes"
kill -9 "$pid"
wait_for 900 "[ \"\$(systemctl show -p MainPID --value arbiter)\" != 0 ] && [ \"\$(systemctl show -p MainPID --value arbiter)\" != $pid ] && http http://127.0.0.1:8080/health" || fail "not restarted"
echo "NRestarts=$(systemctl show -p NRestarts --value arbiter) new MainPID=$(systemctl show -p MainPID --value arbiter)"
wait_for 900 "http $url | grep -q REQUEST_COMPLETED" || fail "job lost"
http "$url"
http "$url" | grep -q '"status": *"AC"\|"status":"AC"' || fail "verdict"

check "systemctl reload arbiter reaches the server and the jail daemon"
systemctl reload arbiter || fail "reload"
wait_for 60 "journalctl -u arbiter | grep -q 'config reloaded'" || fail "server did not reload"
wait_for 60 "journalctl -u arbiter-jail | grep -q 'config reloaded'" || fail "jail daemon did not reload"

check "systemctl stop arbiter stops both"
systemctl stop arbiter
wait_for 60 "! systemctl is-active arbiter-jail" || fail "jail daemon still active"

check "a sandbox host as a service: Redis with an ACL user, the API host with pool.size 0, setup.sh --worker's service step"
# a private Redis on loopback (the package's own unit is not used): default user off, one ACL user
systemctl stop redis-server 2>/dev/null || true
redis-server --port 6390 --bind 127.0.0.1 --daemonize yes --save '' --appendonly no --user default off \
  --user arbiter on '>vm-redis-pw' '~*' '&*' '+@all' || fail "redis-server"
redis_url=redis://arbiter:vm-redis-pw@127.0.0.1:6390
cfg=$ARBITER_DATA/config.toml
sed -i "s|^redis_url = \"\"|redis_url = \"$redis_url\"|" "$cfg"
sed -i '/^\[pool\]/a size = 0' "$cfg"
grep -q "^redis_url = \"$redis_url\"" "$cfg" || fail "API host config"
systemctl restart arbiter
wait_for 900 "http http://127.0.0.1:8080/health | grep -q '\"redis\":\"ok\"'" || fail "API host does not reach Redis"
export WORKER_DATA=/var/lib/arbiter-worker
mkdir -p "$WORKER_DATA"
printf '[pool]\nsize = 2\n[queue]\nlock_ms = 3000\nstalled_check_ms = 1000\n' >"$WORKER_DATA/config.toml"
ARBITER_DATA=$WORKER_DATA ARBITER_REDIS_URL=$redis_url bash scripts/install-worker.sh || fail "install-worker.sh"
systemctl is-active arbiter-worker && systemctl is-enabled arbiter-worker || fail "worker unit"
[ "$(stat -c '%U %a' /etc/arbiter/worker.env)" = "root 600" ] || fail "worker.env mode"
wpid=$(systemctl show -p MainPID --value arbiter-worker)
[ "$(awk '/^Uid:/ {print $2}' "/proc/$wpid/status")" = 0 ] || fail "worker not root"
wait_for 900 "http http://127.0.0.1:8080/health | grep -q '\"slots\":2'" || fail "the host never advertised"

check "a job runs on the sandbox host service; kill -9 of it mid-job: systemd restarts it and the job completes once"
he=$(http http://127.0.0.1:8080/v4/partner/code-evaluation/submissions/ '{"lang":"PYTHON3","source":"import time\ntime.sleep(4)\nprint(input())","input":"on a host"}' | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).he_id))")
[ -n "$he" ] || fail "submit to the API host"
url="http://127.0.0.1:8080/v4/partner/code-evaluation/submissions/$he/"
wait_for 300 "http $url | grep -qv REQUEST_QUEUED" || fail "job never reached the host"
sleep 1
kill -9 "$wpid"
wait_for 900 "[ \"\$(systemctl show -p MainPID --value arbiter-worker)\" != 0 ] && [ \"\$(systemctl show -p MainPID --value arbiter-worker)\" != $wpid ]" || fail "worker not restarted"
wait_for 900 "http $url | grep -q REQUEST_COMPLETED" || fail "job lost with the host"
http "$url" | grep -q '"status": *"AC"\|"status":"AC"' || fail "verdict on the host"

check "systemctl stop arbiter-worker stops it cleanly and its advert goes"
systemctl stop arbiter-worker
[ "$(systemctl show -p Result --value arbiter-worker)" = success ] || fail "worker stop result"
wait_for 60 "http http://127.0.0.1:8080/health | grep -q '\"hosts\":\[\]'" || fail "advert still there"

echo "SYSTEMD-CHECK-RESULT 0"
sync
systemctl poweroff --force
