// Test helpers for the evaluation area: hand-made languages, a config, and the one TestDeps of every
// area's tests: deps on an in-memory database with a fake pool, a dispatcher, an outbox whose sends are
// captured, and a clock the test can move.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'
import { parseConfig, type Config } from '../config.ts'
import { AppError } from '../errors.ts'
import type { Deps } from '../deps.ts'
import { createFakePool, type FakePool } from './fake-pool.ts'
import { createOutbox, type OutboxRow, type Sender } from '../jobs/outbox.ts'
import { loadLanguages, rootPath, stampPath, type Language } from '../languages.ts'
import { silentLog } from '../log.ts'
import { openMemoryDb } from '../storage/db.ts'
import { createClient } from '../clients/clients.ts'
import { createDispatcher } from '../evaluation/dispatcher.ts'
// test wiring: the registry main.ts builds (the core itself imports no protocol)
import { createProtocols } from '../protocols.ts'
import type { Protocols } from '../evaluation/protocols.ts'

// what each API calls a fake language is what it calls the real one: the names come from the manifest
const manifest = loadLanguages()
const apiNames = (code: string): Pick<Language, 'judge0' | 'piston' | 'jobe' | 'similarity'> => {
  const real = manifest.get(code)
  if (!real) return { judge0: [], jobe: code.toLowerCase() }
  return { judge0: real.judge0, jobe: real.jobe, ...(real.piston && { piston: real.piston }), ...(real.similarity && { similarity: real.similarity }) }
}

const lang = (code: string, name: string, aliases: string[] = [], compiled = false): Language => ({
  ...apiNames(code),
  code,
  aliases,
  name,
  toolchain: 'test',
  root: 'trixie',
  packages: ['test'],
  sourceFile: 'main',
  ...(compiled ? { compile: ['cc', 'main'] } : {}),
  run: ['./main'],
  version: ['cc', '--version'],
  versionPattern: '(\\d+)',
  env: {},
  compileLimits: { timeSec: 10, memoryKb: 1 << 20, processes: 64 },
  runMemoryHeadroomKb: 0,
  prepare: [],
  artifacts: [],
  selftest: '',
  selftestError: '',
})

export function testLanguages(): Map<string, Language> {
  const list = [
    lang('C', 'C (gcc)', [], true),
    lang('CPP', 'C++ (g++)', ['C++'], true),
    lang('CPP11', 'C++11', ['C++11'], true),
    lang('CPP17', 'C++17', ['C++17'], true),
    lang('CSHARP', 'C# (mono)', ['C#', 'CS'], true),
    lang('JAVA', 'Java 8', [], true),
    lang('JAVA8', 'Java 8', [], true),
    lang('JAVASCRIPT', 'JavaScript (Node.js)', ['JS']),
    lang('JAVASCRIPT_NODE', 'JavaScript (Node.js)', ['NODE']),
    lang('PYTHON', 'Python 2.7', ['PYTHON2']),
    lang('PYTHON3', 'Python 3', ['PY3']),
  ]
  return new Map(list.map((l) => [l.code, l]))
}

/** Makes `langs` count as provisioned in `dir` (a root with usr/bin and the provisioner's stamps), as isProvisioned reads it. */
export function fakeProvision(dir: string, langs: Iterable<Language>): void {
  for (const l of langs) {
    mkdirSync(join(rootPath(dir, l.root), 'usr', 'bin'), { recursive: true })
    const stamp = stampPath(dir, l.root, l.toolchain)
    mkdirSync(join(stamp, '..'), { recursive: true })
    writeFileSync(stamp, JSON.stringify({ toolchain: l.toolchain, root: l.root, packages: l.packages, prepareKey: '', provisionedAt: new Date().toISOString() }))
  }
}

/** The AppError fn throws (anything else is rethrown; not throwing fails the test). */
export function thrownAppError(fn: () => unknown): AppError {
  try {
    fn()
  } catch (e) {
    if (e instanceof AppError) return e
    throw e
  }
  throw new Error('did not throw')
}

const madeDirs: string[] = []
afterAll(() => {
  for (const d of madeDirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

/** A temporary directory, removed after the test file. */
export function tempDir(prefix = 'arbiter-test-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix))
  madeDirs.push(d)
  return d
}

let provisioned: string | undefined
/** A toolchains directory in which every language of testLanguages() is provisioned (one per test file). */
export function provisionedToolchains(): string {
  if (!provisioned) fakeProvision((provisioned = tempDir('arbiter-toolchains-')), testLanguages().values())
  return provisioned
}
afterAll(() => void (provisioned = undefined))

// a data directory of this test process's own: the core stores a job's files there (storage/payloads.ts),
// and a dispatcher's start sweeps what its own database does not name
let unitDataDir: string | undefined
const dataDirForTests = () => {
  if (!unitDataDir) {
    const dir = (unitDataDir = mkdtempSync(join(tmpdir(), 'arbiter-unit-data-')))
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
  }
  return unitDataDir
}

/** The test config: test languages provisioned (paths.toolchains) unless `raw.paths` says otherwise. */
export function testConfig(raw: Record<string, Record<string, unknown>> = {}): Config {
  return parseConfig(
    {
      ...raw,
      server: { public_url: 'https://judge.example.com/', ...raw.server },
      pool: { size: 2, ...raw.pool },
      paths: { toolchains: provisionedToolchains(), ...raw.paths },
    },
    {},
    dataDirForTests()
  )
}

export interface TestDeps extends Deps {
  pool: FakePool
  /** Outbox rows handed to the (fake) callback sender, in order. */
  sent: OutboxRow[]
  stop(): Promise<void>
  /** Moves the clock by ms. */
  advance(ms: number): void
  /** Stops the clock at d (it stays there until moved). */
  setNow(d: Date): void
}

export interface TestDepsOptions {
  pool?: FakePool
  config?: Config
  senders?: Record<string, Sender>
  /** false: the dispatcher and the outbox are built but never started. */
  start?: boolean
  protocols?: Protocols
  languages?: Map<string, Language>
  /** A stopped clock at this time; absent: the real time (plus whatever advance() adds). */
  now?: Date
}

export function createTestDeps(opts: TestDepsOptions = {}): TestDeps {
  const config = opts.config ?? testConfig()
  const pool = opts.pool ?? createFakePool({ size: config.pool.size })
  let stopped = opts.now && new Date(opts.now)
  let offsetMs = 0
  const now = () => (stopped ? new Date(stopped) : new Date(Date.now() + offsetMs))
  const base = { config, db: openMemoryDb(), log: silentLog(), languages: opts.languages ?? testLanguages(), pool, now, protocols: opts.protocols ?? createProtocols() }
  const sent: OutboxRow[] = []
  const outbox = createOutbox(base, opts.senders ?? { callback: async (row) => void sent.push(row) })
  const dispatcher = createDispatcher({ ...base, outbox })
  const deps: TestDeps = {
    ...base,
    outbox,
    dispatcher,
    sent,
    async stop() {
      await dispatcher.stop(1000)
      await outbox.stop()
    },
    advance(ms) {
      if (stopped) stopped = new Date(stopped.getTime() + ms)
      else offsetMs += ms
    },
    setNow(d) {
      stopped = new Date(d)
    },
  }
  if (opts.start !== false) {
    dispatcher.start()
    outbox.start()
  }
  return deps
}

/** A registered client; returns its secret. */
export function addClient(deps: Pick<Deps, 'db'>, opts: { name?: string; quota?: number } = {}): string {
  return createClient(deps.db, new Date(), { name: opts.name ?? 'test', quota: opts.quota }).secret
}

/** Resolves when cond() holds, checking every few ms (tests only). */
export async function until(cond: () => boolean, timeoutMs = 3000): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 5))
  }
}

/** A reply's JSON, untyped: the tests check its shape themselves. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const json = (r: Response): Promise<any> => r.json()
