// The documentation stays navigable: the README is a short front door, and every relative link in it
// and in docs/ points at a file (and heading) that exists.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const top = join(import.meta.dirname, '..')

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    return statSync(p).isDirectory() ? markdownFiles(p) : name.endsWith('.md') ? [p] : []
  })
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
const anchorsOf = (text: string) =>
  new Set(
    text
      .replace(/```[\s\S]*?```/g, '')
      .split('\n')
      .filter((l) => /^#{1,6} /.test(l))
      .map((l) => l.replace(/^#+ /, '').trim().toLowerCase().replace(/[^\p{L}\p{N}\- _]/gu, '').replace(/ /g, '-'))
  )

describe('the documentation', () => {
  const pages = [join(top, 'README.md'), ...markdownFiles(join(top, 'docs'))]

  it('the README stays a front door (at most about 200 lines)', () => {
    expect(readFileSync(join(top, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(200)
  })

  it('every relative link points at an existing file and heading', () => {
    const broken: string[] = []
    for (const page of pages) {
      const text = readFileSync(page, 'utf8').replace(/```[\s\S]*?```/g, '')
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target)) continue
        const [path, anchor] = target.split('#')
        const file = path ? join(dirname(page), path) : page
        if (!existsSync(file)) broken.push(`${relative(top, page)} → ${target}`)
        else if (anchor && file.endsWith('.md') && !anchorsOf(readFileSync(file, 'utf8')).has(anchor)) broken.push(`${relative(top, page)} → ${target} (no such heading)`)
      }
    }
    expect(broken).toEqual([])
  })

  it('no page talks about how the project was managed', () => {
    const found = pages.filter((p) => /\b(issue|session) \d+\b/i.test(readFileSync(p, 'utf8'))).map((p) => relative(top, p))
    expect(found).toEqual([])
  })
})
