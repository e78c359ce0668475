// The documentation stays navigable: the README is a short front door, every relative link in it and
// in docs/ points at a file (and heading) that exists, every folder of src/ is on the layout page, and
// no page (nor sandbox/README.md, toolchains/README.md) talks about how the project was managed.
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

/** Pages outside docs/ that readers are sent to, scanned for management talk too. */
const managementScanned = [join(top, 'sandbox', 'README.md'), join(top, 'toolchains', 'README.md')]

/** How the project was managed, which no page should say: issue and session numbers, rounds, numbered points of a brief, "the … issue". */
const MANAGEMENT_TALK = [
  /\b(issue|session)s? #?\d+/i,
  /\bround[- ](one|two|three|four|five)\b/i,
  /\bpoints? \d+(?![.,]\d)/i,
  /\bthe\b[^.;:()]{0,30}(?<!(first|zod|validation|schema) )\bissue(?!s|d)\b/i, // a zod issue is prose
]

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

  it('the layout page names every folder and every top-level source file of src/', () => {
    const layout = readFileSync(join(top, 'docs', 'development', 'layout.md'), 'utf8')
    const src = join(top, 'src')
    const missing = readdirSync(src, { withFileTypes: true })
      .filter((e) => (e.isDirectory() ? true : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')))
      .map((e) => `src/${e.name}${e.isDirectory() ? '/' : ''}`)
      .filter((name) => !layout.includes(name))
    expect(missing).toEqual([])
  })

  it('no page talks about how the project was managed', () => {
    const found: string[] = []
    for (const page of [...pages, ...managementScanned]) {
      readFileSync(page, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          const hit = MANAGEMENT_TALK.map((re) => line.match(re)?.[0]).find(Boolean)
          if (hit) found.push(`${relative(top, page)}:${i + 1}: ${hit}`)
        })
    }
    expect(found).toEqual([])
  })

  it('the management-talk check catches what it is meant to and passes real prose', () => {
    const caught = (line: string) => MANAGEMENT_TALK.some((re) => re.test(line))
    for (const line of ['as issue 9 asks', 'the guarantee (issue 9, 2)', 'docs/sandbox/round-three-jobs.md', 'in round two', 'Round three', '(point 8, the last part)', "the issue's case", 'the 5x of the prepared-jails issue', 'since session 4', 'issue #12'])
      expect(caught(line), line).toBe(true)
    for (const line of ['upgrade all have round 0, so they are claimed first', 'a floating point 1.5', 'the first issue in that order is the one reported', 'the validation issue names the field', 'Works, with minor issues', 'a session cookie', 'issued by the server', 'rounds up + 1', 'at this point the run'])
      expect(caught(line), line).toBe(false)
  })
})
