// Verifying problemtools' example packages with Arbiter (`cli problems verify`, real jail) and with
// problemtools' own `verifyproblem -p submissions` in turn on the same machine: each one's wall time per
// package and the ratio (target: Arbiter at most half of verifyproblem's), and whether the two verdicts
// agree on each submission both judged. Submissions verifyproblem could not judge here (a compiler it
// expects is missing or too old: the reason is its own) and those Arbiter does not run are listed.
// The examples come from problemtools' source package, pinned by version and SHA-256 as the e2e test
// pins it (cached outside the checkout). verifyproblem is VERIFYPROBLEM's command, else a venv of that
// same source package made in the cache (pip builds its C++ default validator and interactive runner
// with the host's g++). Its languages.yaml runs Python 3 as `pypy3` and JavaScript as `nodejs`: where
// the host lacks them, a folder of links to python3 and node goes first on its PATH (said in the output).
// ARBITER_TEST_SANDBOX_BIN=<prefix>/bin runs Arbiter with a supervisor built into a private prefix.
// Like with like: verifyproblem skips submissions whose compiler this host lacks, Arbiter judges them
// all; so each round also times Arbiter on a copy of the package holding only the submissions
// verifyproblem judged in the round before (`same set`), and the target is read on that ratio.
// Usage: npx tsx scripts/bench-packages.ts [--rounds 1] [--packages hello,different,oddecho,guess] [--json]
import { execa } from 'execa'
import { cpSync, existsSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { testSandboxToml } from '../src/testing/sandbox-bin.ts'
import { PROBLEMTOOLS_VERSION, problemtoolsCache, problemtoolsSdist } from '../src/testing/problemtools.ts'

const VERSION = PROBLEMTOOLS_VERSION
const ROOT = join(import.meta.dirname, '..')
const cache = problemtoolsCache

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '1' },
    packages: { type: 'string', default: 'hello,different,oddecho,guess' },
    json: { type: 'boolean', default: false },
  },
})
const ROUNDS = Math.max(1, Number(values.rounds))
const say = (s: string) => process.stderr.write(`${s}\n`)

const sdistFile = problemtoolsSdist

/** verifyproblem's command: VERIFYPROBLEM, else a venv of the pinned source package. */
async function verifyproblem(tarball: string): Promise<string> {
  if (process.env.VERIFYPROBLEM) return process.env.VERIFYPROBLEM
  const venv = join(cache, 'venv')
  const bin = join(venv, 'bin', 'verifyproblem')
  if (!existsSync(bin)) {
    say(`making a venv with problemtools ${VERSION} in ${venv} (builds its C++ parts with g++)`)
    await execa('python3', ['-m', 'venv', venv])
    // its output to stderr: stdout is the report
    const pip = execa(join(venv, 'bin', 'pip'), ['install', tarball], { timeout: 900_000 })
    pip.stdout?.pipe(process.stderr)
    pip.stderr?.pipe(process.stderr)
    await pip
  }
  return bin
}

/** Links for the interpreters languages.yaml names that the host lacks. */
async function shims(): Promise<{ dir: string; made: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'arbiter-bench-shims-'))
  const made: string[] = []
  for (const [name, target] of [['pypy3', 'python3'], ['nodejs', 'node']]) {
    if ((await execa('which', [name], { reject: false })).exitCode === 0) continue
    // the interpreter itself, not a version manager's shim (which would look for a command named as the link)
    const found = target === 'python3' ? await execa('python3', ['-c', 'import sys; print(sys.executable)'], { reject: false }) : await execa('which', [target], { reject: false })
    if (found.exitCode !== 0) continue
    symlinkSync(realpathSync(found.stdout.trim()), join(dir, name))
    made.push(`${name} → ${target}`)
  }
  return { dir, made }
}

type Verdicts = Map<string, string>

interface Side {
  wallSec: number
  verdicts: Verdicts
  /** Submission → why it was not judged. */
  skipped: Map<string, string>
  refused?: string
}

async function arbiter(dir: string): Promise<Side> {
  const data = mkdtempSync(join(tmpdir(), 'arbiter-bench-data-'))
  // a sandbox built into a private prefix, not installed yet (ARBITER_TEST_SANDBOX_BIN, as the tests take it)
  writeFileSync(join(data, 'config.toml'), testSandboxToml())
  const t0 = performance.now()
  const r = await execa(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'problems', 'verify', dir, '--json'], { cwd: ROOT, env: { ARBITER_DATA: data }, reject: false })
  const wallSec = (performance.now() - t0) / 1000
  rmSync(data, { recursive: true, force: true })
  const verdicts: Verdicts = new Map()
  const skipped = new Map<string, string>()
  if (!r.stdout.trim().startsWith('{')) return { wallSec, verdicts, skipped, refused: r.stderr.trim().split('\n').at(-1) }
  const report = JSON.parse(r.stdout) as { rows: { file: string; got?: string; score?: number; outcome: string; note?: string }[] }
  for (const row of report.rows) {
    const file = row.file.replace(/\/$/, '')
    if (row.got) verdicts.set(file, row.score !== undefined ? `${row.got} (${row.score})` : row.got)
    else skipped.set(file, `${row.outcome}${row.note ? `: ${row.note}` : ''}`)
  }
  return { wallSec, verdicts, skipped }
}

/**
 * A copy of the package without the submissions verifyproblem did not judge (a folder submission
 * goes whole), so Arbiter's time is taken on the same work; undefined when nothing was left out.
 */
function sameSet(dir: string, leftOut: string[]): string | undefined {
  if (!leftOut.length) return undefined
  const copy = join(mkdtempSync(join(tmpdir(), 'arbiter-bench-same-')), 'package')
  cpSync(dir, copy, { recursive: true })
  for (const file of leftOut) {
    const path = [join(copy, 'submissions', file), join(copy, file)].find((p) => existsSync(p))
    if (!path) throw new Error(`bench: ${file} is not in ${dir}'s submissions`)
    rmSync(path, { recursive: true, force: true })
  }
  return copy
}

async function theirs(command: string, dir: string, path: string): Promise<Side> {
  const cwd = mkdtempSync(join(tmpdir(), 'arbiter-bench-vp-'))
  const t0 = performance.now()
  const r = await execa(command, [dir, '-p', 'submissions'], { cwd, env: { PATH: path }, reject: false, all: true })
  const wallSec = (performance.now() - t0) / 1000
  rmSync(cwd, { recursive: true, force: true })
  const verdicts: Verdicts = new Map()
  const skipped = new Map<string, string>()
  const text = r.all ?? ''
  for (const m of text.matchAll(/^\s*(?:ERROR\s+)?(\S+) \(.+?\) (?:OK(?: with extra time)?:|got) (\w+)(?: \(([-\d.]+)\))?/gm)) verdicts.set(m[1], m[3] !== undefined ? `${m[2]} (${Number(m[3])})` : m[2])
  // `ERROR Compile error for FILE (LANG) (LANG: could not find compiler "x" …)`, or the compiler's first line on the next
  for (const m of text.matchAll(/^ERROR Compile error for (\S+) (.*)\n(?:[ \t]+(\S.*))?/gm))
    skipped.set(m[1], `compile error here: ${/could not find (?:compiler|runtime) "[^"]+"/.exec(m[2])?.[0] ?? m[3] ?? m[2]}`)
  return { wallSec, verdicts, skipped }
}

async function main() {
  const tarball = await sdistFile()
  const work = mkdtempSync(join(tmpdir(), 'arbiter-bench-packages-'))
  await execa('tar', ['xzf', tarball, '-C', work])
  const examples = join(work, `problemtools-${VERSION}`, 'examples')
  const command = await verifyproblem(tarball)
  const shim = await shims()
  const path = `${shim.dir}:${process.env.PATH ?? ''}`
  const rows: { package: string; arbiterSec: number; verifyproblemSec: number; ratio: number; arbiterSameSetSec: number; sameSetRatio: number; same: number; differ: string[]; bothJudged: number; leftOutByThem: string[]; notRunByArbiter: string[]; refused?: string }[] = []
  for (const name of values.packages!.split(',')) {
    const dir = join(examples, name)
    const ours: Side[] = []
    const them: Side[] = []
    const sameSetSec: number[] = []
    for (let round = 0; round < ROUNDS; round++) {
      // in turn, Arbiter first, each alone on the machine
      say(`${name}: Arbiter, round ${round + 1}`)
      const mine = await arbiter(dir)
      ours.push(mine)
      say(`${name}: verifyproblem, round ${round + 1}`)
      const their = await theirs(command, dir, path)
      them.push(their)
      const copy = sameSet(dir, [...mine.verdicts.keys()].filter((f) => !their.verdicts.has(f)))
      if (copy) {
        say(`${name}: Arbiter on the submissions verifyproblem judged, round ${round + 1}`)
        sameSetSec.push((await arbiter(copy)).wallSec)
        rmSync(join(copy, '..'), { recursive: true, force: true })
      } else sameSetSec.push(mine.wallSec)
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
    const a = ours.at(-1)!
    const t = them.at(-1)!
    const both = [...a.verdicts.keys()].filter((f) => t.verdicts.has(f))
    const differ = both.filter((f) => a.verdicts.get(f) !== t.verdicts.get(f)).map((f) => `${f}: Arbiter ${a.verdicts.get(f)}, verifyproblem ${t.verdicts.get(f)}`)
    const arbiterSec = median(ours.map((s) => s.wallSec))
    const verifyproblemSec = median(them.map((s) => s.wallSec))
    rows.push({
      package: name,
      arbiterSec,
      verifyproblemSec,
      ratio: arbiterSec / verifyproblemSec,
      arbiterSameSetSec: median(sameSetSec),
      sameSetRatio: median(sameSetSec) / verifyproblemSec,
      bothJudged: both.length,
      same: both.length - differ.length,
      differ,
      leftOutByThem: [...a.verdicts.keys()].filter((f) => !t.verdicts.has(f)).map((f) => `${f} (${t.skipped.get(f) ?? 'not judged by verifyproblem'})`),
      notRunByArbiter: [...a.skipped].map(([f, why]) => `${f} (${why})`),
      ...(a.refused && { refused: a.refused }),
    })
  }
  rmSync(work, { recursive: true, force: true })
  rmSync(shim.dir, { recursive: true, force: true })
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ version: VERSION, rounds: ROUNDS, shims: shim.made, rows }, null, 2)}\n`)
    return
  }
  const out: string[] = [`problemtools ${VERSION} verifyproblem -p submissions vs Arbiter problems verify, wall seconds, ${ROUNDS} round(s), median${shim.made.length ? `; verifyproblem's PATH: ${shim.made.join(', ')}` : ''}`]
  out.push(`${'package'.padEnd(10)} ${'Arbiter'.padStart(8)} ${'verifyproblem'.padStart(13)} ${'ratio'.padStart(6)} ${'same set'.padStart(9)} ${'ratio'.padStart(6)}  verdicts`)
  for (const r of rows) {
    if (r.refused) {
      out.push(`${r.package.padEnd(10)} ${r.arbiterSec.toFixed(1).padStart(8)} ${r.verifyproblemSec.toFixed(1).padStart(13)} ${'-'.padStart(6)} ${'-'.padStart(9)} ${'-'.padStart(6)}  Arbiter refuses it: ${r.refused}`)
      continue
    }
    const target = r.sameSetRatio <= 0.5 ? 'same set within the target (≤ 0.5)' : 'same set over the target (≤ 0.5)'
    out.push(`${r.package.padEnd(10)} ${r.arbiterSec.toFixed(1).padStart(8)} ${r.verifyproblemSec.toFixed(1).padStart(13)} ${r.ratio.toFixed(2).padStart(6)} ${r.arbiterSameSetSec.toFixed(1).padStart(9)} ${r.sameSetRatio.toFixed(2).padStart(6)}  ${r.same} of ${r.bothJudged} judged by both agree; ${target}`)
    for (const d of r.differ) out.push(`    differ: ${d}`)
    for (const l of r.leftOutByThem) out.push(`    judged by Arbiter only: ${l}`)
    for (const l of r.notRunByArbiter) out.push(`    not run by Arbiter: ${l}`)
  }
  process.stdout.write(`${out.join('\n')}\n`)
}

await main()
