// `cli similarity` run in this process with a CLI context over a test database (as cli.ts gives every
// command): it reads the config and the database through the context only; on a terminal it shows
// the progress on stderr (each stage, then cleared), elsewhere stderr stays silent.
import { afterEach, describe, expect, test, vi } from 'vitest'
import { CliExit, type CliContext } from '../cli-types.ts'
import { findClientBySecret } from '../clients/clients.ts'
import { acceptSubmission } from '../evaluation/submissions.ts'
import { similarityReports } from '../storage/schema.ts'
import { addClient, createTestDeps, testConfig, type TestDeps } from '../testing/evaluation.ts'
import { generateSubmissions } from '../testing/similarity-submissions.ts'
import { similarityCommands } from './cli-commands.ts'

let deps: TestDeps | undefined
const isTTY = Object.getOwnPropertyDescriptor(process.stderr, 'isTTY')
afterEach(async () => {
  vi.restoreAllMocks()
  if (isTTY) Object.defineProperty(process.stderr, 'isTTY', isTTY)
  else delete (process.stderr as { isTTY?: boolean }).isTTY
  await deps?.stop()
  deps = undefined
})

async function runCli(tty: boolean) {
  deps = createTestDeps({ config: testConfig({ similarity: { max_submissions: 50 } }), start: false })
  const client = findClientBySecret(deps.db, addClient(deps, { name: 'alice' }))!
  const { files } = generateSubmissions({ count: 6, seed: 11, copyShare: 0.2 })
  const heIds = files.map((f) => acceptSubmission(deps!, client, { api: 'v4', lang: 'PYTHON3', source: f.source }).publicId)
  const d = deps
  let opened = 0
  const ctx: CliContext = {
    config: () => d.config,
    withDb: (fn) => {
      opened++
      return fn(d.db, d.config)
    },
  }
  Object.defineProperty(process.stderr, 'isTTY', { value: tty, configurable: true, writable: true })
  let stdout = ''
  let stderr = ''
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true))
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true))
  const out = await similarityCommands.similarity!.run({ values: { client: 'alice', 'he-ids': heIds.join(','), min: '0' }, positionals: [] }, ctx)
  vi.restoreAllMocks()
  return { out, stdout, stderr, opened, heIds }
}

describe('cli similarity', () => {
  test('on a terminal: progress on stderr, each stage, cleared at the end; the report stored through the context', { timeout: 150_000 }, async () => {
    const { out, stdout, stderr, opened } = await runCli(true)
    expect(out).toEqual(new CliExit(0))
    expect(opened).toBe(1)
    expect(deps!.db.select().from(similarityReports).all()).toMatchObject([{ state: 'completed', submissionCount: 6 }])
    expect(stdout).toMatch(/^completed · python · 6 submissions · \d+ pairs at or above 0 %/)
    const lines = stderr.split('\r\x1b[K').filter(Boolean)
    for (const l of lines) expect(l).toMatch(/^(tokenizing|fingerprinting|comparing|fragments|done) \d+ %$/)
    expect(lines).toEqual(expect.arrayContaining(['fingerprinting 60 %', 'comparing 70 %', 'fragments 85 %']))
    // the line is cleared once done: the table below starts on a clean line
    expect(stderr.endsWith('\r\x1b[K')).toBe(true)
  })

  test('not on a terminal: nothing on stderr', { timeout: 150_000 }, async () => {
    const { out, stdout, stderr } = await runCli(false)
    expect(out).toEqual(new CliExit(0))
    expect(stdout).toMatch(/^completed · python/)
    expect(stderr).toBe('')
  })
})
