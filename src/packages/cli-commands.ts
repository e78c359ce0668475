// CLI of problem packages: `problems import DIR|ZIP --client NAME` stores a Kattis/ICPC package as a
// problem of that client and prints the problem with the import's report (the API's reply).
import { readFileSync, statSync } from 'node:fs'
import { basename } from 'node:path'
import type { CliCommands } from '../cli-types.ts'
import type { Config } from '../config.ts'
import { loadLanguages } from '../languages.ts'
import { clientNamed } from '../problems/cli-commands.ts'
import { createProblem, problemReply } from '../problems/problems.ts'
import { importPackage } from './import.ts'
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
      return ctx.withDb((db) => {
        const client = clientNamed(db, values.client as string)
        const { problem } = createProblem({ config, db, languages: loadLanguages(), now: () => new Date() }, client, imported.problem)
        return { ...problemReply(problem), package: imported.report }
      })
    },
  },
}
