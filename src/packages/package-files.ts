// A problem package's files, from a zip (an upload) or a folder (the command line): only the parts
// Arbiter reads are inflated (problem.yaml, domjudge-problem.ini, .timelimit, data/, output
// validators, submissions/, DOMjudge's submissions.json); every other file is listed by name for the import's report. The zip goes
// through the problems' zip reader (caps on entries, bytes, declared and inflated sizes; traversal
// names and links refused); a folder is walked without following links, and a link or special file in
// it is refused by name.
import { existsSync, lstatSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { NotAFile, readRegularFile } from '../sandbox/host-files.ts'
import { readZipFiles, ZipRefused } from '../problems/zip.ts'

/** A package that cannot be read or imported: the file and the rule it breaks. */
export class PackageRefused extends Error {
  constructor(
    readonly file: string,
    readonly rule: string,
    readonly tooLarge = false
  ) {
    super(`${file}: ${rule}`)
  }
}

export interface PackageCaps {
  /** Files in the package, read or not. */
  maxFiles: number
  /** One file read (a test's input or answer, a source). */
  fileBytes: number
  /** Everything read, together. */
  totalBytes: number
}

export interface PackageFiles {
  /** Path inside the package ('/'-separated, the package's own top folder dropped) → bytes. */
  files: Map<string, Buffer>
  /** Files present but not read (statements, attachments, input validators, generators, …). */
  skipped: string[]
}

/** The parts of a package Arbiter reads; the rest is listed, never inflated. */
export const isReadPart = (path: string) =>
  /^(problem\.yaml|domjudge-problem\.ini|\.timelimit|submissions\.json|data\/.*|output_validators?\/.*|submissions\/.*)$/.test(path)

/** One common top folder (a zipped problem folder) is dropped when problem.yaml is not at the top. */
function topFolder(names: string[]): string {
  if (names.some((n) => n === 'problem.yaml' || n === 'domjudge-problem.ini')) return ''
  const tops = new Set(names.map((n) => n.split('/')[0]))
  return tops.size === 1 && names.every((n) => n.includes('/')) ? `${[...tops][0]}/` : ''
}

export async function readPackageZip(data: Buffer, caps: PackageCaps): Promise<PackageFiles> {
  // the top folder is known only after the names are read: read parts are matched with or without one
  const wanted = (name: string) => isReadPart(name) || isReadPart(name.slice(name.indexOf('/') + 1))
  let read
  try {
    read = await readZipFiles(data, { ...caps, wanted, label: 'the package' })
  } catch (err) {
    if (err instanceof ZipRefused) throw new PackageRefused('package', err.message, /larger than|beyond the caps|more than/.test(err.message))
    throw err
  }
  const prefix = topFolder([...read.files.keys(), ...read.skipped])
  const strip = (n: string) => (n.startsWith(prefix) ? n.slice(prefix.length) : n)
  const files = new Map<string, Buffer>()
  const skipped = read.skipped.map(strip)
  for (const [name, bytes] of read.files) {
    const path = strip(name)
    if (isReadPart(path)) files.set(path, bytes)
    else skipped.push(path)
  }
  return { files, skipped: skipped.sort() }
}

export function readPackageDir(dir: string, caps: PackageCaps): PackageFiles {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new PackageRefused(dir, 'not a folder')
  const files = new Map<string, Buffer>()
  const skipped: string[] = []
  let count = 0
  let total = 0
  const walk = (d: string, depth: number) => {
    if (depth > 16) throw new PackageRefused(relative(dir, d), 'folders nested deeper than 16')
    for (const name of readdirSync(d).sort()) {
      const full = join(d, name)
      const rel = relative(dir, full).split('\\').join('/')
      const st = lstatSync(full)
      if (st.isDirectory()) {
        walk(full, depth + 1)
        continue
      }
      if (++count > caps.maxFiles) throw new PackageRefused('package', `more than ${caps.maxFiles} files`, true)
      if (!st.isFile()) throw new PackageRefused(rel, 'a link or special file: a package holds regular files only')
      if (!isReadPart(rel)) {
        skipped.push(rel)
        continue
      }
      let bytes
      try {
        bytes = readRegularFile(full, caps.fileBytes)
      } catch (err) {
        if (err instanceof NotAFile) throw new PackageRefused(rel, 'a link or special file: a package holds regular files only')
        throw new PackageRefused(rel, `larger than ${caps.fileBytes} bytes`, true)
      }
      total += bytes.length
      if (total > caps.totalBytes) throw new PackageRefused('package', `larger than ${caps.totalBytes} bytes in all`, true)
      files.set(rel, bytes)
    }
  }
  walk(dir, 0)
  return { files, skipped }
}
