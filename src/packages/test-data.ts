// data/ of a package: data/sample and data/secret, nested folders as groups, each case an X.in with its
// X.ans, in problemtools' order (a group's entries sorted by name, groups and cases alike: lexicographic,
// so 10 before 2). Each group's testdata.yaml is read over its parent's (problemtools' defaults below).
// An .in without its .ans, an .ans without its .in, and every other file (.desc, .hint, .interaction,
// images) are listed as ignored, as problemtools ignores them.
import { parse as parseYaml } from 'yaml'
import { PackageRefused } from './package-files.ts'
import { flagList } from './problem-yaml.ts'

export interface GroupSettings {
  onReject: 'break' | 'continue'
  grading: 'default' | 'custom'
  graderFlags: string[]
  acceptScore: number
  rejectScore: number
  range: [number, number]
  outputValidatorFlags: string[]
}

export const DEFAULT_GROUP: GroupSettings = { onReject: 'break', grading: 'default', graderFlags: [], acceptScore: 1, rejectScore: 0, range: [-Infinity, Infinity], outputValidatorFlags: [] }

export interface TestCase {
  /** Its path under data/ without the extension: sample/1, secret/group1/01. */
  name: string
  input: Buffer
  answer: Buffer
}

/** A test group: its path under data/ ('' for data/ itself), settings, and its items in order. */
export interface TestGroup {
  path: string
  settings: GroupSettings
  items: (TestGroup | TestCase)[]
  /** Where its settings came from (a testdata.yaml), for the report. */
  configured: boolean
}

export const isGroup = (x: TestGroup | TestCase): x is TestGroup => 'items' in x

const GROUP_KEYS = new Set(['on_reject', 'grading', 'grader_flags', 'accept_score', 'reject_score', 'range', 'output_validator_flags', 'input_validator_flags'])
const GRADER_FLAGS = new Set(['first_error', 'worst_error', 'no_errors', 'always_accept', 'sum', 'avg', 'min', 'max', 'ignore_sample', 'accept_if_any_accepted'])

function readSettings(file: string, text: Buffer, parent: GroupSettings, ignored: string[]): GroupSettings {
  let doc: unknown
  try {
    doc = parseYaml(text.toString('utf8'), { maxAliasCount: 100 }) ?? {}
  } catch (err) {
    throw new PackageRefused(file, `not valid YAML (${(err as Error).message.split('\n')[0]})`)
  }
  if (typeof doc !== 'object' || Array.isArray(doc) || doc === null) throw new PackageRefused(file, 'must be a mapping of keys')
  const d = doc as Record<string, unknown>
  const s = { ...parent }
  for (const key of Object.keys(d)) {
    if (!GROUP_KEYS.has(key)) ignored.push(`${file} ${key} (not a key of testdata.yaml)`)
    else if (key === 'input_validator_flags') ignored.push(`${file} input_validator_flags (input validators are not run)`)
  }
  if (d.on_reject !== undefined) {
    if (d.on_reject !== 'break' && d.on_reject !== 'continue') throw new PackageRefused(file, 'on_reject must be break or continue')
    s.onReject = d.on_reject
  }
  if (d.grading !== undefined) {
    if (d.grading !== 'default') throw new PackageRefused(file, 'grading: custom (a grader program) is not run here; only the default grader')
  }
  if (d.grader_flags !== undefined) {
    s.graderFlags = flagList(file, 'grader_flags', d.grader_flags)
    const bad = s.graderFlags.find((f) => !GRADER_FLAGS.has(f))
    if (bad) throw new PackageRefused(file, `grader_flags: unknown flag ${JSON.stringify(bad)} (${[...GRADER_FLAGS].join(', ')})`)
  }
  const num = (key: string, v: unknown) => {
    const n = typeof v === 'string' ? Number(v) : v
    if (typeof n !== 'number' || !Number.isFinite(n)) throw new PackageRefused(file, `${key} must be a number`)
    return n
  }
  if (d.accept_score !== undefined) s.acceptScore = num('accept_score', d.accept_score)
  if (d.reject_score !== undefined) s.rejectScore = num('reject_score', d.reject_score)
  if (d.range !== undefined) s.range = parseRange(file, String(d.range))
  if (d.output_validator_flags !== undefined) s.outputValidatorFlags = flagList(file, 'output_validator_flags', d.output_validator_flags)
  return s
}

/** A score range, "min max" (-inf, inf, +inf allowed). */
export function parseRange(file: string, text: string): [number, number] {
  const parts = text.trim().split(/\s+/)
  const bound = (t: string) => {
    const n = t === '-inf' ? -Infinity : t === 'inf' || t === '+inf' ? Infinity : t.trim() === '' ? NaN : Number(t)
    if (Number.isNaN(n)) throw new PackageRefused(file, 'range must be two numbers, "min max"')
    return n
  }
  if (parts.length !== 2) throw new PackageRefused(file, 'range must be two numbers, "min max"')
  const range: [number, number] = [bound(parts[0]), bound(parts[1])]
  if (range[0] > range[1]) throw new PackageRefused(file, 'range: min is above max')
  return range
}

/** Legacy problem.yaml `grading:` keys, which override every group's own (problemtools). */
export interface GroupOverrides {
  acceptScore?: number
  rejectScore?: number
  range?: string
  onReject?: 'break' | 'continue'
}

/** data/ → its group tree; ignored collects what was left out and why. */
export function readTestData(files: Map<string, Buffer>, ignored: string[], overrides: GroupOverrides = {}): TestGroup {
  const override = (s: GroupSettings): GroupSettings => ({
    ...s,
    ...(overrides.acceptScore !== undefined && { acceptScore: overrides.acceptScore }),
    ...(overrides.rejectScore !== undefined && { rejectScore: overrides.rejectScore }),
    ...(overrides.range !== undefined && { range: parseRange('problem.yaml grading.range', overrides.range) }),
    ...(overrides.onReject !== undefined && { onReject: overrides.onReject }),
  })
  const under = [...files.keys()].filter((p) => p.startsWith('data/')).map((p) => p.slice('data/'.length))
  const build = (path: string, parent: GroupSettings): TestGroup => {
    const prefix = path ? `${path}/` : ''
    const yaml = files.get(`data/${prefix}testdata.yaml`)
    const settings = override(yaml ? readSettings(`data/${prefix}testdata.yaml`, yaml, parent, ignored) : parent)
    // the entries right under this folder: files, and folders (named once)
    const entries = new Set<string>()
    for (const p of under) if (p.startsWith(prefix)) entries.add(p.slice(prefix.length).split('/')[0] + (p.slice(prefix.length).includes('/') ? '/' : ''))
    const items: (TestGroup | TestCase)[] = []
    const names = [...entries].map((e) => (e.endsWith('/') ? e.slice(0, -1) : e))
    // problemtools: sorted(os.listdir(folder)), by code point
    for (const name of [...new Set(names)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
      const full = `${prefix}${name}`
      if (entries.has(`${name}/`)) {
        if (!path && name !== 'sample' && name !== 'secret') {
          ignored.push(`data/${name}/ (only data/sample and data/secret are judged)`)
          continue
        }
        items.push(build(full, settings))
      } else if (!path) {
        if (name !== 'testdata.yaml') ignored.push(`data/${name}`)
      } else if (name.endsWith('.in')) {
        const answer = files.get(`data/${full.slice(0, -3)}.ans`)
        if (!answer) ignored.push(`data/${full} (no .ans beside it: problemtools ignores it)`)
        else items.push({ name: full.slice(0, -3), input: files.get(`data/${full}`)!, answer })
      } else if (name.endsWith('.ans')) {
        if (!entries.has(`${name.slice(0, -4)}.in`)) ignored.push(`data/${full} (no .in beside it)`)
      } else if (name !== 'testdata.yaml') {
        ignored.push(`data/${full}${name.endsWith('.interaction') ? ' (a sample shown to contestants, not judged)' : ''}`)
      }
    }
    return { path, settings, items, configured: !!yaml }
  }
  return build('', DEFAULT_GROUP)
}

/** Every case of a group tree, in order, with the group that holds it. */
export function casesOf(group: TestGroup): { test: TestCase; group: TestGroup }[] {
  return group.items.flatMap((item) => (isGroup(item) ? casesOf(item) : [{ test: item, group }]))
}
