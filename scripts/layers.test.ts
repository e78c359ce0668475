// The layer order of src/, held: a table of layers, top first, and the protocol faces. A file imports
// only files of its own layer or of a layer further down, type-only imports included (a type names what
// it is defined by), but for the hubs that the composition roots fill (deps.ts, cli-types.ts): they name
// contract files of any layer, types-only files, and nothing else with code but HUB_CODE; no file they
// reach imports them back, and no file imports itself through others, type-only imports included. No
// protocol face imports another; the shared edge and app.ts import no face at all (they know no
// protocol); and no two folders import each other at run time (a loop makes an order impossible). Test
// code (*.test.ts, src/testing, src/e2e) is outside the graph. A folder or top-level file missing from the
// table fails: place it when you add it.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const src = join(import.meta.dirname, '..', 'src')

/** The layers, top first. Each entry is a folder directly under src/ or a top-level file. */
export const LAYERS: ReadonlyArray<{ layer: string; nodes: string[] }> = [
  // nothing imports these: they build the server, the command line and the jail daemon
  { layer: 'wiring', nodes: ['main.ts', 'app.ts', 'cli.ts', 'cli-areas.ts', 'protocols.ts', 'jail-daemon.ts', 'schedule.ts', 'process-signals.ts'] },
  // one folder per wire protocol (see FACES) and the areas that serve people rather than a protocol
  {
    layer: 'protocol faces and areas',
    nodes: ['hackerearth', 'hackerearth-v3', 'hackerearth-v4', 'similarity', 'interviews', 'judge0', 'jobe', 'piston', 'room', 'admin', 'metrics'],
  },
  // what every edge uses: body parsing, auth, rate limits, the OpenAPI builder; /health's parts
  { layer: 'shared edge', nodes: ['http', 'health.ts'] },
  // the protocol-free submission core and what it keeps: problems, packages, clients, the sandbox hosts' queue
  { layer: 'core', nodes: ['evaluation', 'problems', 'packages', 'sandbox-hosts', 'clients'] },
  { layer: 'jobs', nodes: ['jobs'] },
  { layer: 'grading', nodes: ['grading'] },
  { layer: 'sandbox', nodes: ['sandbox'] },
  { layer: 'storage', nodes: ['storage'] },
  { layer: 'config and base', nodes: ['config.ts', 'config-reload.ts', 'languages.ts', 'languages-types.ts', 'errors.ts', 'log.ts', 'log-types.ts', 'deps.ts', 'cli-types.ts', 'json-limits.ts'] },
]

/** The protocol faces: each a family of folders that may share among themselves, never with another family. */
export const FACES: Record<string, string[]> = {
  // v3 and v4 share src/hackerearth/; similarity reports and the interview partner API are HackerEarth's too
  hackerearth: ['hackerearth', 'hackerearth-v3', 'hackerearth-v4', 'similarity', 'interviews'],
  judge0: ['judge0'],
  jobe: ['jobe'],
  piston: ['piston'],
}

/**
 * What knows no protocol: the shared edge and the app that mounts the faces. A face reaches them only
 * through what it registers in src/protocols.ts (src/http/face.ts), so none of these imports a face,
 * not even a type.
 */
export const PROTOCOL_FREE: string[] = ['app.ts', 'http', 'health.ts']

/**
 * What the composition roots fill: main.ts builds Deps, cli.ts a CliContext. Every layer imports them and
 * they name every layer's contracts, so they may type-import a layer above them, but only a contract file
 * (isContract: types only, no run-time code, like jobs/pool-types.ts), which its module imports and satisfies.
 */
export const HUBS: string[] = ['deps.ts', 'cli-types.ts']

/** Files with run-time code a hub may still name, each with why; each imports nothing of src/, so no loop passes through it. */
export const HUB_CODE: Record<string, string> = {
  'config.ts': "Config is the config's zod schema's own type (the schema is the single source of its shape)",
}

/** A contract file: nothing in it runs (imports and exports of types, interfaces, type aliases, declarations). */
export function isContract(text: string): boolean {
  const file = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS)
  const typeOnlyNames = (names: ts.NamedImportBindings | ts.NamedExportBindings | undefined) =>
    !!names && ts.isNamedImports(names) ? names.elements.every((n) => n.isTypeOnly) : !!names && ts.isNamedExports(names) && names.elements.every((n) => n.isTypeOnly)
  return file.statements.every((st) => {
    if (ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st)) return true
    if (ts.isModuleDeclaration(st)) return !!st.modifiers?.some((m) => m.kind === ts.SyntaxKind.DeclareKeyword)
    if (ts.isImportDeclaration(st)) return !!st.importClause && (st.importClause.isTypeOnly || (!st.importClause.name && typeOnlyNames(st.importClause.namedBindings)))
    if (ts.isExportDeclaration(st)) return st.isTypeOnly || typeOnlyNames(st.exportClause)
    return false
  })
}

/**
 * Imports known to go the wrong way, each `file → target` (paths under src/) with why it is still here.
 * Only shrinks: an entry that no longer matches fails the test, so a fix removes its line.
 */
export const ALLOWED: Record<string, string> = {}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) return name === 'testing' || name === 'e2e' ? [] : sources(p)
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [p] : []
  })
}

export type Import = { spec: string; line: number; typeOnly: boolean }

/** Relative specifiers a file imports, with their line: static imports and exports, side-effect imports, dynamic imports. */
export function importsOf(text: string): Import[] {
  const lineAt = (index: number) => text.slice(0, index).split('\n').length
  const out: Import[] = []
  for (const m of text.matchAll(/^(?:import|export)\s+(type\s+)?([^'";]*?)\s*from\s*'(\.[^']+)'/gm)) {
    const names = /^\{([^}]*)\}$/.exec(m[2].trim())
    const allTypes = !!names && names[1].split(',').every((n) => !n.trim() || n.trim().startsWith('type '))
    out.push({ spec: m[3], line: lineAt(m.index), typeOnly: !!m[1] || allTypes })
  }
  for (const m of text.matchAll(/^import\s+'(\.[^']+)'/gm)) out.push({ spec: m[1], line: lineAt(m.index), typeOnly: false })
  for (const m of text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g)) out.push({ spec: m[1], line: lineAt(m.index), typeOnly: false })
  return out
}

/** Relative specifiers a file needs at run time. */
export const runtimeImports = (text: string) => importsOf(text).filter((i) => !i.typeOnly).map((i) => i.spec)

type Edge = { from: string; to: string; where: string; key: string; typeOnly: boolean; target: string }

/** Every import between two nodes of the tree under root (a node: a folder directly under root, or a top-level file). */
export function edgesOf(root: string): Edge[] {
  const nodeOf = (file: string) => relative(root, file).split('/')[0]
  const out: Edge[] = []
  for (const file of sources(root)) {
    for (const i of importsOf(readFileSync(file, 'utf8'))) {
      const target = resolve(dirname(file), i.spec)
      const [from, to] = [nodeOf(file), nodeOf(target)]
      if (from === to) continue
      const key = `${relative(root, file)} → ${relative(root, target)}`
      out.push({ from, to, where: `src/${relative(root, file)}:${i.line}`, key, typeOnly: i.typeOnly, target })
    }
  }
  return out
}

/** What breaks the order: each a line naming the file and line, the target, and the rule. */
export function breaches(
  root: string,
  layers: typeof LAYERS,
  faces: typeof FACES,
  allowed: Record<string, string> = {},
  protocolFree: string[] = PROTOCOL_FREE,
  hubs: string[] = HUBS,
  hubCode: Record<string, string> = HUB_CODE,
): { breaches: string[]; unplaced: string[]; staleAllowed: string[] } {
  const rank = new Map(layers.flatMap((l, i) => l.nodes.map((n) => [n, i] as const)))
  const face = new Map(Object.entries(faces).flatMap(([f, nodes]) => nodes.map((n) => [n, f] as const)))
  const edges = edgesOf(root)
  const used = new Set<string>()
  const out: string[] = []
  const contracts = new Map<string, boolean>()
  const contract = (file: string) => contracts.get(file) ?? contracts.set(file, isContract(readFileSync(file, 'utf8'))).get(file)!
  for (const e of edges) {
    const [a, b] = [rank.get(e.from), rank.get(e.to)]
    const hub = hubs.includes(e.from)
    let rule = ''
    if (a !== undefined && b !== undefined && b < a && !(hub && contract(e.target)))
      rule = `${layers[a].layer} imports ${layers[b].layer}, a layer above it${e.typeOnly ? ' (a type-only import)' : ''}`
    if (hub && !contract(e.target) && hubCode[relative(root, e.target)] === undefined)
      rule = `${e.from} names a file with run-time code: it names contracts only (a types-only file its module satisfies)`
    const [fa, fb] = [face.get(e.from), face.get(e.to)]
    if (fa && fb && fa !== fb) rule = `the ${fa} face imports the ${fb} face`
    if (fb && protocolFree.includes(e.from)) rule = `${e.from}, which knows no protocol, imports the ${fb} face`
    if (!rule) continue
    if (allowed[e.key] !== undefined) used.add(e.key)
    else out.push(`${e.where} imports src/${e.key.split(' → ')[1]}: ${rule}`)
  }
  // nothing a hub reaches imports it back, type-only imports included (else its type is defined by what it injects)
  const graph = fileGraph(root)
  for (const hub of hubs) for (const loop of loopsThrough(graph, join(root, hub))) out.push(`${loop}: an import loop through ${hub}`)
  const nodes = new Set(readdirSync(root).filter((n) => n !== 'testing' && n !== 'e2e' && (statSync(join(root, n)).isDirectory() || (n.endsWith('.ts') && !n.endsWith('.test.ts')))))
  return {
    breaches: out,
    unplaced: [...nodes].filter((n) => !rank.has(n)).sort(),
    staleAllowed: Object.keys(allowed).filter((k) => !used.has(k)),
  }
}

type FileGraph = Map<string, { target: string; where: string }[]>

/** Every file's imports, type-only ones included, each with its `src/file:line`. */
export function fileGraph(root: string): FileGraph {
  const graph: FileGraph = new Map()
  for (const file of sources(root))
    graph.set(file, importsOf(readFileSync(file, 'utf8')).map((i) => ({ target: resolve(dirname(file), i.spec), where: `src/${relative(root, file)}:${i.line}` })))
  return graph
}

/**
 * The import loops, type-only imports included, through one file: each as the chain of `file:line`s that
 * leaves it and comes back (the shortest way back from each file it imports).
 */
export function loopsThrough(importsOfFile: FileGraph, start: string): string[] {
  const out: string[] = []
  for (const first of importsOfFile.get(start) ?? []) {
    // breadth first from what start imports, keeping the way each file was reached
    const way = new Map<string, string[]>([[first.target, [first.where]]])
    const queue = [first.target]
    while (queue.length) {
      const file = queue.shift()!
      const found = (importsOfFile.get(file) ?? []).find((i) => i.target === start)
      if (found) {
        out.push([...way.get(file)!, found.where].join(' → '))
        break
      }
      for (const i of importsOfFile.get(file) ?? []) {
        if (way.has(i.target)) continue
        way.set(i.target, [...way.get(file)!, i.where])
        queue.push(i.target)
      }
    }
  }
  return out
}

describe('the import graph of src/', () => {
  it('reads runtime imports, not type-only ones', () => {
    expect(runtimeImports(`import type { A } from './a.ts'\nimport { type B, type C } from './b.ts'\nimport { d, type E } from './d.ts'\nexport { f } from './f.ts'\nconst g = await import('./g.ts')\nimport './h.ts'`)).toEqual(['./d.ts', './f.ts', './h.ts', './g.ts'])
  })

  it('names the line of each import', () => {
    expect(importsOf(`// one\nimport {\n  a,\n} from './a.ts'\n\nimport type { B } from './b.ts'`)).toEqual([
      { spec: './a.ts', line: 2, typeOnly: false },
      { spec: './b.ts', line: 6, typeOnly: true },
    ])
  })

  it('keeps the layer order and the faces apart: every folder placed, no import the wrong way', () => {
    const found = breaches(src, LAYERS, FACES, ALLOWED, PROTOCOL_FREE)
    expect(found.unplaced, 'folders or top-level files missing from LAYERS').toEqual([])
    expect(found.breaches).toEqual([])
    expect(found.staleAllowed, 'ALLOWED entries that no longer occur: delete them').toEqual([])
  })

  it('has hubs that name contracts only: HUB_CODE files import nothing of src/, and deps.ts is a contract itself', () => {
    for (const file of Object.keys(HUB_CODE)) expect(importsOf(readFileSync(join(src, file), 'utf8')), file).toEqual([])
    expect(isContract(readFileSync(join(src, 'deps.ts'), 'utf8'))).toBe(true)
  })

  it('tells a contract file from one with code', () => {
    expect(isContract(`// c\nimport type { A } from './a.ts'\nimport { type B } from './b.ts'\nexport type { C } from './c.ts'\nexport interface D { a: A }\ntype E = B\nexport type { E }\ndeclare module 'x' { interface Y {} }`)).toBe(true)
    for (const code of [`export const x = 1`, `import { a } from './a.ts'`, `import './a.ts'`, `export { f } from './f.ts'`, `export function f() {}`, `import * as a from './a.ts'`, `export enum E { A }`])
      expect(isContract(`export type T = 1\n${code}`), code).toBe(false)
  })

  it('fails on a planted wrong-way import, an import between faces and an unplaced folder, naming file and line', () => {
    const root = mkdtempSync(join(tmpdir(), 'layers-'))
    try {
      const write = (path: string, text: string) => {
        mkdirSync(dirname(join(root, path)), { recursive: true })
        writeFileSync(join(root, path), text)
      }
      write('main.ts', `import { route } from './alpha/routes.ts'\n`)
      write('alpha/routes.ts', `import { accept } from '../core/accept.ts'\nimport type { Reply } from '../beta/reply.ts'\n`)
      write('beta/reply.ts', `import { accept } from '../core/accept.ts'\n`)
      write('core/accept.ts', `import { x } from '../base.ts'\n\n// the planted ones: a run-time and a type-only import of a layer above\nimport { route } from '../alpha/routes.ts'\nimport type { Reply } from '../beta/reply.ts'\n`)
      write('base.ts', `export const x = 1\n`)
      write('stray/file.ts', `export const y = 2\n`)
      // the shared edge may not name a face, not even by a type; an edge file below a face is fine
      write('edge/errors.ts', `import { x } from '../base.ts'\nimport type { Reply } from '../beta/reply.ts'\n`)
      write('alpha/face.ts', `import { bodyOf } from '../edge/errors.ts'\n`)
      // the hub (base layer) may name a contract of any layer, and a HUB_CODE file; not a file with code
      write('deps.ts', `import type { Pool } from './core/pool-types.ts'\nimport type { Config } from './config.ts'\nimport type { Accept } from './core/accept.ts'\n`)
      write('config.ts', `export const schema = 1\n`)
      // a contract whose chain leads back to the hub: a type loop through deps.ts
      write('core/pool-types.ts', `import type { Job } from './job-types.ts'\nexport interface Pool { run(j: Job): void }\n`)
      write('core/job-types.ts', `import type { Deps } from '../deps.ts'\nexport type Job = { deps: Deps }\n`)
      const layers = [
        { layer: 'wiring', nodes: ['main.ts'] },
        { layer: 'faces', nodes: ['alpha', 'beta'] },
        { layer: 'edge', nodes: ['edge'] },
        { layer: 'core', nodes: ['core'] },
        { layer: 'base', nodes: ['base.ts', 'deps.ts', 'config.ts'] },
      ]
      const faces = { alpha: ['alpha'], beta: ['beta'] }
      const found = breaches(root, layers, faces, {}, ['edge'], ['deps.ts'], { 'config.ts': 'its schema' })
      expect(found.breaches).toEqual([
        'src/alpha/routes.ts:2 imports src/beta/reply.ts: the alpha face imports the beta face',
        'src/core/accept.ts:4 imports src/alpha/routes.ts: core imports faces, a layer above it',
        'src/core/accept.ts:5 imports src/beta/reply.ts: core imports faces, a layer above it (a type-only import)',
        'src/deps.ts:3 imports src/core/accept.ts: deps.ts names a file with run-time code: it names contracts only (a types-only file its module satisfies)',
        'src/edge/errors.ts:2 imports src/beta/reply.ts: edge, which knows no protocol, imports the beta face',
        'src/deps.ts:1 → src/core/pool-types.ts:1 → src/core/job-types.ts:1: an import loop through deps.ts',
      ])
      expect(found.unplaced).toEqual(['stray'])
      // an allowed entry silences its line; one that matches nothing is reported stale
      const allowed = { 'core/accept.ts → alpha/routes.ts': 'planted', 'core/gone.ts → alpha/routes.ts': 'fixed' }
      const again = breaches(root, layers, faces, allowed, ['edge'])
      expect(again.breaches).toHaveLength(5)
      expect(again.staleAllowed).toEqual(['core/gone.ts → alpha/routes.ts'])
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })

  it('has no two nodes importing each other', () => {
    const all = new Map<string, string[]>()
    for (const e of edgesOf(src).filter((e) => !e.typeOnly)) {
      const key = `${e.from} → ${e.to}`
      all.set(key, [...(all.get(key) ?? []), `${e.where} imports ${e.key.split(' → ')[1]}`])
    }
    const loops: string[] = []
    for (const [key, why] of all) {
      const [a, b] = key.split(' → ')
      const back = all.get(`${b} → ${a}`)
      if (a < b && back) loops.push(`${key}: ${why[0]} … and back: ${back[0]}`)
    }
    expect(loops).toEqual([])
  })

  it('has no file importing itself through others, type-only imports included', () => {
    const graph = fileGraph(src)
    expect([...graph.keys()].flatMap((file) => loopsThrough(graph, file).slice(0, 1))).toEqual([])
  })

  it('has no longer loops either (A → B → C → A): the folders can be put in one order', () => {
    const next = new Map<string, Set<string>>()
    for (const e of edgesOf(src).filter((e) => !e.typeOnly)) next.set(e.from, (next.get(e.from) ?? new Set()).add(e.to))
    // depth-first search for a back edge, keeping the path that closes it
    const state = new Map<string, 'open' | 'done'>()
    const loops: string[] = []
    const visit = (node: string, path: string[]) => {
      state.set(node, 'open')
      for (const to of next.get(node) ?? []) {
        if (state.get(to) === 'open') loops.push([...path.slice(path.indexOf(to)), node, to].join(' → '))
        else if (!state.has(to)) visit(to, [...path, node])
      }
      state.set(node, 'done')
    }
    for (const node of next.keys()) if (!state.has(node)) visit(node, [])
    expect(loops).toEqual([])
  })
})
