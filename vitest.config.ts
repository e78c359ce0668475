// The test tiers, as vitest projects: `npm run test:unit` runs the first alone (no jail, no real
// server, under a minute); `npm test` (scripts/test.sh) runs them all, one file at a time.
import { defineConfig } from 'vitest/config'

/** Tests that run programs in the real jail (nsjail, the supervisor, provisioned toolchains), provision, or start the jail daemon. */
const JAIL = [
  'scripts/provision.test.ts',
  'scripts/provision-rerun.test.ts',
  'src/languages.provisioned.test.ts',
  'src/jobs/worker.test.ts',
  'src/jobs/box-cleanup.test.ts',
  'src/jobs/pool-progress.test.ts',
  'src/jobe/check-and-run.test.ts',
  'src/jobs/languages-tle.test.ts',
  'src/jobs/language-tables.test.ts',
  'src/jobs/judge0-forms.test.ts',
  'src/jobs/languages-listing.test.ts',
  'src/jobs/compile-overrides.test.ts',
  'src/jobs/cli-commands.test.ts',
  'src/evaluation/cli-commands.test.ts',
  'src/evaluation/cli-grade.test.ts',
  'src/sandbox/run.test.ts',
  'src/sandbox/root-image.test.ts',
  'src/sandbox/supervisor.test.ts',
  'src/sandbox/dodges.test.ts',
  'src/sandbox/reuse.test.ts',
  'src/sandbox/net-counters.test.ts',
  'src/jobs/jail-daemon.test.ts',
  'src/jobs/job-spec.test.ts',
  'src/jobs/jail-shaped.test.ts',
  'src/packages/validators.test.ts',
  'src/packages/interactive.test.ts',
  'src/grading/build-run.test.ts',
  'src/packages/interactive-modes.test.ts',
  'src/sandbox-hosts/service-units.test.ts', // starts the jail daemon (idle: pool.size 0)
]
/** End-to-end tests that drive a real browser (Debian's chromium through playwright-core). */
const BROWSER = ['src/e2e/admin.e2e.test.ts', 'src/e2e/docs.e2e.test.ts', 'src/e2e/room-editor.e2e.test.ts', 'src/e2e/room.e2e.test.ts', 'src/e2e/web-link.e2e.test.ts']

/**
 * The real jail, servers and browsers take their time, more so under emulation (the cgroup v2 check):
 * the command line's --testTimeout/--hookTimeout do not reach a project, so the slow tiers say it here.
 */
const SLOW = { testTimeout: 120_000, hookTimeout: 300_000 }

export default defineConfig({
  test: {
    projects: [
      // src/testing/unit-tier-guard.ts fails a unit test that starts the jail, a server or the CLI (it belongs in a tier below)
      // two files at a time in npm test (scripts/test.sh): a CPU-bound unit test (upload-scan's sizes, 2.5 s
      // alone) can pass the default 5 s beside another file, and a timeout here only guards against a hang
      { extends: true, test: { name: 'unit', isolate: false, testTimeout: 30_000, include: ['src/**/*.test.ts', 'scripts/**/*.test.ts'], exclude: ['src/e2e/**', ...JAIL], setupFiles: ['src/testing/unit-tier-guard.ts'] } },
      { extends: true, test: { name: 'jail', include: JAIL, ...SLOW } },
      { extends: true, test: { name: 'e2e', include: ['src/e2e/**/*.test.ts'], exclude: BROWSER, ...SLOW } },
      { extends: true, test: { name: 'browser', include: BROWSER, ...SLOW } },
    ],
  },
})
