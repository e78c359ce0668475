// CLI of problem packages: `problems import DIR|ZIP --client NAME` stores a Kattis/ICPC package as a
// problem of that client and prints the problem with the import's report (the API's reply);
// with the time limit computed from its accepted submissions when it gives none;
// `problems verify DIR|ZIP` runs its submissions in the jail (the worker graded submissions use) and
// prints the table, exit code 0 only when every submission got its folder's verdict.
import { readFileSync, statSync } from 'node:fs'
import { basename } from 'node:path'
import { CliExit, type CliCommands } from '../cli-types.ts'
import type { Config } from '../config.ts'
import { loadLanguages } from '../languages.ts'
import { decideTimeLimit, packageRunOptions, submissionFiles } from './package-runs.ts'
import { workerSettings } from '../jobs/pool.ts'
import { createJobRunner } from '../jobs/worker.ts'
import type { Job } from '../jobs/types.ts'
import { verifyPackage, verifyTable } from './verify.ts'
import { clientNamed } from '../problems/cli-commands.ts'
import { createProblem, problemReply } from '../problems/problems.ts'
import { checkValidatorCompiles, importPackage } from './import.ts'
import { readPackageDir, readPackageZip, type PackageFiles } from './package-files.ts'

/** A package from a folder or a zip, under the problems' caps. */
export async function readPackage(path: string, config: Config): Promise<PackageFiles> {
  const g = config.grading
  const caps = { maxFiles: 4 * g.max_tests + 4096, fileBytes: g.test_max_bytes, totalBytes: g.total_max_bytes }
  return statSync(path).isDirectory() ? readPackageDir(path, caps) : readPackageZip(readFileSync(path), caps)
}

export const packageCommands: CliCommands = {
  'problems import': {
    summary: 'problems import DIR|ZIP --client NAME: store a Kattis/ICPC problem package; prints its problem_id and what was imported and ignored',
    options: { client: { type: 'string' }, json: { type: 'boolean' } },
    async run({ values, positionals }, ctx) {
      const path = positionals[0]
      if (!path || typeof values.client !== 'string') throw new Error('usage: problems import DIR|ZIP --client NAME')
      const config = ctx.config()
      const pkg = await readPackage(path, config)
      const imported = importPackage(pkg, { fallbackName: basename(path).replace(/\.zip$/i, ''), maxTests: config.grading.max_tests })
      const clientId = ctx.withDb((db) => clientNamed(db, values.client as string).id)
      const runner = createJobRunner(workerSettings(config), `import-${process.pid}`)
      try {
        await checkValidatorCompiles(imported, (job) => runner.run(job), `client:${clientId}`)
        // no limit given: the accepted submissions run now, and the limit is kept with the problem
        await decideTimeLimit(imported, pkg.files, packageRunOptions(config, loadLanguages(), imported, pkg.files.has('domjudge-problem.ini'), (job) => runner.run({ ...job, cacheScope: `client:${clientId}` })))
      } finally {
        await runner.close()
      }
      return ctx.withDb((db) => {
        const client = clientNamed(db, values.client as string)
        const { problem } = createProblem({ config, db, languages: loadLanguages(), now: () => new Date() }, client, imported.problem)
        return { ...problemReply(problem), package: imported.report }
      })
    },
  },
}

/** A progress bar on a terminal (stderr), nothing otherwise. */
function progressBar(done: number, total: number, label: string) {
  if (!process.stderr.isTTY) return
  const width = 30
  const filled = total ? Math.round((done / total) * width) : width
  process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${label.slice(0, 40).padEnd(40)}${done === total ? '\n' : ''}`)
}

packageCommands['problems verify'] = {
  summary: 'problems verify DIR|ZIP [--json]: run every submission of a Kattis/ICPC package and check its verdict against its folder (exit 0 only when all do)',
  options: { json: { type: 'boolean' } },
  async run({ values, positionals }, ctx) {
    const path = positionals[0]
    if (!path) throw new Error('usage: problems verify DIR|ZIP [--json]')
    const config = ctx.config()
    const pkg = await readPackage(path, config)
    const imported = importPackage(pkg, { fallbackName: basename(path).replace(/\.zip$/i, ''), maxTests: config.grading.max_tests, verifyOnly: true })
    // as many submissions at once as the server's pool runs jobs (one jail slot each), so a submission
    // that waits out its wall limit does not hold up the others
    const lanes = Math.max(1, config.pool.size)
    const settings = workerSettings(config)
    const idle = Array.from({ length: lanes }, (_, i) => createJobRunner(settings, `verify-${process.pid}-${i}`))
    const runners = [...idle]
    const run = async (job: Job) => {
      const runner = idle.pop()
      if (!runner) throw new Error('verify: more runs at once than runners')
      try {
        return await runner.run(job)
      } finally {
        idle.push(runner)
      }
    }
    try {
      const report = await verifyPackage(imported, submissionFiles(pkg.files), {
        ...packageRunOptions(config, loadLanguages(), imported, pkg.files.has('domjudge-problem.ini'), run),
        parallel: lanes,
        onRow: (row, done, total) => progressBar(done, total, row.file),
      })
      process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : `${verifyTable(report)}\n`)
      return new CliExit(report.ok ? 0 : 1)
    } finally {
      await Promise.all(runners.map((r) => r.close()))
    }
  },
}
