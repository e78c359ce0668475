#!/usr/bin/env bash
# A real CodeRunner check: CodeRunner's own jobesandbox and jobrunner classes, from the tree
# CODERUNNER_SRC names (a copy of github trampgeek/moodle-qtype_coderunner, never committed here), run
# questions of its built-in prototypes against a test server of this checkout (see
# docs/api/jobe.md, "CodeRunner's own code against Arbiter"). Without CODERUNNER_SRC it does nothing.
# Installs Debian's PHP (php-cli php-curl php-mbstring php-xml) when php is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ -z "${CODERUNNER_SRC:-}" ]]; then
  echo "check-coderunner: CODERUNNER_SRC is not set (a CodeRunner tree): nothing to check"
  exit 0
fi
if [[ ! -f "$CODERUNNER_SRC/classes/jobesandbox.php" || ! -f "$CODERUNNER_SRC/db/builtin_PROTOTYPES.xml" ]]; then
  echo "check-coderunner: $CODERUNNER_SRC is not a CodeRunner tree (no classes/jobesandbox.php)" >&2
  exit 2
fi
if ! php -r 'exit(function_exists("curl_init") && function_exists("mb_check_encoding") && class_exists("SimpleXMLElement") ? 0 : 1);' 2>/dev/null; then
  echo "check-coderunner: installing PHP (php-cli php-curl php-mbstring php-xml)"
  sudo=()
  [[ $(id -u) -ne 0 ]] && sudo=(sudo)
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q php-cli php-curl php-mbstring php-xml >/dev/null
fi
CODERUNNER_SRC="$(cd "$CODERUNNER_SRC" && pwd)" exec npx tsx scripts/coderunner/check.ts
