// Layers that point one way: no folder under src/ imports, at run time, a folder (or top-level file)
// that imports it back. Type-only imports are free (erased at build); test code (*.test.ts, src/testing,
// src/e2e) is outside the graph. The wiring files (main.ts, app.ts, cli.ts, …) are nodes like any
// other: nothing may import them back either.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const src = join(import.meta.dirname, '..', 'src')

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) return name === 'testing' || name === 'e2e' ? [] : sources(p)
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [p] : []
  })
}

/** A folder directly under src/, or a top-level file by its name. */
const nodeOf = (file: string) => relative(src, file).split('/')[0]

/** Relative specifiers a file needs at run time: static imports and exports that are not type-only, and dynamic imports. */
export function runtimeImports(text: string): string[] {
  const specs: string[] = []
  for (const m of text.matchAll(/^(?:import|export)\s+(type\s+)?([^'";]*?)\s*from\s*'(\.[^']+)'/gm)) {
    if (m[1]) continue
    const names = /^\{([^}]*)\}$/.exec(m[2].trim())
    if (names && names[1].split(',').every((n) => !n.trim() || n.trim().startsWith('type '))) continue
    specs.push(m[3])
  }
  for (const m of text.matchAll(/^import\s+'(\.[^']+)'/gm)) specs.push(m[1])
  for (const m of text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g)) specs.push(m[1])
  return specs
}

function edges(): Map<string, string[]> {
  const out = new Map<string, string[]>()
  for (const file of sources(src)) {
    for (const spec of runtimeImports(readFileSync(file, 'utf8'))) {
      const target = resolve(dirname(file), spec)
      const [a, b] = [nodeOf(file), nodeOf(target)]
      if (a === b) continue
      const key = `${a} → ${b}`
      out.set(key, [...(out.get(key) ?? []), `${relative(src, file)} imports ${relative(src, target)}`])
    }
  }
  return out
}

describe('the import graph of src/', () => {
  it('reads runtime imports, not type-only ones', () => {
    expect(runtimeImports(`import type { A } from './a.ts'\nimport { type B, type C } from './b.ts'\nimport { d, type E } from './d.ts'\nexport { f } from './f.ts'\nconst g = await import('./g.ts')\nimport './h.ts'`)).toEqual(['./d.ts', './f.ts', './h.ts', './g.ts'])
  })

  it('has no two nodes importing each other', () => {
    const all = edges()
    const loops: string[] = []
    for (const [key, why] of all) {
      const [a, b] = key.split(' → ')
      const back = all.get(`${b} → ${a}`)
      if (a < b && back) loops.push(`${key}: ${why[0]} … and back: ${back[0]}`)
    }
    expect(loops).toEqual([])
  })

  it('has no longer loops either (A → B → C → A): the folders can be put in one order', () => {
    const next = new Map<string, Set<string>>()
    for (const key of edges().keys()) {
      const [a, b] = key.split(' → ')
      next.set(a, (next.get(a) ?? new Set()).add(b))
    }
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
