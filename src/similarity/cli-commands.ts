// `cli similarity`: a report computed right here (the same niced child process the server uses), stored
// like one asked for over the API (its page link works once the server runs), top pairs printed.
import { readFileSync } from 'node:fs'
import { CliExit, type CliCommands } from '../cli-types.ts'
import { isAppError } from '../errors.ts'
import { listClients, type Client } from '../clients/clients.ts'
import type { Outbox } from '../jobs/outbox.ts'
import { createLog } from '../log.ts'
import { loadLanguages } from '../languages.ts'
import type { Db } from '../storage/db.ts'
import { runReport } from './queue.ts'
import { getReport, reportReply, requestReport } from './reports.ts'
import type { SimilarityReport } from './schemas.ts'

function clientNamed(db: Db, which: string): Client {
  const matches = listClients(db).filter((c) => !c.revokedAt && (c.name === which || String(c.id) === which))
  if (!matches.length) throw new Error(`no client ${which} (see clients list)`)
  if (matches.length > 1) throw new Error(`several clients are named ${which}: give its id`)
  return matches[0]!
}

/** The pairs as a plain table for a terminal. */
export function formatReport(r: SimilarityReport, top: number): string {
  const head = `${r.status} · ${r.language} · ${r.submissions.length} submissions · ${r.pair_count ?? 0} pairs at or above ${(r.min_similarity * 100).toFixed(0)} %`
  if (r.status === 'failed') return `${head}\nerror: ${r.error}\n`
  const rows = r.pairs.slice(0, top).map((p, i) => `${String(i + 1).padStart(4)}  ${(p.similarity * 100).toFixed(1).padStart(5)} %  ${String(p.longest_fragment).padStart(5)}  ${p.left}  ${p.right}`)
  const more = r.pairs.length > top ? `\n… ${r.pairs.length - top} more (--json for all)` : ''
  return `${head}\n${rows.length ? `   #  similar  longest  left  right\n${rows.join('\n')}${more}` : 'no pair reaches the threshold'}\n${r.web_link}\n`
}

export const similarityCommands: CliCommands = {
  similarity: {
    summary: 'similarity --client NAME (--problem ID | --he-ids a,b,…) [--language L] [--min 0.5] [--template FILE] [--top 20] [--json]: a similarity report (Dolos), top pairs',
    options: {
      client: { type: 'string' },
      problem: { type: 'string' },
      'he-ids': { type: 'string' },
      language: { type: 'string' },
      min: { type: 'string' },
      template: { type: 'string' },
      top: { type: 'string' },
      json: { type: 'boolean' },
    },
    async run({ values }, ctx) {
      if (typeof values.client !== 'string') throw new Error('--client is required')
      if ((typeof values.problem === 'string') === (typeof values['he-ids'] === 'string')) throw new Error('give one of --problem ID and --he-ids a,b,…')
      const min = values.min === undefined ? undefined : Number(values.min)
      if (min !== undefined && !(min >= 0 && min <= 1)) throw new Error('--min must be a number from 0 to 1')
      const top = values.top === undefined ? 20 : Number(values.top)
      if (!Number.isInteger(top) || top < 1) throw new Error('--top must be a whole number >= 1')
      // the database stays open until the report is stored (withDb closes it once the promise settles)
      return ctx.withDb(async (db, config) => {
        // deliveries it queues (a callback) are sent by the server's outbox; nothing to wake here
        const outbox: Outbox = { start() {}, wake() {}, stop: async () => {}, inFlight: 0, looks: 0 }
        const deps = { config, db, now: () => new Date(), outbox, log: createLog({ svc: 'cli' }, 'warn'), languages: loadLanguages() }
        const client = clientNamed(db, values.client as string)
        let row
        try {
          row = requestReport(
            deps,
            client,
            {
              ...(typeof values.problem === 'string' && { problem_id: values.problem }),
              ...(typeof values['he-ids'] === 'string' && { he_ids: values['he-ids'].split(',').map((s) => s.trim()).filter(Boolean) }),
              ...(typeof values.language === 'string' && { language: values.language }),
              ...(min !== undefined && { min_similarity: min }),
              ...(typeof values.template === 'string' && { template: readFileSync(values.template, 'utf8') }),
            },
            'running'
          )
        } catch (err) {
          if (isAppError(err)) throw new Error(err.detail || err.code)
          throw err
        }
        // progress only on a terminal: a pipe or a log file gets the result alone
        const tty = process.stderr.isTTY
        await runReport(deps, row, undefined, (fraction, stage) => {
          if (tty) process.stderr.write(`\r\x1b[K${stage} ${Math.floor(fraction * 100)} %`)
        })
        if (tty) process.stderr.write('\r\x1b[K')
        const reply = reportReply(deps, getReport(deps, client, row.publicId))
        if (values.json) {
          process.stdout.write(JSON.stringify(reply, null, 2) + '\n')
        } else {
          process.stdout.write(formatReport(reply, top))
        }
        return new CliExit(reply.status === 'completed' ? 0 : 1)
      })
    },
  },
}
