// problem.yaml (problemtools' legacy format and its 2023-07 draft), with DOMjudge's additions
// (`validation: custom multi-pass`, `.timelimit`, domjudge-problem.ini) → what decides verdicts, or a
// refusal naming the file and the rule. Keys that only describe the problem (author, source, license,
// uuid, credits, keywords, rights_owner, …) are listed as ignored.
import { parse as parseYaml } from 'yaml'
import { PackageRefused } from './package-files.ts'

export type ProblemType = 'pass-fail' | 'scoring' | 'interactive' | 'multi-pass'

export interface PackageSpec {
  format: 'legacy' | '2023-07-draft'
  name: string
  types: Set<ProblemType>
  /** A custom output validator judges (else the default validator). */
  customValidator: boolean
  validatorFlags: string[]
  /** A fixed time limit, and where it comes from; absent: computed from the accepted submissions. */
  timeLimitSec?: number
  timeLimitFrom?: string
  /** Multiplier of the slowest accepted CPU time, and of the time limit for the TLE check. */
  acToTimeLimit: number
  timeLimitToTle: number
  timeResolution: number
  memoryMb?: number
  outputMb?: number
  validationPasses: number
  /**
   * The validator's score.txt: legacy `validation: custom score` requires it, a 2023-07 scoring
   * problem allows it (problemtools' is_custom_score_mandatory / _allowed); absent: a score.txt is JE.
   */
  customScores?: 'allowed' | 'required'
  /** Legacy `grading.objective`: whether the best score is the range's top (max) or bottom (min). */
  objective: 'max' | 'min'
  /** Legacy `grading:` keys that override every group's testdata.yaml (problemtools' transition rule). */
  groupOverrides: { acceptScore?: number; rejectScore?: number; range?: string; onReject?: 'break' | 'continue' }
  /** What problem.yaml and the rest said that was not used, for the report. */
  ignored: string[]
}

const METADATA = new Set(['name', 'author', 'source', 'source_url', 'license', 'rights_owner', 'keywords', 'uuid', 'credits', 'languages', 'constants', 'embargo_until', 'allow_file_writing', 'version'])

const positive = (file: string, key: string, v: unknown): number => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) throw new PackageRefused(file, `${key} must be a positive number`)
  return n
}

/** The flags of validator_flags: a string split on whitespace (problemtools' reading), or a list. */
export function flagList(file: string, key: string, v: unknown): string[] {
  if (v === undefined || v === null) return []
  if (typeof v === 'string') return v.split(/\s+/).filter(Boolean)
  if (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number')) return v.map(String)
  throw new PackageRefused(file, `${key} must be a string of flags`)
}

function nameOf(v: unknown): string {
  if (typeof v === 'string') return v
  if (v && typeof v === 'object') {
    const names = v as Record<string, unknown>
    const first = names.en ?? Object.values(names)[0]
    if (typeof first === 'string') return first
  }
  return ''
}

/** DOMjudge's domjudge-problem.ini: key = value lines (a value may be quoted). */
function readIni(text: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line)
    if (m) out[m[1]] = m[2].replace(/^(['"])(.*)\1$/, '$2')
  }
  return out
}

export function readPackageSpec(files: Map<string, Buffer>, fallbackName: string): PackageSpec {
  const ignored: string[] = []
  let doc: Record<string, unknown> = {}
  const yamlText = files.get('problem.yaml')
  const ini = files.has('domjudge-problem.ini') ? readIni(files.get('domjudge-problem.ini')!.toString('utf8')) : undefined
  if (!yamlText && !ini) throw new PackageRefused('problem.yaml', 'missing (a package has problem.yaml, or DOMjudge\'s domjudge-problem.ini)')
  if (yamlText) {
    let parsed: unknown
    try {
      parsed = parseYaml(yamlText.toString('utf8'), { maxAliasCount: 100 })
    } catch (err) {
      throw new PackageRefused('problem.yaml', `not valid YAML (${(err as Error).message.split('\n')[0]})`)
    }
    if (parsed !== null && parsed !== undefined && (typeof parsed !== 'object' || Array.isArray(parsed))) throw new PackageRefused('problem.yaml', 'must be a mapping of keys')
    doc = (parsed ?? {}) as Record<string, unknown>
  }
  const version = String(doc.problem_format_version ?? 'legacy')
  if (!['legacy', 'legacy-icpc', '2023-07-draft'].includes(version))
    throw new PackageRefused('problem.yaml', `problem_format_version ${JSON.stringify(version)} is not read here (legacy, legacy-icpc or 2023-07-draft, as problemtools reads them)`)
  const format = version === '2023-07-draft' ? '2023-07-draft' : 'legacy'
  const limits = (doc.limits ?? {}) as Record<string, unknown>
  if (typeof limits !== 'object' || Array.isArray(limits)) throw new PackageRefused('problem.yaml', 'limits must be a mapping')
  const types = new Set<ProblemType>()
  let customValidator = false
  let validatorFlags: string[]
  let validationPasses = 2
  let customScores: PackageSpec['customScores']
  let objective: PackageSpec['objective'] = 'max'
  const groupOverrides: PackageSpec['groupOverrides'] = {}
  if (format === 'legacy') {
    // legacy's type is pass-fail or scoring only (interactive is a word of validation:)
    if (doc.type !== undefined && doc.type !== 'pass-fail' && doc.type !== 'scoring') throw new PackageRefused('problem.yaml', `type ${JSON.stringify(doc.type)}: the legacy format's type is pass-fail or scoring (interactive is a word of validation:)`)
    if (doc.type === 'scoring') types.add('scoring')
    if (doc.grading !== undefined) {
      const g = doc.grading as Record<string, unknown>
      if (!g || typeof g !== 'object' || Array.isArray(g)) throw new PackageRefused('problem.yaml', 'grading must be a mapping')
      for (const key of Object.keys(g)) if (!['objective', 'show_test_data_groups', 'accept_score', 'reject_score', 'range', 'on_reject'].includes(key)) throw new PackageRefused('problem.yaml', `grading.${key} is not a key of grading (objective, show_test_data_groups, accept_score, reject_score, range, on_reject)`)
      if (g.objective !== undefined) {
        if (g.objective !== 'max' && g.objective !== 'min') throw new PackageRefused('problem.yaml', 'grading.objective must be max or min')
        objective = g.objective
      }
      const num = (key: string) => {
        const n = typeof g[key] === 'string' ? Number(g[key]) : g[key]
        if (typeof n !== 'number' || !Number.isFinite(n)) throw new PackageRefused('problem.yaml', `grading.${key} must be a number`)
        return n
      }
      if (g.accept_score !== undefined) groupOverrides.acceptScore = num('accept_score')
      if (g.reject_score !== undefined) groupOverrides.rejectScore = num('reject_score')
      if (g.range !== undefined) groupOverrides.range = String(g.range)
      if (g.on_reject !== undefined) {
        if (!['first_error', 'worst_error', 'grade'].includes(String(g.on_reject))) throw new PackageRefused('problem.yaml', 'grading.on_reject must be first_error, worst_error or grade')
        // problemtools: first_error → break, grade → continue, worst_error leaves testdata.yaml's
        if (g.on_reject === 'first_error') groupOverrides.onReject = 'break'
        if (g.on_reject === 'grade') groupOverrides.onReject = 'continue'
      }
      if (g.show_test_data_groups !== undefined) ignored.push('problem.yaml grading.show_test_data_groups (how results are shown on Kattis)')
    }
    const words = String(doc.validation ?? 'default').split(/\s+/).filter(Boolean)
    if (words[0] !== 'default' && words[0] !== 'custom') throw new PackageRefused('problem.yaml', `validation must start with default or custom, not ${JSON.stringify(words[0])}`)
    customValidator = words[0] === 'custom'
    for (const w of words.slice(1)) {
      if (!customValidator) throw new PackageRefused('problem.yaml', `validation: default takes no ${JSON.stringify(w)} (interactive, score and multi-pass need a custom validator)`)
      if (w === 'interactive') types.add('interactive')
      else if (w === 'score') customScores = 'required' // the score is kept only where type is scoring (problemtools)
      else if (w === 'multi-pass') types.add('multi-pass') // DOMjudge's
      else throw new PackageRefused('problem.yaml', `validation: unknown word ${JSON.stringify(w)} (interactive, score, multi-pass)`)
    }
    if (!types.has('scoring')) types.add('pass-fail')
    validatorFlags = flagList('problem.yaml', 'validator_flags', doc.validator_flags)
    if (limits.validation_passes !== undefined) validationPasses = positive('problem.yaml', 'limits.validation_passes', limits.validation_passes)
  } else {
    if ('validation' in doc) throw new PackageRefused('problem.yaml', 'validation is a key of the legacy format: 2023-07 says type:')
    const list = doc.type === undefined ? ['pass-fail'] : Array.isArray(doc.type) ? doc.type : String(doc.type).split(/\s+/)
    for (const t of list) {
      if (!['pass-fail', 'scoring', 'interactive', 'multi-pass', 'submit-answer'].includes(String(t))) throw new PackageRefused('problem.yaml', `unknown type ${JSON.stringify(t)} (pass-fail, scoring, interactive, multi-pass)`)
      if (t === 'submit-answer') throw new PackageRefused('problem.yaml', 'type submit-answer is not judged here')
      types.add(t as ProblemType)
    }
    if (types.has('pass-fail') && types.has('scoring')) throw new PackageRefused('problem.yaml', 'type cannot be both pass-fail and scoring')
    if (!types.has('scoring')) types.add('pass-fail')
    else customScores = 'allowed'
    customValidator = files.has('output_validator') || [...files.keys()].some((f) => f.startsWith('output_validator/'))
    validatorFlags = flagList('problem.yaml', 'validator_flags', doc.validator_flags)
    if (limits.validation_passes !== undefined) validationPasses = positive('problem.yaml', 'limits.validation_passes', limits.validation_passes)
  }
  const multipliers = (limits.time_multipliers ?? {}) as Record<string, unknown>
  const spec: PackageSpec = {
    format,
    name: nameOf(doc.name) || (ini?.name ?? '') || fallbackName,
    types,
    customValidator,
    validatorFlags,
    acToTimeLimit: format === 'legacy' ? (limits.time_multiplier !== undefined ? positive('problem.yaml', 'limits.time_multiplier', limits.time_multiplier) : 5) : multipliers.ac_to_time_limit !== undefined ? positive('problem.yaml', 'limits.time_multipliers.ac_to_time_limit', multipliers.ac_to_time_limit) : 2,
    timeLimitToTle: format === 'legacy' ? (limits.time_safety_margin !== undefined ? positive('problem.yaml', 'limits.time_safety_margin', limits.time_safety_margin) : 2) : multipliers.time_limit_to_tle !== undefined ? positive('problem.yaml', 'limits.time_multipliers.time_limit_to_tle', multipliers.time_limit_to_tle) : 1.5,
    timeResolution: limits.time_resolution !== undefined ? positive('problem.yaml', 'limits.time_resolution', limits.time_resolution) : 1,
    ...(limits.memory !== undefined && { memoryMb: positive('problem.yaml', 'limits.memory', limits.memory) }),
    ...(limits.output !== undefined && { outputMb: positive('problem.yaml', 'limits.output', limits.output) }),
    validationPasses,
    ...(customScores && { customScores }),
    objective,
    groupOverrides,
    ignored,
  }
  // a fixed time limit: 2023-07's limits.time_limit, else DOMjudge's .timelimit or ini (problemtools ignores both when judging: see the docs)
  if (limits.time_limit !== undefined) {
    if (format === 'legacy') throw new PackageRefused('problem.yaml', 'limits.time_limit is a key of the 2023-07 format (legacy computes the time limit from the accepted submissions)')
    spec.timeLimitSec = positive('problem.yaml', 'limits.time_limit', limits.time_limit)
    spec.timeLimitFrom = 'problem.yaml limits.time_limit'
  } else if (files.has('.timelimit')) {
    spec.timeLimitSec = positive('.timelimit', 'the time limit', files.get('.timelimit')!.toString('utf8').trim())
    spec.timeLimitFrom = '.timelimit (DOMjudge)'
  } else if (ini?.timelimit !== undefined) {
    spec.timeLimitSec = positive('domjudge-problem.ini', 'timelimit', ini.timelimit)
    spec.timeLimitFrom = 'domjudge-problem.ini timelimit'
  }
  for (const key of Object.keys(doc)) {
    if (METADATA.has(key)) ignored.push(`problem.yaml ${key} (describes the problem)`)
    else if (!['problem_format_version', 'type', 'validation', 'validator_flags', 'limits', ...(format === 'legacy' ? ['grading'] : [])].includes(key)) ignored.push(`problem.yaml ${key} (not read)`)
  }
  for (const key of Object.keys(limits)) {
    if (['compilation_time', 'compilation_memory', 'validation_time', 'validation_memory', 'validation_output', 'code'].includes(key)) ignored.push(`problem.yaml limits.${key} (Arbiter's own grading.* and limits.* apply)`)
  }
  if (ini) for (const key of Object.keys(ini)) if (key !== 'timelimit' && key !== 'name') ignored.push(`domjudge-problem.ini ${key}`)
  return spec
}
