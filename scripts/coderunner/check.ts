// The CodeRunner check's server side: starts a test server (own data directory and jail socket, as the
// e2e tests do), makes a client for the Moodle site and one whose quota is used up, then runs
// scripts/coderunner/check.php (CodeRunner's own classes from CODERUNNER_SRC) against it.
// Run through scripts/check-coderunner.sh.
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { startServer } from '../../src/testing/harness.ts'

const server = await startServer({ configToml: '[pool]\nsize = 2\n' })
let status = 1
try {
  const key = await server.createClient('moodle')
  const spent = await server.createClient('moodle-spent', 1)
  // the spent client's one run
  await fetch(`${server.url}/jobe/index.php/restapi/runs`, {
    method: 'POST',
    headers: { 'X-API-KEY': spent, 'Content-Type': 'application/json' },
    body: JSON.stringify({ run_spec: { language_id: 'python3', sourcecode: 'print(1)\n' } }),
  })
  const r = spawnSync('php', [join(import.meta.dirname, 'check.php')], {
    stdio: 'inherit',
    env: { ...process.env, JOBE_HOST: server.url, JOBE_APIKEY: key, JOBE_APIKEY_SPENT: spent },
  })
  status = r.status ?? 1
} finally {
  await server.stop()
  server.cleanup()
}
process.exit(status)
