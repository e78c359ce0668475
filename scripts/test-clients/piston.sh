# Piston clients (src/e2e/piston.e2e.test.ts): piston-client from npm, aiopyston and piston-rspy from PyPI.
pip_pinned piston aiopyston==1.2.1 piston-rspy==0.4.3

# npm_pinned NAME PKG@VER…: installs the pinned npm packages into $ARBITER_TEST_CLIENTS/npm unless the same set is recorded
npm_pinned() {
  local name=$1; shift
  local dir=$ARBITER_TEST_CLIENTS/npm stamp want
  stamp=$dir/.arbiter-$name
  want=$(printf '%s\n' "$@" | sha256sum | cut -c1-16)
  if [ "$(cat "$stamp" 2>/dev/null || true)" = "$want" ] && [ -d "$dir/node_modules" ]; then
    echo "$name npm clients current"
    return 0
  fi
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "$@"
  echo "$want" >"$stamp"
  echo "$name npm clients installed: $*"
}
npm_pinned piston piston-client@1.0.2
