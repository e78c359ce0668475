// problemtools' source package (its examples, its default validator's source, its verifyproblem), taken
// at test time, pinned by version and SHA-256, cached outside the checkout: never committed.
// PROBLEMTOOLS_SDIST may name a copy of the file instead.
import { execa } from 'execa'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const PROBLEMTOOLS_VERSION = '1.20260907'
const SHA256 = '55f19b6a72ef5cb07daf0a4e612be963a15e7972891a3afb0fff89244b6228c6'
/** Where the source package (and bench-packages' venv) is kept between runs. */
export const problemtoolsCache = join(tmpdir(), `arbiter-problemtools-${PROBLEMTOOLS_VERSION}`)

/** The pinned source package's path, downloaded once and checked against its hash every time. */
export async function problemtoolsSdist(): Promise<string> {
  const tarball = process.env.PROBLEMTOOLS_SDIST ?? join(problemtoolsCache, `problemtools-${PROBLEMTOOLS_VERSION}.tar.gz`)
  if (!existsSync(tarball)) {
    mkdirSync(problemtoolsCache, { recursive: true })
    await execa('pip', ['download', '--no-deps', '--no-binary', ':all:', `problemtools==${PROBLEMTOOLS_VERSION}`, '-d', problemtoolsCache], { timeout: 300_000 })
  }
  const hash = createHash('sha256').update(readFileSync(tarball)).digest('hex')
  if (hash !== SHA256) throw new Error(`${tarball}: sha256 ${hash}, not the pinned ${SHA256}`)
  return tarball
}

/** Unpacks the source package into `dir`; its top folder (examples/ is in it). */
export async function unpackProblemtools(dir: string): Promise<string> {
  await execa('tar', ['xzf', await problemtoolsSdist(), '-C', dir])
  return join(dir, `problemtools-${PROBLEMTOOLS_VERSION}`)
}
