#!/usr/bin/env bash
# Installs the real third-party API clients the end-to-end tests drive (outside the checkout, never
# committed, not in package.json): a Python venv and an npm folder under $ARBITER_TEST_CLIENTS
# (default /var/lib/arbiter/test-clients). Each API's clients are one file in scripts/test-clients/;
# every part is idempotent and returns at once when its pinned set is already installed.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
export ARBITER_TEST_CLIENTS=${ARBITER_TEST_CLIENTS:-/var/lib/arbiter/test-clients}
mkdir -p "$ARBITER_TEST_CLIENTS"

# the venv every Python client shares (judge0-client needs Python 3.11 or newer)
test_clients_venv() {
  local venv=$ARBITER_TEST_CLIENTS/venv
  if [ ! -x "$venv/bin/python" ]; then
    python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "the test clients need Python 3.11 or newer" >&2; exit 1; }
    python3 -m venv "$venv" 2>/dev/null || { apt_install python3-venv; python3 -m venv "$venv"; }
  fi
  echo "$venv"
}

# pip_pinned NAME PKG==VER…: installs the pinned packages unless the same set is recorded as installed
pip_pinned() {
  local name=$1; shift
  local venv stamp want
  venv=$(test_clients_venv)
  stamp=$venv/.arbiter-$name
  want=$(printf '%s\n' "$@" | sha256sum | cut -c1-16)
  if [ "$(cat "$stamp" 2>/dev/null || true)" = "$want" ]; then
    echo "$name clients current"
    return 0
  fi
  "$venv/bin/pip" install --quiet --disable-pip-version-check "$@"
  echo "$want" >"$stamp"
  echo "$name clients installed: $*"
}

for part in "$here"/scripts/test-clients/*.sh; do
  source "$part"
done
