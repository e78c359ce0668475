// The pinned registry artifacts (Kotlin 2, Scala 3, TypeScript 5): the commands that fetch them, the
// checksum gate, the cache, and how they are laid into a root; with a stand-in for mvn and npm that
// writes the files a real client would (the real fetch runs in provisioning: `npm test` provisions all).
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { type Artifact, loadManifestFile, ManifestError } from '../src/languages.ts'
import { ensureArtifacts, fetchCommands, fetchedFileName, fetchPom, installArtifacts, sha256Of, type Fetcher } from './artifacts.ts'
import { prepareKey } from './provision.ts'

const dir = mkdtempSync(join(tmpdir(), 'arbiter-artifacts-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const sha = (text: string) => {
  const f = join(dir, 'sha-input')
  writeFileSync(f, text)
  return sha256Of(f)
}
const jar = (coordinates: string, text: string): Artifact => ({ maven: coordinates, sha256: sha(text), to: '/opt/kt/lib' })

/** A stand-in for mvn and npm: writes each artifact's file, with the given contents, where the client would. */
function fakeClients(contents: Map<string, string>, calls: string[][]): Fetcher {
  return async (argv, cwd) => {
    calls.push(argv)
    const out = (argv.find((a) => a.startsWith('-DoutputDirectory=')) ?? '').slice('-DoutputDirectory='.length) || argv[argv.indexOf('--pack-destination') + 1]
    if (argv[0] === 'mvn') {
      const pom = readFileSync(join(cwd, 'pom.xml'), 'utf8')
      for (const [, g, a, v] of pom.matchAll(/<groupId>([^<]+)<\/groupId><artifactId>([^<]+)<\/artifactId><version>([^<]+)<\/version>/g)) {
        const text = contents.get(`${g}:${a}:${v}`)
        if (text !== undefined) writeFileSync(join(out, `${a}-${v}.jar`), text)
      }
    } else {
      for (const spec of argv.slice(argv.indexOf('--pack-destination') + 2)) {
        const text = contents.get(spec)
        if (text !== undefined) writeFileSync(join(out, fetchedFileName({ npm: spec, sha256: '', to: '/opt/x' })), text)
      }
    }
    return { code: 0, output: '' }
  }
}

describe('fetching', () => {
  it('asks each registry once, with its own client, for every artifact it lacks, and no transitive one', () => {
    const cmds = fetchCommands(
      [jar('org.a:x:1.0', 'x'), { npm: '@scope/pkg@5.1.0', sha256: sha('p'), to: '/opt/p' }, jar('org.b:y:2.0', 'y')],
      '/out'
    )
    expect(cmds.map((c) => c.argv[0])).toEqual(['mvn', 'npm'])
    expect(cmds[0].argv).toContain('-DexcludeTransitive=true')
    expect(cmds[0].argv).toContain('-DoutputDirectory=/out')
    expect(cmds[0].files!['pom.xml']).toBe(fetchPom(['org.a:x:1.0', 'org.b:y:2.0']))
    expect(cmds[0].files!['pom.xml']).toContain('<groupId>org.b</groupId><artifactId>y</artifactId><version>2.0</version>')
    expect(cmds[1].argv).toEqual(['npm', 'pack', '--silent', '--pack-destination', '/out', '@scope/pkg@5.1.0'])
    // no registry host anywhere: the clients' own settings choose it
    expect(JSON.stringify(cmds)).not.toMatch(/https?:/)
  })

  it('names files as the clients do', () => {
    expect(fetchedFileName({ maven: 'org.scala-lang:scala3-compiler_3:3.3.7', sha256: '', to: '/opt/s' })).toBe('scala3-compiler_3-3.3.7.jar')
    expect(fetchedFileName({ npm: 'typescript@5.9.3', sha256: '', to: '/opt/t' })).toBe('typescript-5.9.3.tgz')
    expect(fetchedFileName({ npm: '@types/node@20.1.0', sha256: '', to: '/opt/t' })).toBe('types-node-20.1.0.tgz')
  })

  it('keeps what matches its pin in the cache, and fetches nothing the next time', async () => {
    const cache = join(dir, 'cache1')
    const items = [jar('org.a:x:1.0', 'x-jar'), jar('org.b:y:2.0', 'y-jar')]
    const calls: string[][] = []
    const clients = fakeClients(new Map([['org.a:x:1.0', 'x-jar'], ['org.b:y:2.0', 'y-jar']]), calls)
    const first = await ensureArtifacts(cache, items, clients)
    expect(first).toMatchObject({ ok: true, fetched: items })
    if (!first.ok) return
    expect(first.files.map((f) => readFileSync(f, 'utf8'))).toEqual(['x-jar', 'y-jar'])
    expect(calls).toHaveLength(1)
    const again = await ensureArtifacts(cache, items, clients)
    expect(again).toMatchObject({ ok: true, fetched: [] })
    expect(calls).toHaveLength(1)
    // the scratch folder is gone; only the files, by checksum
    expect(readdirSync(cache).sort()).toEqual(items.map((i) => i.sha256).sort())
  })

  it('refuses a file whose sha256 is not the pin, and caches nothing of it', async () => {
    const cache = join(dir, 'cache2')
    const r = await ensureArtifacts(cache, [jar('org.a:x:1.0', 'the pinned bytes')], fakeClients(new Map([['org.a:x:1.0', 'other bytes']]), []))
    expect(r).toMatchObject({ ok: false, error: { code: 'checksum_mismatch' } })
    if (!r.ok) expect(r.error.message).toMatch(/maven org\.a:x:1\.0: sha256 [0-9a-f]{64}, the manifest pins/)
    expect(readdirSync(cache)).toEqual([])
  })

  it('says which artifact the client did not bring, and when the client failed', async () => {
    const missing = await ensureArtifacts(join(dir, 'cache3'), [jar('org.a:x:1.0', 'x')], fakeClients(new Map(), []))
    expect(missing).toMatchObject({ ok: false, error: { code: 'fetch_failed', message: expect.stringMatching(/org\.a:x:1\.0: the client left no x-1\.0\.jar/) } })
    const failing: Fetcher = async () => ({ code: 1, output: 'line\n[ERROR] Could not resolve dependencies' })
    const failed = await ensureArtifacts(join(dir, 'cache4'), [jar('org.a:x:1.0', 'x')], failing)
    expect(failed).toMatchObject({ ok: false, error: { code: 'fetch_failed', message: expect.stringMatching(/^mvn -B exited 1: line\n\[ERROR\] Could not resolve/) } })
  })
})

describe('laying artifacts into a root', () => {
  it("copies a jar as <artifactId>.jar and unpacks a package's tarball, replacing what a previous pin left", async () => {
    const root = join(dir, 'root')
    mkdirSync(join(root, 'opt/kt/lib'), { recursive: true })
    writeFileSync(join(root, 'opt/kt/lib/kotlin-compiler.jar'), 'old pin')
    writeFileSync(join(root, 'opt/kt/lib/gone.jar'), 'a jar the new pin does not have')
    const src = join(dir, 'pkg')
    mkdirSync(join(src, 'package/lib'), { recursive: true })
    writeFileSync(join(src, 'package/lib/tsc.js'), 'console.log(1)')
    const tgz = join(dir, 'pkg.tgz')
    execFileSync('tar', ['-czf', tgz, '-C', src, 'package'])
    const jarFile = join(dir, 'k.jar')
    writeFileSync(jarFile, 'new pin')
    await installArtifacts(root, [
      { artifact: { maven: 'org.jetbrains.kotlin:kotlin-compiler:2.2.21', sha256: sha('new pin'), to: '/opt/kt/lib' }, file: jarFile },
      { artifact: { npm: 'typescript@5.9.3', sha256: sha256Of(tgz), to: '/opt/ts' }, file: tgz },
    ])
    expect(readdirSync(join(root, 'opt/kt/lib'))).toEqual(['kotlin-compiler.jar'])
    expect(readFileSync(join(root, 'opt/kt/lib/kotlin-compiler.jar'), 'utf8')).toBe('new pin')
    expect(readFileSync(join(root, 'opt/ts/lib/tsc.js'), 'utf8')).toBe('console.log(1)')
    expect(existsSync(join(root, 'opt/ts/package'))).toBe(false)
  })
})

describe('the manifest field and the provisioning key', () => {
  const file = (body: string) => {
    const f = join(dir, 'x.toml')
    writeFileSync(f, `root = "trixie"\npackages = ["nodejs"]\nsource_file = "m.ts"\nrun = ["node"]\nversion = ["node"]\nselftest = "x"\nselftest_error = "y"\n${body}\n[[language]]\ncode = "X"\nname = "X"\n`)
    return f
  }

  it('reads pinned artifacts and refuses a loose pin', () => {
    const good = `artifacts = [{ npm = "typescript@5.9.3", sha256 = "${'a'.repeat(64)}", to = "/opt/typescript5" }]`
    expect(loadManifestFile(file(good))[0].artifacts).toEqual([{ npm: 'typescript@5.9.3', sha256: 'a'.repeat(64), to: '/opt/typescript5' }])
    // a range is no pin, nor a short checksum; a folder outside /opt would be emptied on a new pin
    expect(() => loadManifestFile(file(good.replace('@5.9.3', '@^5')))).toThrow(ManifestError)
    expect(() => loadManifestFile(file(good.replace('a'.repeat(64), 'a'.repeat(40))))).toThrow(/sha256/)
    expect(() => loadManifestFile(file(good.replace('/opt/typescript5', '/usr/lib')))).toThrow(/under \/opt/)
    expect(() => loadManifestFile(file(good.replace('/opt/typescript5', '/opt/../etc')))).toThrow(ManifestError)
  })

  it('changes the key when a pin changes, and not for a toolchain without artifacts', () => {
    const steps = [['/usr/local/lib/arbiter/none', 'x']]
    const a: Artifact = { maven: 'g:a:1', sha256: 'a'.repeat(64), to: '/opt/a' }
    expect(prepareKey(steps, dir, [])).toBe(prepareKey(steps, dir))
    expect(prepareKey(steps, dir, [a])).not.toBe(prepareKey(steps, dir))
    expect(prepareKey(steps, dir, [{ ...a, sha256: 'b'.repeat(64) }])).not.toBe(prepareKey(steps, dir, [a]))
  })
})
