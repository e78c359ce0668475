// Provisions the toolchain roots: debootstraps one Debian root per suite, installs the packages the
// requested languages need, copies the helper scripts, runs prepare steps and records versions.
// Idempotent and incremental: a stamp per (root, toolchain) lets a re-run skip what is done.
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { loadConfig } from '../src/config.ts'
import { ensureMountPoints } from '../src/sandbox/mount-points.ts'
import { rootImagePath, rootMountPoint } from '../src/sandbox/root-image.ts'
import { artifactName, ensureArtifacts, installArtifacts } from './artifacts.ts'
import {
  type Artifact,
  BASE_ENV,
  loadLanguages,
  readStamp,
  resolveLanguage,
  rootPath,
  stampPath,
  type Language,
  type Stamp,
  type VersionRecord,
  versionsFile,
} from '../src/languages.ts'

const HELPERS_DIR = join(import.meta.dirname, '..', 'toolchains', 'bin')
/** Where the helper scripts land inside every root (read-only at run time). */
export const ROOT_HELPERS = '/usr/local/lib/arbiter'
const APT_ENV = { ...BASE_ENV, HOME: '/root', DEBIAN_FRONTEND: 'noninteractive', LC_ALL: 'C.UTF-8' }
// prettier-ignore
const APT_OPTS = [
  '-y', '--no-install-recommends',
  '-o', 'Dpkg::Use-Pty=0',
  '-o', 'APT::Color=0',
  '-o', 'Dpkg::Options::=--force-confdef',
  '-o', 'Dpkg::Options::=--force-confold',
]

/**
 * Inside a root, dpkg skips its fsync before each unpacked file's rename (most of an install's time
 * on this kind of disk): the root is synced once when the install ends (syncfs), and an install the
 * machine's restart interrupted rebuilds the root (installMarker), so no stamp ever stands for files
 * that were only in the page cache.
 */
const ROOT_APT_OPTS = [...APT_OPTS, '-o', 'Dpkg::Options::=--force-unsafe-io']

/** Written (and synced) before a root's install, removed after the root is synced: the boot it began in. */
export const installMarker = (dir: string, suite: string) => stampPath(dir, suite, '.installing')
const bootId = () => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()

/**
 * An install the machine's restart interrupted: files dpkg unpacked without fsync may be empty while
 * its database says them installed. An interrupted install of this boot left them in the page cache:
 * `dpkg --configure -a` finishes it, as before.
 */
export function interruptedByRestart(dir: string, suite: string): boolean {
  try {
    return JSON.parse(readFileSync(installMarker(dir, suite), 'utf8')).bootId !== bootId()
  } catch {
    return false
  }
}

// ---------- output ----------

const started = Date.now()

export function formatElapsed(ms: number): string {
  const s = Math.floor(ms / 1000)
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`
}

function say(msg: string): void {
  process.stdout.write(`[${formatElapsed(Date.now() - started).padStart(6)}] ${msg}\n`)
}

// ---------- running commands ----------

interface RunOptions {
  env?: Record<string, string>
  /** print each output line with this prefix; otherwise output is collected only */
  stream?: string
  /** also say "still <what>" every 20 s */
  what?: string
}

/** Spawns argv (no shell), streams or collects its output, resolves with exit code and output. */
function run(argv: string[], opts: RunOptions = {}): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), {
      env: opts.env ?? { ...BASE_ENV },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const chunks: string[] = []
    const onLine = (line: string) => {
      chunks.push(line)
      if (opts.stream !== undefined && line.trim()) say(`${opts.stream}${line}`)
    }
    createInterface({ input: child.stdout }).on('line', onLine)
    createInterface({ input: child.stderr }).on('line', onLine)
    const t0 = Date.now()
    const ticker = opts.what
      ? setInterval(() => say(`… still ${opts.what} (${formatElapsed(Date.now() - t0)})`), 20_000)
      : undefined
    child.on('error', (err) => {
      clearInterval(ticker)
      reject(err)
    })
    child.on('close', (code, signal) => {
      clearInterval(ticker)
      resolve({ code: code ?? (signal ? 128 : 1), output: chunks.join('\n') })
    })
  })
}

async function mustRun(argv: string[], opts: RunOptions = {}): Promise<string> {
  const { code, output } = await run(argv, opts)
  if (code !== 0) {
    const tail = opts.stream === undefined ? `\n${output.split('\n').slice(-30).join('\n')}` : ''
    throw new Error(`${argv.join(' ')} exited ${code}${tail}`)
  }
  return output
}

// ---------- the host's apt mirror ----------

export interface Mirror {
  /** the Debian archive, e.g. http://<mirror>/debian */
  archive: string
  /** the security archive, when the host uses one */
  security?: string
  /** whether the host follows <suite>-updates */
  updates: boolean
}

interface SourceEntry {
  types: string[]
  uris: string[]
  suites: string[]
}

/** deb822 (.sources) stanzas: Types / URIs / Suites fields, stanzas separated by blank lines. */
export function parseDeb822(text: string): SourceEntry[] {
  const entries: SourceEntry[] = []
  for (const stanza of text.split(/\n\s*\n/)) {
    const fields: Record<string, string> = {}
    let last = ''
    for (const line of stanza.split('\n')) {
      if (line.startsWith('#') || !line.trim()) continue
      if (/^\s/.test(line) && last) fields[last] += ` ${line.trim()}`
      else {
        const m = /^([\w-]+):\s*(.*)$/.exec(line)
        if (m) fields[(last = m[1].toLowerCase())] = m[2]
      }
    }
    if (fields.enabled?.trim().toLowerCase() === 'no') continue
    const words = (k: string) => (fields[k] ?? '').split(/\s+/).filter(Boolean)
    if (fields.uris)
      entries.push({ types: words('types'), uris: words('uris'), suites: words('suites') })
  }
  return entries
}

/** One-line format: `deb [options] URI suite component…`. */
export function parseOneLine(text: string): SourceEntry[] {
  const entries: SourceEntry[] = []
  for (const raw of text.split('\n')) {
    const line = raw
      .replace(/#.*$/, '')
      .replace(/\[[^\]]*\]/, ' ')
      .trim()
    const [type, uri, suite] = line.split(/\s+/)
    if (type && uri && suite) entries.push({ types: [type], uris: [uri], suites: [suite] })
  }
  return entries
}

/** The Debian archive and security URIs the host's apt uses. */
export function mirrorFromEntries(entries: SourceEntry[]): Mirror {
  const debs = entries.filter((e) => e.types.includes('deb'))
  const pick = (test: (suite: string) => boolean) =>
    debs.find((e) => e.suites.some(test))?.uris[0]?.replace(/\/+$/, '')
  const archive = pick((s) => /^[a-z]+$/.test(s))
  if (!archive)
    throw new Error('no Debian archive found in the host apt sources (/etc/apt/sources.list*)')
  const security = pick((s) => s.endsWith('-security') || s.endsWith('/updates'))
  const updates = debs.some((e) => e.suites.some((s) => s.endsWith('-updates')))
  return { archive, ...(security ? { security } : {}), updates }
}

export function readHostMirror(aptDir = '/etc/apt'): Mirror {
  const entries: SourceEntry[] = []
  const list = join(aptDir, 'sources.list')
  if (existsSync(list)) entries.push(...parseOneLine(readFileSync(list, 'utf8')))
  const dropIns = join(aptDir, 'sources.list.d')
  for (const f of existsSync(dropIns) ? readdirSync(dropIns).sort() : []) {
    const text = readFileSync(join(dropIns, f), 'utf8')
    if (f.endsWith('.sources')) entries.push(...parseDeb822(text))
    else if (f.endsWith('.list')) entries.push(...parseOneLine(text))
  }
  return mirrorFromEntries(entries)
}

/** The sources.list written into a root for its suite. */
export function rootSourcesList(mirror: Mirror, suite: string): string {
  const lines = [`deb ${mirror.archive} ${suite} main`]
  if (mirror.updates) lines.push(`deb ${mirror.archive} ${suite}-updates main`)
  if (mirror.security) lines.push(`deb ${mirror.security} ${suite}-security main`)
  return lines.join('\n') + '\n'
}

// ---------- mounts (always undone) ----------

const mounted = new Set<string>()

async function unmountAll(): Promise<void> {
  for (const dir of [...mounted]) {
    if ((await run(['umount', dir])).code !== 0) await run(['umount', '-l', dir])
    mounted.delete(dir)
  }
}

/** Runs fn with /proc mounted in the root; unmounts afterwards whatever happens. */
async function withProc<T>(root: string, fn: () => Promise<T>): Promise<T> {
  const proc = join(root, 'proc')
  await mustRun(['mount', '-t', 'proc', 'proc', proc])
  mounted.add(proc)
  try {
    return await fn()
  } finally {
    if ((await run(['umount', proc])).code !== 0) await run(['umount', '-l', proc])
    mounted.delete(proc)
  }
}

function installSignalCleanup(): void {
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      say(`${sig}: unmounting and stopping`)
      void unmountAll().finally(() => process.exit(130))
    })
  }
}

// ---------- lock ----------

function takeLock(dir: string): () => void {
  const lock = join(dir, '.provision.lock')
  try {
    closeSync(openSync(lock, 'wx'))
  } catch {
    const pid = Number(readFileSync(lock, 'utf8'))
    if (pid && isAlive(pid)) throw new Error(`another provisioning (pid ${pid}) holds ${lock}`)
  }
  writeFileSync(lock, String(process.pid))
  return () => rmSync(lock, { force: true })
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

// ---------- root images ----------

/**
 * What the root's image was built from: its stamps, the helpers synced into it and dpkg's status
 * (it changes with every package installed or removed). A different key means a new image.
 */
function imageKey(dir: string, suite: string): string {
  const root = rootPath(dir, suite)
  const hash = createHash('sha256')
  const files = (d: string): string[] =>
    existsSync(d)
      ? readdirSync(d, { withFileTypes: true })
          .sort((a, b) => a.name.localeCompare(b.name))
          .flatMap((e) => (e.isDirectory() ? files(join(d, e.name)) : e.isFile() ? [join(d, e.name)] : []))
      : []
  for (const f of [...files(join(dir, 'stamps', suite)), ...files(join(root, ROOT_HELPERS.slice(1)))]) {
    hash.update(f).update(readFileSync(f))
  }
  const status = join(root, 'var/lib/dpkg/status')
  hash.update(String(statSync(status).mtimeMs)).update(String(statSync(status).size))
  return hash.digest('hex')
}

/**
 * Packs the root into a read-only squashfs image (lz4: ~25 s and 2.7 GB for trixie's 5.9 GB here)
 * unless the image is of the same root already. Jobs run on the image, loop-mounted by the
 * supervisor, so a jail's mountinfo names no host folder (sandbox/README.md). A replaced image
 * is unmounted (lazily: running jobs keep the old one), and the next job mounts the new one.
 */
async function ensureImage(dir: string, suite: string): Promise<void> {
  const image = rootImagePath(dir, suite)
  const keyFile = `${image}.key`
  const key = imageKey(dir, suite)
  if (existsSync(image) && existsSync(keyFile) && readFileSync(keyFile, 'utf8') === key) return
  const t0 = Date.now()
  mkdirSync(dirname(image), { recursive: true })
  const next = `${image}.new`
  rmSync(next, { force: true })
  await mustRun(['mksquashfs', rootPath(dir, suite), next, '-comp', 'lz4', '-noappend', '-one-file-system', '-quiet', '-no-progress'])
  renameSync(next, image)
  writeFileSync(keyFile, key)
  const mountPoint = rootMountPoint(suite, image)
  if (mountsUnder(mountPoint, readFileSync('/proc/self/mounts', 'utf8')).includes(mountPoint)) await run(['umount', '-l', mountPoint])
  say(`${suite}: image ${image} (${(statSync(image).size / 2 ** 30).toFixed(1)} GiB) in ${formatElapsed(Date.now() - t0)}`)
}

// ---------- base roots ----------

async function ensureHostTool(command: string, pkg: string): Promise<void> {
  if ((await run(['sh', '-c', 'command -v "$1"', 'sh', command])).code === 0) return
  say(`installing ${pkg} on the host`)
  const env = { ...APT_ENV }
  await mustRun(['apt-get', 'update'], { env, stream: '  apt: ' })
  await mustRun(['apt-get', 'install', ...APT_OPTS, pkg], { env, stream: '  apt: ' })
}

/** Mount points at or under dir, deepest first, from the kernel's table. */
export function mountsUnder(dir: string, table: string): string[] {
  const unescape = (p: string) =>
    p.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)))
  return table
    .split('\n')
    .map((line) => unescape(line.split(' ')[1] ?? ''))
    .filter((m) => m === dir || m.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length)
}

/**
 * rm -rf that first unmounts whatever an interrupted run left mounted inside (debootstrap mounts
 * /proc and may bind the host's /dev): deleting through a bind mount would delete host files.
 */
async function removeTree(dir: string): Promise<void> {
  if (!existsSync(dir)) return
  for (const m of mountsUnder(dir, readFileSync('/proc/self/mounts', 'utf8'))) {
    say(`unmounting leftover ${m}`)
    if ((await run(['umount', m])).code !== 0) await run(['umount', '-l', m])
  }
  if (mountsUnder(dir, readFileSync('/proc/self/mounts', 'utf8')).length > 0) {
    throw new Error(`${dir} still has mounts inside; not deleting it`)
  }
  rmSync(dir, { recursive: true, force: true })
}

/** Debootstraps a minbase root for the suite unless one is there; writes its sources and policy-rc.d. */
async function ensureBase(dir: string, suite: string, mirror: Mirror): Promise<void> {
  const root = rootPath(dir, suite)
  const baseStamp = stampPath(dir, suite, '.base')
  let created = false
  const restarted = interruptedByRestart(dir, suite)
  if (restarted) say(`${suite}: its last install was cut by a restart of the machine: the root is built again`)
  if (restarted || !existsSync(baseStamp) || !existsSync(join(root, 'usr', 'bin'))) {
    const partial = join(dir, `.${suite}.partial`)
    await removeTree(partial)
    say(`debootstrap ${suite} (minbase) into ${root}`)
    await mustRun(
      ['debootstrap', '--variant=minbase', '--components=main', suite, partial, mirror.archive],
      { env: { ...APT_ENV }, stream: `  ${suite}: `, what: `debootstrapping ${suite}` }
    )
    await removeTree(root)
    renameSync(partial, root)
    // a new root holds none of the toolchains the old stamps describe
    rmSync(dirname(baseStamp), { recursive: true, force: true })
    created = true
  }
  writeIfChanged(join(root, 'etc', 'apt', 'sources.list'), rootSourcesList(mirror, suite))
  // Forbid maintainer scripts from starting services inside the root
  writeIfChanged(join(root, 'usr', 'sbin', 'policy-rc.d'), '#!/bin/sh\nexit 101\n', 0o755)
  // apt inside the root resolves the mirror with the host's resolver
  if (existsSync('/etc/resolv.conf'))
    writeIfChanged(join(root, 'etc', 'resolv.conf'), readFileSync('/etc/resolv.conf'))
  // the jail mounts /work, /tmp, /proc, its init… over these; the root is read-only then
  ensureMountPoints(root)
  if (created)
    writeJson(baseStamp, {
      root: suite,
      mirror: mirror.archive,
      provisionedAt: new Date().toISOString(),
    })
}

/** Writes (and chmods) only what differs, so that a re-run leaves the root untouched. */
function writeIfChanged(file: string, content: string | Buffer, mode?: number): boolean {
  const same = existsSync(file) && readFileSync(file).equals(Buffer.from(content))
  if (!same) {
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, content)
  }
  if (mode !== undefined && (statSync(file).mode & 0o7777) !== mode) chmodSync(file, mode)
  return !same
}

function writeJson(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, JSON.stringify(value, null, 2) + '\n')
}

/** Copies toolchains/bin/* to /usr/local/lib/arbiter/ in the root; returns the names changed. */
function syncHelpers(root: string): string[] {
  const changed = []
  for (const name of readdirSync(HELPERS_DIR).sort()) {
    if (
      writeIfChanged(join(root, ROOT_HELPERS, name), readFileSync(join(HELPERS_DIR, name)), 0o755)
    ) {
      changed.push(name)
    }
  }
  return changed
}

// ---------- toolchains ----------

/** What one toolchain needs in one root, gathered from the requested languages. */
export interface ToolchainPlan {
  toolchain: string
  root: string
  packages: string[]
  prepare: string[][]
  /** pinned registry files (npm, Maven) laid into the root before prepare */
  artifacts: Artifact[]
  codes: string[]
}

export function planToolchains(langs: Language[]): ToolchainPlan[] {
  const plans = new Map<string, ToolchainPlan>()
  for (const lang of langs) {
    const key = `${lang.root}/${lang.toolchain}`
    const plan = plans.get(key) ?? {
      toolchain: lang.toolchain,
      root: lang.root,
      packages: [],
      prepare: [],
      artifacts: [],
      codes: [],
    }
    plan.packages = [...new Set([...plan.packages, ...lang.packages])].sort()
    for (const step of lang.prepare) {
      if (!plan.prepare.some((s) => s.join('\0') === step.join('\0'))) plan.prepare.push(step)
    }
    for (const a of lang.artifacts) {
      if (!plan.artifacts.some((b) => JSON.stringify(b) === JSON.stringify(a))) plan.artifacts.push(a)
    }
    plan.codes.push(lang.code)
    plans.set(key, plan)
  }
  return [...plans.values()].sort((a, b) =>
    `${a.root}/${a.toolchain}`.localeCompare(`${b.root}/${b.toolchain}`)
  )
}

/**
 * Hash of the prepare argv, of the helper files they name and of the pinned artifacts: a change
 * reruns prepare (and lays the artifacts anew). No artifacts hash as before they existed.
 */
export function prepareKey(prepare: string[][], helpersDir = HELPERS_DIR, artifacts: Artifact[] = []): string {
  const hash = createHash('sha256').update(JSON.stringify(prepare))
  if (artifacts.length) hash.update(JSON.stringify(artifacts))
  // the helper a step runs, and the helpers' files it names (a source it compiles): only paths right in
  // ROOT_HELPERS, so the steps named before files were hashed keep their keys
  for (const step of prepare) {
    for (const arg of step) {
      const helper = join(helpersDir, basename(arg))
      if (dirname(arg) === ROOT_HELPERS && existsSync(helper))
        hash.update(readFileSync(helper))
    }
  }
  return hash.digest('hex').slice(0, 16)
}

/** The plan's packages its toolchain's stamp does not record. */
export function missingPackages(stamp: Stamp | undefined, plan: ToolchainPlan): string[] {
  return plan.packages.filter((p) => !stamp?.packages.includes(p))
}

/** What a run does in one root: the toolchains to (re)do and the packages to install. */
export interface RootRun {
  pending: ToolchainPlan[]
  install: string[]
}

/**
 * Decides a run from the root's stamps: a toolchain is pending when its stamp lacks a package or
 * its prepare steps changed; the run installs the packages pending toolchains lack, each once, less
 * those another toolchain's stamp shows are in the root already.
 */
export function planRootRun(
  plans: ToolchainPlan[],
  stamps: Stamp[],
  keyOf: (plan: ToolchainPlan) => string = (p) => prepareKey(p.prepare, HELPERS_DIR, p.artifacts)
): RootRun {
  const stampOf = (p: ToolchainPlan) => stamps.find((s) => s.toolchain === p.toolchain)
  const pending = plans.filter(
    (p) => missingPackages(stampOf(p), p).length > 0 || stampOf(p)?.prepareKey !== keyOf(p)
  )
  const present = new Set(stamps.flatMap((s) => s.packages))
  const install = new Set(pending.flatMap((p) => missingPackages(stampOf(p), p)))
  return { pending, install: [...install].filter((pkg) => !present.has(pkg)).sort() }
}

/** Every toolchain stamp of one root (not the base stamp). */
function readStamps(dir: string, suite: string): Stamp[] {
  const stamps = dirname(stampPath(dir, suite, 'x'))
  if (!existsSync(stamps)) return []
  return readdirSync(stamps)
    .filter((f) => f.endsWith('.json') && !f.startsWith('.'))
    .map((f) => readStamp(dir, suite, f.slice(0, -'.json'.length)))
    .filter((s): s is Stamp => !!s)
}

/** A prepare step for the log: its helper and first argument, not the sample program it carries. */
function brief(step: string[]): string {
  const text = step
    .slice(0, 2)
    .map((a) => basename(a))
    .join(' ')
  return step.length > 2 ? `${text} …` : text
}

function chrootArgv(root: string, env: Record<string, string>, argv: string[]): string[] {
  const pairs = Object.entries(env).map(([k, v]) => `${k}=${v}`)
  return ['chroot', root, '/usr/bin/env', '-i', ...pairs, ...argv]
}

async function aptInstall(dir: string, root: string, suite: string, packages: string[]): Promise<void> {
  say(`${suite}: apt-get update`)
  // finishes what an interrupted earlier install left unconfigured (a no-op otherwise)
  await mustRun(chrootArgv(root, APT_ENV, ['dpkg', '--configure', '-a']), {
    stream: `  ${suite}: `,
  })
  await mustRun(chrootArgv(root, APT_ENV, ['apt-get', 'update']), { stream: `  ${suite}: ` })
  say(`${suite}: installing ${packages.join(' ')}`)
  const marker = installMarker(dir, suite)
  writeJson(marker, { bootId: bootId(), packages })
  await mustRun(['sync', marker])
  await mustRun(chrootArgv(root, APT_ENV, ['apt-get', 'install', ...ROOT_APT_OPTS, ...packages]), {
    stream: `  ${suite}: `,
    what: `installing into ${suite}`,
  })
  await mustRun(chrootArgv(root, APT_ENV, ['apt-get', 'clean']))
  // what dpkg left unsynced, on disk before any stamp says it is there
  await mustRun(['sync', '-f', root])
  rmSync(marker, { force: true })
}

/** Installs and prepares every planned toolchain of one root; returns the toolchains that changed. */
async function provisionRoot(
  dir: string,
  suite: string,
  plans: ToolchainPlan[]
): Promise<Set<string>> {
  const root = rootPath(dir, suite)
  const changed = new Set<string>()
  const { pending, install } = planRootRun(plans, readStamps(dir, suite))
  if (pending.length === 0) {
    say(`${suite}: ${plans.map((p) => p.toolchain).join(', ')} already provisioned`)
    return changed
  }
  // fetched (or found in the cache) before anything changes in the root: a bad pin stops the run here
  const wanted = pending.flatMap((p) => p.artifacts)
  const got = await ensureArtifacts(join(dir, 'artifacts'), wanted)
  if (!got.ok) throw new Error(`${suite}: ${got.error.code}: ${got.error.message}`)
  if (got.fetched.length) say(`${suite}: fetched ${got.fetched.map(artifactName).join(', ')}`)
  const fetched = new Map<string, { artifact: Artifact; file: string }[]>()
  for (const p of pending)
    fetched.set(p.toolchain, p.artifacts.map((artifact) => ({ artifact, file: got.files[wanted.indexOf(artifact)] })))
  await withProc(root, async () => {
    if (install.length > 0) await aptInstall(dir, root, suite, install)
    for (const p of pending) {
      const items = fetched.get(p.toolchain) ?? []
      if (items.length) {
        say(`${suite}/${p.toolchain}: laying ${items.length} artifact(s) into ${[...new Set(items.map((i) => i.artifact.to))].join(' ')}`)
        await installArtifacts(root, items)
      }
      for (const step of p.prepare) {
        say(`${suite}/${p.toolchain}: prepare ${brief(step)}`)
        await mustRun(chrootArgv(root, { ...BASE_ENV }, step), {
          stream: `  ${p.toolchain}: `,
          what: `preparing ${p.toolchain}`,
        })
      }
      const old = readStamp(dir, suite, p.toolchain)
      const packages = [...new Set([...(old?.packages ?? []), ...p.packages])].sort()
      const stamp: Stamp = {
        toolchain: p.toolchain,
        root: suite,
        packages,
        prepareKey: prepareKey(p.prepare, HELPERS_DIR, p.artifacts),
        provisionedAt: new Date().toISOString(),
      }
      writeJson(stampPath(dir, suite, p.toolchain), stamp)
      changed.add(p.toolchain)
    }
  })
  return changed
}

// ---------- versions ----------

export function extractVersion(output: string, pattern: string): string | undefined {
  return new RegExp(pattern).exec(output)?.[1]
}

async function versionOf(dir: string, lang: Language): Promise<VersionRecord> {
  const { code, output } = await run(
    chrootArgv(rootPath(dir, lang.root), { ...BASE_ENV, ...lang.env }, lang.version)
  )
  const version = extractVersion(output, lang.versionPattern)
  if (code !== 0 || !version)
    throw new Error(
      `${lang.code}: ${lang.version.join(' ')} exited ${code}: ${output.slice(0, 500)}`
    )
  const reported = output.split('\n').find((l) => l.includes(version)) ?? output.split('\n')[0]
  return {
    name: lang.name,
    toolchain: lang.toolchain,
    root: lang.root,
    version,
    reported: reported.trim(),
  }
}

/** Runs the version command of each language whose toolchain changed or that has no record yet. */
async function recordVersions(
  dir: string,
  langs: Language[],
  changed: Set<string>
): Promise<Record<string, VersionRecord>> {
  const file = versionsFile(dir)
  let versions: Record<string, VersionRecord> = {}
  try {
    versions = JSON.parse(readFileSync(file, 'utf8')).languages ?? {}
  } catch {
    // first run
  }
  const stale = langs.filter((l) => changed.has(`${l.root}/${l.toolchain}`) || !versions[l.code])
  // nothing new to record: leave the file as it is (a re-run changes nothing)
  if (stale.length === 0 && existsSync(file)) return versions
  for (const suite of [...new Set(stale.map((l) => l.root))]) {
    await withProc(rootPath(dir, suite), async () => {
      for (const lang of stale.filter((l) => l.root === suite)) {
        versions[lang.code] = await versionOf(dir, lang)
        say(`version ${lang.code}: ${versions[lang.code].version}`)
      }
    })
  }
  writeJson(file, { updatedAt: new Date().toISOString(), languages: sortKeys(versions) })
  return versions
}

function sortKeys<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)))
}

// ---------- main ----------

export function selectLanguages(all: Map<string, Language>, spec: string | undefined): Language[] {
  if (!spec || spec.trim().toLowerCase() === 'all') return [...all.values()]
  const picked = new Map<string, Language>()
  for (const code of spec.split(',').filter((c) => c.trim())) {
    const lang = resolveLanguage(all, code)
    if (!lang)
      throw new Error(`unknown language ${code.trim()}; known: ${[...all.keys()].join(', ')}`)
    picked.set(lang.code, lang)
  }
  return [...picked.values()]
}

const USAGE = `usage: npx tsx scripts/provision.ts [--dir DIR] [--langs CODE,CODE|all]
  --dir    toolchains directory (default: config paths.toolchains)
  --langs  spec codes or aliases to provision (default: all)`

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      dir: { type: 'string' },
      langs: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  if (values.help) return void console.log(USAGE)
  const dir = values.dir ?? loadConfig().paths.toolchains
  const langs = selectLanguages(loadLanguages(), values.langs)
  mkdirSync(dir, { recursive: true })
  const unlock = takeLock(dir)
  installSignalCleanup()
  try {
    await ensureHostTool('debootstrap', 'debootstrap')
    await ensureHostTool('mksquashfs', 'squashfs-tools')
    // the registries' own clients fetch the pinned artifacts, with the host's registry settings
    const artifacts = langs.flatMap((l) => l.artifacts)
    if (artifacts.some((a) => 'maven' in a)) await ensureHostTool('mvn', 'maven')
    if (artifacts.some((a) => 'npm' in a)) await ensureHostTool('npm', 'npm')
    const mirror = readHostMirror()
    say(`provisioning ${langs.length} language(s) into ${dir} from ${mirror.archive}`)
    const changed = new Set<string>()
    const plans = planToolchains(langs)
    // the roots side by side: each is its own chroot and dpkg database, and while one unpacks (disk)
    // the other downloads or prepares (network, CPU); every line names its root
    const suites = [...new Set(plans.map((p) => p.root))].sort().reverse()
    const outcomes = await Promise.allSettled(
      suites.map(async (suite) => {
        await ensureBase(dir, suite, mirror)
        const helpers = syncHelpers(rootPath(dir, suite))
        if (helpers.length) say(`${suite}: helpers updated: ${helpers.join(' ')}`)
        const done = await provisionRoot(
          dir,
          suite,
          plans.filter((p) => p.root === suite)
        )
        for (const t of done) changed.add(`${suite}/${t}`)
      })
    )
    // every root finished or failed before the first failure is told (none is left half-way in the background)
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected')
    if (failed) throw failed.reason
    const versions = await recordVersions(dir, langs, changed)
    await unmountAll()
    for (const suite of [...new Set(plans.map((p) => p.root))].sort()) await ensureImage(dir, suite)
    for (const l of langs)
      say(`${l.code.padEnd(16)} ${versions[l.code].version.padEnd(12)} ${l.name}`)
    say(`done in ${formatElapsed(Date.now() - started)}`)
  } finally {
    await unmountAll()
    unlock()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: Error) => {
    console.error(`provision: ${err.message}`)
    process.exit(1)
  })
}
