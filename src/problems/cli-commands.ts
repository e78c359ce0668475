// CLI of problems: problems create | list | delete, for the admin or a grader on the host.
import { eq } from 'drizzle-orm'
import type { CliCommands } from '../cli-types.ts'
import { listClients, type Client } from '../clients/clients.ts'
import { CheckerSchema } from '../grading/checker-schema.ts'
import { readTestDir } from '../grading/test-dir.ts'
import { loadLanguages } from '../languages.ts'
import type { Db } from '../storage/db.ts'
import { problems } from '../storage/schema.ts'
import { createProblem, deleteProblem, listProblems, problemReply } from './problems.ts'


/** The live client of that name (or id). */
export function clientNamed(db: Db, which: string): Client {
  const matches = listClients(db).filter((c) => !c.revokedAt && (c.name === which || String(c.id) === which))
  if (!matches.length) throw new Error(`no client ${which} (see clients list)`)
  if (matches.length > 1) throw new Error(`several clients are named ${which}: give its id`)
  return matches[0]
}

function checkerOption(text: unknown) {
  if (typeof text !== 'string') return undefined
  let value: unknown = text
  if (text.trim().startsWith('{')) {
    try {
      value = JSON.parse(text)
    } catch {
      throw new Error('--checker is not valid JSON')
    }
  }
  const parsed = CheckerSchema.safeParse(value)
  if (!parsed.success) throw new Error('--checker must be exact, lines, tokens, unordered, {"type":"float",…} or {"type":"program",…}')
  return parsed.data
}

const json = { json: { type: 'boolean' as const } }

export const problemCommands: CliCommands = {
  'problems create': {
    summary: 'problems create --client NAME --name N --tests DIR [--checker C] [--time-limit S] [--memory-limit KB]: store a test set; prints its problem_id',
    options: { client: { type: 'string' }, name: { type: 'string' }, tests: { type: 'string' }, checker: { type: 'string' }, 'time-limit': { type: 'string' }, 'memory-limit': { type: 'string' }, ...json },
    async run({ values }, ctx) {
      if (typeof values.client !== 'string' || typeof values.name !== 'string' || typeof values.tests !== 'string') throw new Error('--client, --name and --tests are required')
      const tests = readTestDir(values.tests)
      const checker = checkerOption(values.checker)
      return ctx.withDb((db, config) => {
        const client = clientNamed(db, values.client as string)
        const { problem, tests: rows } = createProblem({ config, db, languages: loadLanguages(), now: () => new Date() }, client, {
          name: values.name as string,
          tests: tests.map((t) => ({ name: t.name, input: t.input, expected_output: t.expectedOutput })),
          checker,
          time_limit: values['time-limit'] === undefined ? undefined : Number(values['time-limit']),
          memory_limit: values['memory-limit'] === undefined ? undefined : Number(values['memory-limit']),
        })
        return problemReply(problem, rows)
      })
    },
  },
  'problems list': {
    summary: "problems list [--client NAME]: problems (one client's, or everyone's)",
    options: { client: { type: 'string' }, ...json },
    async run({ values }, ctx) {
      return ctx.withDb((db) => {
        if (typeof values.client === 'string') return listProblems({ db }, clientNamed(db, values.client)).map((p) => problemReply(p))
        return db.select().from(problems).all().map((p) => ({ client_id: p.clientId, ...problemReply(p) }))
      })
    },
  },
  'problems delete': {
    summary: 'problems delete PROBLEM_ID: deletes it and the test files no other problem uses',
    options: { ...json },
    async run({ positionals }, ctx) {
      const id = positionals[0]
      if (!id) throw new Error('usage: problems delete PROBLEM_ID')
      return ctx.withDb((db, config) => {
        const row = db.select().from(problems).where(eq(problems.publicId, id)).get()
        if (!row) throw new Error(`no problem ${id}`)
        deleteProblem({ db, config }, { id: row.clientId } as Client, id)
        return { problem_id: id, deleted: true }
      })
    },
  },
}
