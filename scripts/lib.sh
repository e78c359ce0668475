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
  if [ "$want" = "$have" ]; then
    echo "node modules current"
    return 0
  fi
  # A fresh clone on a machine that installed this lock before takes what npm ci made then (kept beside
  # the toolchains, keyed by the lock, Node's version and the CPU): npm ci builds better-sqlite3 and
  # dolos's tree-sitter parsers from source, 5.5 minutes of every CI run on these 2 cores. A lock or
  # Node not seen before installs as ever, and stores its result for the next clone.
  local cache=${ARBITER_NODE_MODULES_CACHE:-/var/lib/arbiter/cache/node-modules}
  local key tar
  key="$want-$(node -p 'process.version + "-" + process.arch')"
  tar=$cache/$key.tar
  if [ -f "$tar" ] && rm -rf "$here/node_modules" && tar -xf "$tar" -C "$here"; then
    echo "node modules from $tar"
  else
    (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
    mkdir -p "$cache"
    { tar -cf "$tar.partial" -C "$here" node_modules && mv "$tar.partial" "$tar"; } || rm -f "$tar.partial"
    # the two newest locks' installs are kept
    ls -t "$cache"/*.tar 2>/dev/null | tail -n +3 | xargs -r rm -f
  fi
  echo "$want" >"$here/node_modules/.arbiter-lock"
}

provision() {
  (cd "$here" && npx tsx scripts/provision.ts "$@")
}

# The `arbiter` system user (no login, no home of its own) and its data directory. The data belongs to
# arbiter; config.toml stays root:arbiter 0640 because the root jail daemon reads it too (it refuses a
# file the server could have written). pool.jail_socket is set so the server hands jobs to the daemon.
service_user() {
  # {data_id}: the server and the daemon derive the socket from the data directory (one daemon each)
  local data=$1 sock='/run/arbiter-jail/jail-{data_id}.sock'
  if ! id -u arbiter >/dev/null 2>&1; then
    useradd --system --user-group --home-dir "$data" --no-create-home --shell /usr/sbin/nologin arbiter
    echo "created system user arbiter"
  fi
  if ! runuser -u arbiter -- test -r "$here/package.json"; then
    echo "the arbiter user cannot read $here: put the checkout where others may read it (e.g. /opt/arbiter)" >&2
    exit 1
  fi
  mkdir -p "$data"
  local cfg="$data/config.toml"
  if [ ! -f "$cfg" ]; then
    (cd "$here" && ARBITER_DATA="$data" node --import tsx --input-type=module -e "await import('./src/config.ts').then((m) => m.loadConfig())")
  fi
  # an empty one, or the one socket every installation shared before
  if grep -q '^jail_socket = "\(/run/arbiter-jail/jail.sock\)\?"' "$cfg"; then
    sed -i "s|^jail_socket = \".*\"|jail_socket = \"$sock\"|" "$cfg"
  elif ! grep -q '^jail_socket' "$cfg"; then
    if grep -q '^\[pool\]' "$cfg"; then sed -i "/^\[pool\]/a jail_socket = \"$sock\"" "$cfg"
    else printf '\n[pool]\njail_socket = "%s"\n' "$sock" >>"$cfg"; fi
  fi
  chown root:arbiter "$cfg"
  chmod 0640 "$cfg"
  chown arbiter:arbiter "$data"
  chmod 0750 "$data"
  find "$data" -mindepth 1 ! -path "$cfg" ! -user arbiter -exec chown -h arbiter:arbiter {} +
  echo "data: $data (arbiter, 0750); config: $cfg (root:arbiter, 0640); jail socket: $sock"
}

install_units() {
  local data=$1 unit
  for unit in arbiter.service arbiter-jail.service; do
    sed -e "s|@ROOT@|$here|g" -e "s|@DATA@|$data|g" "$here/scripts/systemd/$unit" >"/etc/systemd/system/$unit"
  done
}
