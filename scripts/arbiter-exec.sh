#!/usr/bin/env bash
# Starts one of Arbiter's processes in the foreground (exec: the caller's pid becomes node's, so
# systemd's $MAINPID and signals reach it): `server` (HTTP, database, outbox, room; run it unprivileged),
# `jail` (the root jail daemon) or `worker` (a sandbox host: `cli worker`, root). From the build in dist/ when there is one (`npm run build`), else
# from the TypeScript sources through tsx.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
case "${1:-}" in
  server) entry=main ;;
  worker)
    # root's own temp folder, as for the jail daemon
    export TMPDIR=/run/arbiter-worker-tmp
    mkdir -p -m 0700 "$TMPDIR"
    chown root:root "$TMPDIR"
    chmod 0700 "$TMPDIR"
    flags=(--max-semi-space-size=2 --optimize-for-size)
    if [ -f dist/cli.js ]; then exec node "${flags[@]}" dist/cli.js worker; fi
    exec node "${flags[@]}" --import tsx src/cli.ts worker
    ;;
  jail)
    entry=jail-daemon
    # root's own temp folder: tsx keeps transpiled code in $TMPDIR/tsx-<uid>, and a shared /tmp would let
    # the unprivileged server plant code there before root's first start
    export TMPDIR=/run/arbiter-jail-tmp
    mkdir -p -m 0700 "$TMPDIR"
    chown root:root "$TMPDIR"
    chmod 0700 "$TMPDIR"
    ;;
  *) echo "usage: $0 server|jail|worker" >&2; exit 2 ;;
esac
# the V8 flags of `npm start` (see src/testing/harness.ts SERVER_NODE_FLAGS)
flags=(--max-semi-space-size=2 --optimize-for-size)
if [ -f "dist/$entry.js" ]; then
  exec node "${flags[@]}" "dist/$entry.js"
fi
exec node "${flags[@]}" --import tsx "src/$entry.ts"
