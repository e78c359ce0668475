// What a package says about its own submissions' language and entry point, where it says it:
// - the Kattis format (2023-07 and after): submissions/submissions.yaml, whose keys are glob patterns
//   over paths under submissions/ (`*` within a name, `{a,b}` alternatives; a submission matches when
//   it or its folder does) mapping to `language` (a code of the format's languages table) and
//   `entrypoint` (a file, or Java's and Kotlin's class); its other keys (authors, permitted, required,
//   score, message, …) are not read;
// - DOMjudge: submissions.json at the package's top, keyed by the zip path of a submission
//   (`submissions/accepted/a.py`, a folder with its trailing `/`), with `langid` and `entry_point`.
// A submission the pattern of its own path matches takes that over its folder's; among equals the
// later key counts. Read at import: a file that does not parse, or a value of the wrong type, is refused.
import { parse as parseYaml } from 'yaml'
import { PackageRefused } from './package-files.ts'

export const SUBMISSIONS_YAML = 'submissions/submissions.yaml'
export const SUBMISSIONS_JSON = 'submissions.json'

export interface SubmissionMeta {
  /** The package's word for the language, as written. */
  language?: string
  entryPoint?: string
  /** Where it was said: the file and the key. */
  from: string
}

/** One key of submissions.yaml or submissions.json. */
export interface SubmissionRule {
  pattern: RegExp
  language?: string
  entryPoint?: string
  from: string
}

/** `{a,b}` alternatives expanded (nested too), as the format's brace expansion. */
export function expandBraces(glob: string): string[] {
  const open = glob.indexOf('{')
  if (open < 0) return [glob]
  let depth = 0
  for (let i = open; i < glob.length; i++) {
    if (glob[i] === '{') depth++
    else if (glob[i] === '}' && --depth === 0) {
      const parts: string[] = []
      let d = 0
      let start = open + 1
      for (let j = open + 1; j < i; j++) {
        if (glob[j] === '{') d++
        else if (glob[j] === '}') d--
        else if (glob[j] === ',' && d === 0) {
          parts.push(glob.slice(start, j))
          start = j + 1
        }
      }
      parts.push(glob.slice(start, i))
      return parts.flatMap((p) => expandBraces(glob.slice(0, open) + p + glob.slice(i + 1)))
    }
  }
  return [glob]
}

/** A glob as the format reads it: `*` and `?` within one name, never across `/`. */
export function globPattern(glob: string): RegExp {
  const alternatives = expandBraces(glob.replace(/^\/+|\/+$/g, '')).map((g) =>
    g.replace(/[.+^$()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')
  )
  return new RegExp(`^(?:${alternatives.join('|')})$`)
}

const str = (file: string, key: string, field: string, v: unknown): string | undefined => {
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'string' || !v.trim()) throw new PackageRefused(file, `${key}: ${field} must be a non-empty string`)
  return v.trim()
}

/**
 * The rules of a package's submissions.yaml and submissions.json, and what of them is not read
 * (for the import's report). `ignored` receives one line per key name not read.
 */
export function readSubmissionRules(files: Map<string, Buffer>, ignored: string[]): SubmissionRule[] {
  const rules: SubmissionRule[] = []
  const yaml = files.get(SUBMISSIONS_YAML)
  if (yaml) {
    let doc: unknown
    try {
      doc = parseYaml(yaml.toString('utf8'))
    } catch (err) {
      throw new PackageRefused(SUBMISSIONS_YAML, `not YAML: ${(err as Error).message.split('\n')[0]}`)
    }
    if (doc !== null && doc !== undefined && (typeof doc !== 'object' || Array.isArray(doc))) throw new PackageRefused(SUBMISSIONS_YAML, 'must map glob patterns to settings')
    const unread = new Set<string>()
    for (const [glob, value] of Object.entries((doc ?? {}) as Record<string, unknown>)) {
      if (value === null) continue
      if (typeof value !== 'object' || Array.isArray(value)) throw new PackageRefused(SUBMISSIONS_YAML, `${glob}: must be a map of settings (language, entrypoint, …)`)
      const v = value as Record<string, unknown>
      for (const k of Object.keys(v)) if (k !== 'language' && k !== 'entrypoint') unread.add(k)
      const language = str(SUBMISSIONS_YAML, glob, 'language', v.language)
      const entryPoint = str(SUBMISSIONS_YAML, glob, 'entrypoint', v.entrypoint)
      if (language || entryPoint) rules.push({ pattern: globPattern(glob), language, entryPoint, from: `${SUBMISSIONS_YAML} ${glob}` })
    }
    for (const k of [...unread].sort()) ignored.push(`${SUBMISSIONS_YAML} ${k} (not read: only language and entrypoint are)`)
  }
  const json = files.get(SUBMISSIONS_JSON)
  if (json) {
    let doc: unknown
    try {
      doc = JSON.parse(json.toString('utf8'))
    } catch (err) {
      throw new PackageRefused(SUBMISSIONS_JSON, `not JSON: ${(err as Error).message}`)
    }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new PackageRefused(SUBMISSIONS_JSON, 'must map submission paths to {langid, entry_point}')
    const unread = new Set<string>()
    for (const [path, value] of Object.entries(doc as Record<string, unknown>)) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new PackageRefused(SUBMISSIONS_JSON, `${path}: must be an object ({langid, entry_point})`)
      const v = value as Record<string, unknown>
      for (const k of Object.keys(v)) if (k !== 'langid' && k !== 'entry_point') unread.add(k)
      const language = str(SUBMISSIONS_JSON, path, 'langid', v.langid)
      const entryPoint = str(SUBMISSIONS_JSON, path, 'entry_point', v.entry_point)
      // DOMjudge's keys are zip paths, taken literally
      const rel = path.replace(/^submissions\//, '').replace(/\/+$/, '')
      if (language || entryPoint) rules.push({ pattern: new RegExp(`^${rel.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`), language, entryPoint, from: `${SUBMISSIONS_JSON} ${path}` })
    }
    for (const k of [...unread].sort()) ignored.push(`${SUBMISSIONS_JSON} ${k} (not read: only langid and entry_point are)`)
  }
  return rules
}

/** What the rules say of the submission at `path` (under submissions/, e.g. `accepted/a.py` or `accepted/dir`). */
export function submissionMeta(rules: SubmissionRule[], path: string): SubmissionMeta | undefined {
  const own = path.replace(/\/+$/, '')
  const folder = own.split('/').slice(0, -1).join('/')
  const meta: SubmissionMeta = { from: '' }
  const from: string[] = []
  // the folder's rules first, then the submission's own: the more specific counts
  for (const target of [folder, own]) {
    for (const rule of rules) {
      if (!target || !rule.pattern.test(target)) continue
      if (rule.language) meta.language = rule.language
      if (rule.entryPoint) meta.entryPoint = rule.entryPoint
      from.push(rule.from)
    }
  }
  if (!from.length) return undefined
  meta.from = [...new Set(from)].join(', ')
  return meta
}
