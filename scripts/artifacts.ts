// Pinned files from the npm and Maven registries for toolchains Debian does not ship (Kotlin 2, Scala 3, Groovy 4,
// TypeScript 5): fetched on the host with that registry's own client, so the registry (or mirror) the
// host's npm and Maven settings name is the one used; checked against the manifest's sha256; kept in
// <toolchains>/artifacts/ by checksum, so a re-run or a second root fetches nothing; laid into the root.
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Artifact } from '../src/languages.ts'

export type ArtifactError = { code: 'fetch_failed' | 'checksum_mismatch'; message: string }

/** How an artifact is named in messages: `maven org.x:y:1.0` / `npm name@1.0`. */
export function artifactName(a: Artifact): string {
  return 'maven' in a ? `maven ${a.maven}` : `npm ${a.npm}`
}

/** The file a Maven artifact becomes in its folder: `<artifactId>.jar`, as compiler distributions name them. */
export function mavenFileName(coordinates: string): string {
  return `${coordinates.split(':')[1]}.jar`
}

/** The file name a registry's client gives an artifact it fetched: `<artifactId>-<version>.jar`, `<name>-<version>.tgz`. */
export function fetchedFileName(a: Artifact): string {
  if ('maven' in a) {
    const [, id, version] = a.maven.split(':')
    return `${id}-${version}.jar`
  }
  // npm pack names a scoped package's tarball without its '@' and with '-' for its '/'
  const at = a.npm.lastIndexOf('@')
  return `${a.npm.slice(0, at).replace(/^@/, '').replace('/', '-')}-${a.npm.slice(at + 1)}.tgz`
}

/** A pom declaring the artifacts as dependencies, so one Maven run copies them all (one JVM start, not one each). */
export function fetchPom(coordinates: string[]): string {
  const deps = coordinates
    .map((c) => {
      const [g, a, v] = c.split(':')
      return `<dependency><groupId>${g}</groupId><artifactId>${a}</artifactId><version>${v}</version></dependency>`
    })
    .join('\n    ')
  return `<project>
  <modelVersion>4.0.0</modelVersion>
  <groupId>arbiter.provision</groupId><artifactId>artifacts</artifactId><version>0</version>
  <dependencies>
    ${deps}
  </dependencies>
</project>
`
}

/**
 * The host commands that fetch the artifacts into dir with each registry's own client, so the
 * registry (or mirror) the host's npm and Maven settings name is used. No transitive dependency: the
 * manifest pins each one itself.
 */
export function fetchCommands(items: Artifact[], dir: string): { argv: string[]; files?: Record<string, string> }[] {
  const cmds = []
  const maven = items.flatMap((a) => ('maven' in a ? [a.maven] : []))
  const npm = items.flatMap((a) => ('npm' in a ? [a.npm] : []))
  if (maven.length)
    cmds.push({
      argv: ['mvn', '-B', '-q', 'dependency:copy-dependencies', '-DexcludeTransitive=true', '-DincludeScope=runtime', `-DoutputDirectory=${dir}`],
      files: { 'pom.xml': fetchPom(maven) },
    })
  if (npm.length) cmds.push({ argv: ['npm', 'pack', '--silent', '--pack-destination', dir, ...npm] })
  return cmds
}

export function sha256Of(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex')
}

function exec(argv: string[], cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(argv[0], argv.slice(1), { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (d: Buffer) => (output += d.toString()))
    child.stderr.on('data', (d: Buffer) => (output += d.toString()))
    child.on('error', (err) => resolve({ code: 127, output: err.message }))
    child.on('close', (code) => resolve({ code: code ?? 1, output }))
  })
}

export type Fetcher = (argv: string[], cwd: string) => Promise<{ code: number; output: string }>

/**
 * The cached file of each artifact (`<cacheDir>/<sha256>`), fetching in one go those the cache lacks.
 * A fetched file whose sha256 is not the manifest's is deleted and reported: a pin that no longer
 * matches is never installed.
 */
export async function ensureArtifacts(
  cacheDir: string,
  items: Artifact[],
  fetch: Fetcher = exec
): Promise<{ ok: true; files: string[]; fetched: Artifact[] } | { ok: false; error: ArtifactError }> {
  const cached = (a: Artifact) => join(cacheDir, a.sha256)
  const missing = items.filter((a) => !(existsSync(cached(a)) && sha256Of(cached(a)) === a.sha256))
  if (missing.length) {
    mkdirSync(cacheDir, { recursive: true })
    const scratch = mkdtempSync(join(cacheDir, '.fetch-'))
    const out = join(scratch, 'out')
    mkdirSync(out)
    try {
      for (const { argv, files } of fetchCommands(missing, out)) {
        for (const [name, text] of Object.entries(files ?? {})) writeFileSync(join(scratch, name), text)
        const { code, output } = await fetch(argv, scratch)
        if (code !== 0)
          return { ok: false, error: { code: 'fetch_failed', message: `${argv.slice(0, 2).join(' ')} exited ${code}: ${output.trim().split('\n').slice(-10).join('\n')}` } }
      }
      for (const a of missing) {
        const file = join(out, fetchedFileName(a))
        if (!existsSync(file)) return { ok: false, error: { code: 'fetch_failed', message: `${artifactName(a)}: the client left no ${fetchedFileName(a)}` } }
        const got = sha256Of(file)
        if (got !== a.sha256)
          return { ok: false, error: { code: 'checksum_mismatch', message: `${artifactName(a)}: sha256 ${got}, the manifest pins ${a.sha256}` } }
        renameSync(file, cached(a))
      }
    } finally {
      rmSync(scratch, { recursive: true, force: true })
    }
  }
  return { ok: true, files: items.map(cached), fetched: missing }
}

/**
 * Lays a toolchain's artifacts into the root: each `to` folder is emptied first (a changed pin leaves
 * no old jar behind), then a jar is copied as `<artifactId>.jar` and a package tarball unpacked.
 */
export async function installArtifacts(root: string, items: { artifact: Artifact; file: string }[]): Promise<void> {
  for (const to of new Set(items.map((i) => i.artifact.to))) rmSync(join(root, to), { recursive: true, force: true })
  for (const { artifact: a, file } of items) {
    const dir = join(root, a.to)
    mkdirSync(dir, { recursive: true, mode: 0o755 })
    if ('maven' in a) {
      const dest = join(dir, mavenFileName(a.maven))
      copyFileSync(file, dest)
      chmodSync(dest, 0o644)
    } else {
      const { code, output } = await exec(['tar', '-xzf', file, '-C', dir, '--strip-components=1', '--no-same-owner', '--no-same-permissions'], dir)
      if (code !== 0) throw new Error(`${artifactName(a)}: unpacking failed: ${output.trim()}`)
      // readable by the jail's unprivileged user whatever the tarball's modes
      const { code: c2, output: o2 } = await exec(['chmod', '-R', 'a+rX', dir], dir)
      if (c2 !== 0) throw new Error(`${artifactName(a)}: chmod failed: ${o2.trim()}`)
    }
  }
}
