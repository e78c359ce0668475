# Shared steps of setup.sh and test.sh: system packages, nsjail, node modules, toolchains.
# Each step is idempotent and quick when already done; everything cached lives outside the
# checkout (/var/lib/arbiter, npm's cache).

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

step() { printf '\n== %s (%s)\n' "$*" "$(date +%H:%M:%S)"; }

require_root() {
  [ "$(id -u)" = 0 ] || { echo "Arbiter's setup needs root (nsjail, cgroups, debootstrap)." >&2; exit 1; }
}

require_node() {
  local major
  major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
  if [ "$major" -lt 20 ]; then
    echo "Arbiter needs Node.js 20 or newer (found: $(node --version 2>/dev/null || echo none))." >&2
    exit 1
  fi
}

apt_install() {
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

node_modules() {
  # native addons build against the headers Node ships (no header download)
  [ -d /usr/include/node ] && export npm_config_nodedir=/usr
  local want have
  want=$(sha256sum "$here/package-lock.json" | cut -c1-16)
  have=$(cat "$here/node_modules/.arbiter-lock" 2>/dev/null || true)
  if [ "$want" != "$have" ]; then
    (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$want" >"$here/node_modules/.arbiter-lock"
  else
    echo "node modules current"
  fi
}

provision() {
  (cd "$here" && npx tsx scripts/provision.ts "$@")
}
