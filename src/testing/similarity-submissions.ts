// Generated Python submissions for the benchmark and the tests (not used by the server): independent
// programs of about 60 lines grown from a small random grammar, and planted copies of some of them
// disguised the way students do it: every identifier renamed, functions reordered, comments rewritten,
// and a few lines added.

/** A seeded PRNG (mulberry32), so a run can be repeated exactly. */
export function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const WORDS = ['total', 'count', 'value', 'items', 'best', 'acc', 'step', 'left', 'right', 'mid', 'seen', 'cur', 'prev', 'limit', 'score', 'data', 'row', 'col', 'idx', 'res', 'tmp', 'buf', 'size', 'low', 'high']
const VERBS = ['solve', 'compute', 'scan', 'merge', 'walk', 'check', 'build', 'count', 'reduce', 'fold', 'split', 'gather', 'rank', 'probe', 'shift']
const NOUNS = ['grid', 'pairs', 'primes', 'digits', 'chunks', 'path', 'stack', 'queue', 'window', 'table', 'runs', 'peaks', 'gaps', 'sums', 'bits']

interface Gen {
  r: () => number
  pick<T>(xs: readonly T[]): T
  int(lo: number, hi: number): number
}

const gen = (r: () => number): Gen => ({
  r,
  pick: (xs) => xs[Math.floor(r() * xs.length)]!,
  int: (lo, hi) => lo + Math.floor(r() * (hi - lo + 1)),
})

function expr(g: Gen, vars: string[], depth: number, funcs: string[]): string {
  const roll = g.r()
  if (depth <= 0 || roll < 0.3) return g.r() < 0.6 && vars.length ? g.pick(vars) : String(g.int(0, 99))
  if (roll < 0.65) return `${expr(g, vars, depth - 1, funcs)} ${g.pick(['+', '-', '*', '//', '%'])} ${expr(g, vars, depth - 1, funcs)}`
  if (roll < 0.8) return `${g.pick(['abs', 'min', 'max', 'int'])}(${expr(g, vars, depth - 1, funcs)}${g.r() < 0.5 ? `, ${expr(g, vars, 0, funcs)}` : ''})`.replace(/^(abs|int)\(([^,]*), [^)]*\)$/, '$1($2)')
  if (roll < 0.9 && funcs.length) return `${g.pick(funcs)}(${expr(g, vars, depth - 1, funcs)})`
  return `(${expr(g, vars, depth - 1, funcs)} if ${cond(g, vars, funcs)} else ${expr(g, vars, 0, funcs)})`
}

const cond = (g: Gen, vars: string[], funcs: string[]) =>
  `${expr(g, vars, 1, funcs)} ${g.pick(['<', '>', '==', '!=', '<=', '>='])} ${expr(g, vars, 1, funcs)}`

/** Statements at one indentation; returns the lines. */
function block(g: Gen, vars: string[], funcs: string[], indent: string, budget: number, depth: number): string[] {
  const out: string[] = []
  while (out.length < budget) {
    const roll = g.r()
    const fresh = `${g.pick(WORDS)}${g.int(0, 9)}`
    if (roll < 0.3 || vars.length < 2) {
      out.push(`${indent}${fresh} = ${expr(g, vars, 2, funcs)}`)
      vars.push(fresh)
    } else if (roll < 0.42) {
      out.push(`${indent}${g.pick(vars)} ${g.pick(['+=', '-=', '*='])} ${expr(g, vars, 1, funcs)}`)
    } else if (roll < 0.55 && depth < 2) {
      out.push(`${indent}if ${cond(g, vars, funcs)}:`, ...block(g, [...vars], funcs, indent + '    ', g.int(1, 3), depth + 1))
      if (g.r() < 0.5) out.push(`${indent}else:`, ...block(g, [...vars], funcs, indent + '    ', g.int(1, 2), depth + 1))
    } else if (roll < 0.67 && depth < 2) {
      const i = g.pick(['i', 'j', 'k', 'n', 'x'])
      out.push(`${indent}for ${i} in range(${expr(g, vars, 1, funcs)}):`, ...block(g, [...vars, i], funcs, indent + '    ', g.int(1, 3), depth + 1))
    } else if (roll < 0.74 && depth < 2) {
      const v = g.pick(vars)
      out.push(`${indent}while ${v} > ${g.int(0, 9)}:`, ...block(g, [...vars], funcs, indent + '    ', g.int(1, 2), depth + 1), `${indent}    ${v} -= ${g.int(1, 5)}`)
    } else if (roll < 0.82) {
      out.push(`${indent}${fresh} = [${expr(g, ['q', ...vars], 1, funcs)} for q in range(${g.int(2, 20)}) if q % ${g.int(2, 5)} ${g.pick(['==', '!='])} 0]`)
      vars.push(`len(${fresh})`)
    } else if (roll < 0.9) {
      out.push(`${indent}print(${expr(g, vars, 1, funcs)})`)
    } else {
      out.push(`${indent}# ${g.pick(VERBS)} the ${g.pick(NOUNS)} ${g.pick(['first', 'again', 'here', 'once more', 'carefully'])}`)
    }
  }
  return out
}

export interface Program {
  /** Functions in order, each as its lines (the first line is its `def`). */
  functions: string[][]
  main: string[]
}

/** One independent program of about 60 lines. */
export function program(r: () => number): Program {
  const g = gen(r)
  const funcs: string[] = []
  const functions: string[][] = []
  const count = g.int(3, 4)
  for (let f = 0; f < count; f++) {
    const name = `${g.pick(VERBS)}_${g.pick(NOUNS)}${f}`
    const params = ['a', 'b', 'c'].slice(0, g.int(1, 3))
    const body = block(g, [...params], funcs, '    ', g.int(6, 9), 0)
    functions.push([`def ${name}(${params.join(', ')}):`, `    """${g.pick(VERBS)} ${g.pick(NOUNS)}"""`, ...body, `    return ${expr(g, params, 2, funcs)}`])
    funcs.push(name)
  }
  const main = ['def main():', '    n = int(input())', ...block(g, ['n'], funcs, '    ', g.int(5, 8), 0), '', 'main()']
  return { functions, main }
}

export const render = (p: Program): string => [...p.functions.flatMap((f) => [...f, '', '']), ...p.main, ''].join('\n')

const KEYWORDS = new Set(['def', 'return', 'if', 'else', 'for', 'in', 'range', 'while', 'print', 'input', 'int', 'abs', 'min', 'max', 'len', 'main', 'and', 'or', 'not'])

/** A disguised copy: identifiers renamed, functions shuffled, comments rewritten, a few lines added. */
export function disguise(p: Program, r: () => number): string {
  const g = gen(r)
  const names = new Map<string, string>()
  const rename = (line: string) =>
    line.replace(/("""[^"]*"""|#.*$)|\b([A-Za-z_][A-Za-z0-9_]*)\b/g, (m, text: string | undefined, id: string | undefined) => {
      if (text) return text.startsWith('#') ? `# ${g.pick(['note', 'todo', 'see below', 'helper', 'fix'])}: ${g.pick(NOUNS)}` : `"""${g.pick(NOUNS)} ${g.pick(VERBS)}er"""`
      if (!id || KEYWORDS.has(id)) return m
      if (!names.has(id)) names.set(id, `${g.pick(['my', 'the', 'tmp', 'x', 'var'])}_${g.pick(WORDS)}_${names.size}`)
      return names.get(id)!
    })
  const functions = p.functions.map((f) => f.map(rename))
  // shuffle (Fisher–Yates); Python resolves names at call time, so the order does not matter
  for (let i = functions.length - 1; i > 0; i--) {
    const j = Math.floor(g.r() * (i + 1))
    ;[functions[i], functions[j]] = [functions[j]!, functions[i]!]
  }
  const added = functions.map((f) => [f[0]!, `    # ${g.pick(VERBS)} step`, `    ${g.pick(['debug', 'trace'])}_${g.int(0, 99)} = ${g.int(0, 9)}`, ...f.slice(1)])
  return ['# my own solution', ...added.flatMap((f) => [...f, '']), ...p.main.map(rename), ''].join('\n')
}

export interface GeneratedSet {
  files: { id: string; source: string }[]
  /** The planted (original, copy) pairs by id. */
  planted: [string, string][]
}

/** `count` submissions of which about `copyShare` are disguised copies of another one. */
export function generateSubmissions(opts: { count: number; seed: number; copyShare: number }): GeneratedSet {
  const r = rng(opts.seed)
  const copies = Math.round(opts.count * opts.copyShare)
  const originals = opts.count - copies
  const programs: Program[] = []
  const files: GeneratedSet['files'] = []
  for (let i = 0; i < originals; i++) {
    programs.push(program(r))
    files.push({ id: `s${i}`, source: render(programs[i]!) })
  }
  const planted: [string, string][] = []
  for (let c = 0; c < copies; c++) {
    const of = Math.floor(r() * originals)
    const id = `s${originals + c}`
    files.push({ id, source: disguise(programs[of]!, r) })
    planted.push([`s${of}`, id])
  }
  // two copies of the same original are also copies of each other
  const byOriginal = new Map<string, string[]>()
  for (const [o, c] of planted) byOriginal.set(o, [...(byOriginal.get(o) ?? []), c])
  for (const cs of byOriginal.values()) for (let a = 0; a < cs.length; a++) for (let b = a + 1; b < cs.length; b++) planted.push([cs[a]!, cs[b]!])
  return { files, planted }
}
