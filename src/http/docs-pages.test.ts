// The pages of docs/ served as HTML under /docs/pages/: an allow-list of the files found at start, so
// no request reaches another file (traversal, encoded or not), and no page runs a script.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { DOCS_PAGES_PATH, docsPageRoutes } from './docs-pages.ts'

const top = mkdtempSync(join(tmpdir(), 'arbiter-docs-pages-'))
const docs = join(top, 'docs')
mkdirSync(join(docs, 'api'), { recursive: true })
writeFileSync(join(docs, 'api', 'jobe.md'), '# Jobe\n\nSee [the room](../room.md) and `code`.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n')
writeFileSync(join(docs, 'room.md'), '# The room\n')
writeFileSync(join(docs, 'notes.txt'), 'not a page')
writeFileSync(join(top, 'secret.md'), '# outside docs/')
afterAll(() => rmSync(top, { recursive: true, force: true }))

const app = docsPageRoutes(docs)
const get = (path: string) => app.request(`${DOCS_PAGES_PATH}/${path}`)

describe('/docs/pages', () => {
  it('serves a page of docs/ as HTML, its relative links kept, under a CSP that runs no script', async () => {
    const r = await get('api/jobe.md')
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toMatch(/^text\/html/)
    expect(r.headers.get('content-security-policy')).toMatch(/default-src 'none'/)
    expect(r.headers.get('content-security-policy')).not.toMatch(/script-src/)
    const html = await r.text()
    expect(html).toContain('<title>Jobe · Arbiter</title>')
    expect(html).toContain('<h1>Jobe</h1>')
    expect(html).toContain('<a href="../room.md">the room</a>')
    expect(html).toContain('<table>')
    expect((await get('room.md')).status).toBe(200) // where that link leads
  })

  it.each(['../secret.md', '..%2Fsecret.md', '%2e%2e/secret.md', 'api/../../secret.md', 'notes.txt', 'api/missing.md', 'api', '', '/etc/passwd', '%E0%A4%A', 'api/%'])('%s: 404', async (path) => {
    const r = await get(path)
    expect(r.status).toBe(404)
    expect(await r.text()).not.toContain('outside docs/')
  })
})
