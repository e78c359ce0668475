// The two link targets: the v4 `output` URL (raw stdout as text/plain to any plain GET) and the v3
// web_link page (source, language, status and output, HTML-escaped). The 128-bit code_id in the path is
// the only key: whoever holds the link may read it, as with HackerEarth's own links.
import { documented } from '../http/route-docs.ts'
import { scoreOf, testsOf, type SubmissionTest } from '../evaluation/graded.ts'
import { evaluationDocs } from './openapi-docs.ts'
import { Hono, type Context } from 'hono'
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import { resolveLanguage } from '../languages.ts'
import { escapeHtml } from '../http/html.ts'
import type { Submission } from './replies.ts'
import { getByCodeId } from '../evaluation/submissions.ts'

const PRIVATE_HEADERS = {
  'cache-control': 'private, no-store',
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex, nofollow',
  'x-content-type-options': 'nosniff',
}

export function outputRoutes(deps: Deps): Hono {
  const app = new Hono()

  // GET /output/<code_id>
  app.get('/output/:codeId', documented(evaluationDocs.output, (c: Context) => {
    const row = getByCodeId(deps, c.req.param('codeId') ?? '')
    if (row.state !== 'completed') throw new AppError('NotFound', 'the output is not ready yet')
    // whatever the GET asks for (Accept: application/json, a client-secret header…), the answer is the text
    return c.body(row.stdout ?? '', 200, {
      ...PRIVATE_HEADERS,
      'content-type': 'text/plain; charset=utf-8',
      'access-control-allow-origin': '*',
    })
  }))

  // GET /output/<code_id>/tests/<test id>
  app.get('/output/:codeId/tests/:testId', documented(evaluationDocs.testOutput, (c: Context) => {
    const row = getByCodeId(deps, c.req.param('codeId') ?? '')
    const test = testsOf(deps.db, row.id).find((t) => t.name === c.req.param('testId'))
    if (!test || test.status === null || test.status === 'SKIPPED') throw new AppError('NotFound', 'no output of that test')
    return c.body(test.stdout ?? '', 200, {
      ...PRIVATE_HEADERS,
      'content-type': 'text/plain; charset=utf-8',
      'access-control-allow-origin': '*',
    })
  }))

  // the code view and its 404 alike: nothing but inline styles
  const VIEW_HEADERS = {
    ...PRIVATE_HEADERS,
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  }
  // GET /view/<code_id>
  app.get('/view/:codeId', documented(evaluationDocs.view, (c: Context) => {
    let row: Submission
    try {
      row = getByCodeId(deps, c.req.param('codeId') ?? '')
    } catch {
      return c.html(page('Not found', '<p>No code with this link.</p>'), 404, VIEW_HEADERS)
    }
    const language = resolveLanguage(deps.languages, row.language)?.name ?? row.language
    const tests = row.checkerJson ? testsOf(deps.db, row.id) : []
    return c.html(page(`Code ${row.codeId}`, codeView(row, language) + testTable(tests)), 200, VIEW_HEADERS)
  }))
  return app
}

const status = (row: Submission): string => {
  if (row.state !== 'completed') return row.state === 'compiled' ? 'Compiled, running' : 'Queued'
  if (row.failure) return `Failed on our side: ${row.failure}`
  if (row.compileOnly) return row.verdict === 'CE' ? 'Compilation error' : 'Compiled'
  const detail = row.statusDetail && row.statusDetail !== 'NA' ? ` (${row.statusDetail})` : ''
  return `${row.verdict}${detail}`
}

function codeView(row: Submission, language: string): string {
  const e = escapeHtml
  const facts: [string, string][] = [
    ['Language', language],
    ['Status', status(row)],
    ['Compile status', row.compileStatus === null ? 'Compiling...' : row.compileStatus === 'OK' ? 'OK' : 'Error (see below)'],
  ]
  if (row.state === 'completed' && !row.compileOnly && row.verdict !== 'CE') {
    facts.push(['Time', `${(row.timeUsedSec ?? 0).toFixed(3)} s of ${row.timeLimitSec} s`])
    facts.push(['Memory', `${row.memoryUsedKb ?? 0} KB of ${row.memoryLimitKb} KB`])
  }
  const rows = facts.map(([k, v]) => `<tr><th>${e(k)}</th><td id="${e(k.toLowerCase().replace(/ /g, '-'))}">${e(v)}</td></tr>`)
  const block = (id: string, title: string, text: string | null) =>
    text ? `<h2>${e(title)}</h2><pre id="${id}">${e(text)}</pre>` : ''
  return [
    `<table>${rows.join('')}</table>`,
    block('source', 'Source', row.source),
    block('input', 'Input', row.input),
    row.compileStatus && row.compileStatus !== 'OK' ? block('compiler', 'Compiler output', row.compileStatus) : '',
    row.state === 'completed' && !row.compileOnly ? `<h2>Output</h2><pre id="output">${e(row.stdout ?? '')}</pre>` : '',
    block('stderr', 'Standard error', row.stderr),
  ].join('\n')
}

/** A graded submission's tests: one row each, in order (not yet run: empty). */
function testTable(tests: SubmissionTest[]): string {
  if (!tests.length) return ''
  const e = escapeHtml
  const score = scoreOf(tests)
  const rows = tests.map(
    (t) =>
      `<tr><td>${e(t.name)}</td><td class="status">${e(t.status ?? '')}${t.statusDetail && t.statusDetail !== 'NA' ? ` (${e(t.statusDetail)})` : ''}</td>` +
      `<td>${t.timeUsedSec === null ? '' : `${t.timeUsedSec.toFixed(3)} s`}</td><td>${t.memoryUsedKb === null ? '' : `${t.memoryUsedKb} KB`}</td>` +
      `<td>${t.earnedPoints ?? 0} / ${t.points}</td><td>${e(t.checkerMessage ?? '')}</td></tr>`
  )
  return `\n<h2>Tests: ${score.passed} of ${score.total} passed, ${score.points} of ${score.max_points} points</h2>
<table id="tests"><tr><th>Test</th><th>Status</th><th>Time</th><th>Memory</th><th>Points</th><th>Checker</th></tr>${rows.join('')}</table>`
}

const page = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow"><title>${escapeHtml(title)}</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f}
table{border-collapse:collapse}th,td{text-align:left;padding:.2rem 1rem .2rem 0}th{color:#555;font-weight:600}
pre{background:#f5f5f7;padding:.75rem;overflow:auto;white-space:pre-wrap;word-break:break-word;border-radius:6px}
</style></head>
<body><h1>${escapeHtml(title)}</h1>
${body}
</body></html>`
