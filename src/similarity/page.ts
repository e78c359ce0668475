// The report pages, rendered on the server with no script at all: the ranked pairs with a histogram of
// every pair's similarity, and one pair side by side with its matching fragments highlighted. Every
// piece of submitted text is escaped; styles carry the response's CSP nonce; nothing is loaded from
// anywhere else.
import { escapeHtml as e } from '../http/html.ts'
import type { PairFragment } from './analyse.ts'
import { submissionsOf, type PairRow, type ReportRow } from './reports.ts'

const STYLE = `
body{font:15px/1.45 system-ui,sans-serif;margin:1.5rem auto;padding:0 1rem;color:#1d1d1f;max-width:90rem}
table{border-collapse:collapse}th,td{text-align:left;padding:.2rem .8rem .2rem 0}th{color:#555;font-weight:600}
#pairs td.sim{font-variant-numeric:tabular-nums}#pairs tr:nth-child(even){background:#f6f6f8}
.bar{fill:#9aa4b1}.bar.hot{fill:#d9534f}.axis{font-size:11px;fill:#555}
.facts th{padding-right:1rem}
.side{display:grid;grid-template-columns:1fr 1fr;gap:1rem}
.src{font:13px/1.4 ui-monospace,monospace;background:#f5f5f7;border-radius:6px;overflow:auto}
.src table{width:100%}.src td{padding:0 .5rem;white-space:pre;vertical-align:top}.src td.n{color:#888;text-align:right;user-select:none;width:1%}
.f0{background:#ffe08a}.f1{background:#b5e3ff}.f2{background:#c6f1c0}.f3{background:#ffc9de}.f4{background:#e0d1ff}.f5{background:#ffd8b0}.f6{background:#bff0ea}.f7{background:#e8e8a8}
#fragments li{margin:.15rem 0}.swatch{display:inline-block;width:.9rem;height:.9rem;border-radius:3px;vertical-align:middle;margin-right:.3rem}
`

function layout(nonce: string, title: string, body: string, refresh = false): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">${refresh ? '<meta http-equiv="refresh" content="3">' : ''}<title>${e(title)}</title>
<style nonce="${nonce}">${STYLE}</style></head>
<body><h1>${e(title)}</h1>
${body}
</body></html>`
}

export const pageHeaders = (nonce: string): Record<string, string> => ({
  'content-security-policy': `default-src 'none'; style-src 'nonce-${nonce}'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  'cache-control': 'private, no-store',
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex, nofollow',
})

export const notFoundPage = (nonce: string) => layout(nonce, 'Not found', '<p>No similarity report with this link.</p>')

const pct = (x: number) => `${(x * 100).toFixed(1)} %`

/** Every pair's similarity in 20 bins as an SVG bar chart (log scale: most pairs sit near 0). */
function histogram(bins: number[], min: number): string {
  const w = 24
  const h = 120
  const max = Math.log10(Math.max(...bins, 1) + 1)
  const bars = bins.map((count, i) => {
    const bh = count ? Math.max(2, Math.round((Math.log10(count + 1) / max) * h)) : 0
    const from = i / bins.length
    // the bins holding pairs at or above the threshold
    const hot = count > 0 && (i + 1) / bins.length > min + 1e-9
    return `<rect class="bar${hot ? ' hot' : ''}" x="${i * w + 2}" y="${h - bh}" width="${w - 4}" height="${bh}"><title>${(from * 100).toFixed(0)}–${((from + 1 / bins.length) * 100).toFixed(0)} %: ${count} pairs</title></rect>`
  })
  const labels = [0, 5, 10, 15, 20].map((i) => `<text class="axis" x="${Math.min(i * w, bins.length * w - 12)}" y="${h + 14}">${i * 5}%</text>`)
  return `<svg id="histogram" role="img" aria-label="Histogram of pair similarities" width="${bins.length * w}" height="${h + 18}" viewBox="0 0 ${bins.length * w} ${h + 18}">${bars.join('')}${labels.join('')}</svg>
<p class="axis">Every pair of submissions, by similarity (log scale); red: at or above the threshold.</p>`
}

export function reportPage(nonce: string, row: ReportRow, pairs: PairRow[], base: string): string {
  const facts: [string, string][] = [
    ['Status', row.state === 'running' ? `running (${Math.round(row.progress * 100)} %${row.stage ? `, ${row.stage}` : ''})` : row.state],
    ['Language', row.language],
    ['Submissions', String(row.submissionCount)],
    ...(row.problemId ? ([['Problem', row.problemId]] as [string, string][]) : []),
    ['Threshold', pct(row.minSimilarity)],
    ...(row.template ? ([['Template', 'subtracted']] as [string, string][]) : []),
    ...(row.pairsAbove !== null ? ([['Pairs at or above', `${row.pairsAbove}${row.pairsAbove > pairs.length ? ` (the ${pairs.length} most similar listed)` : ''}`]] as [string, string][]) : []),
    ['Created', row.createdAt.toISOString()],
  ]
  if (row.failure) facts.push(['Error', row.failure])
  let body = `<table class="facts" id="facts">${facts.map(([k, v]) => `<tr><th>${e(k)}</th><td>${e(v)}</td></tr>`).join('')}</table>`
  const excluded = submissionsOf(row).filter((s) => s.excluded)
  if (excluded.length) {
    body += `<h2>Left out</h2><p>The parser could not take these submissions; the report compares the others.</p><table id="excluded"><tr><th>Submission</th><th>Why</th></tr>${excluded
      .map((s) => `<tr><td>${e(s.he_id)}</td><td>${e(s.excluded!)}</td></tr>`)
      .join('')}</table>`
  }
  if (row.state === 'completed') {
    body += `<h2>Similarity of all pairs</h2>${histogram(row.histogramJson ? (JSON.parse(row.histogramJson) as number[]) : [], row.minSimilarity)}`
    body += `<h2>Most similar pairs</h2>`
    body += pairs.length
      ? `<table id="pairs"><tr><th>#</th><th>Submission</th><th>Submission</th><th>Similarity</th><th>Longest fragment</th><th>Overlap</th><th></th></tr>${pairs
          .map(
            (p) =>
              `<tr><td>${p.rank}</td><td>${e(p.leftHeId)}</td><td>${e(p.rightHeId)}</td><td class="sim">${pct(p.similarity)}</td><td>${p.longestFragment}</td><td>${p.overlap}</td><td><a href="${e(base)}/pairs/${p.rank}">side by side</a></td></tr>`
          )
          .join('')}</table>`
      : '<p id="no-pairs">No pair reaches the threshold.</p>'
  }
  return layout(nonce, 'Similarity report', body, row.state === 'queued' || row.state === 'running')
}

/** One side of a pair: numbered lines, those of fragment k coloured f(k mod 8) and anchored. */
function source(side: 'L' | 'R', text: string | undefined, ranges: [number, number][]): string {
  if (text === undefined) return '<p>This submission is no longer stored.</p>'
  const colour = new Map<number, number>()
  ranges.forEach(([from, to], k) => {
    for (let l = from; l <= to; l++) if (!colour.has(l)) colour.set(l, k)
  })
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''))
  return `<div class="src"><table>${lines
    .map((line, i) => {
      const n = i + 1
      const k = colour.get(n)
      return `<tr id="${side}${n}"${k === undefined ? '' : ` class="f${k % 8}" data-fragment="${k + 1}"`}><td class="n">${n}</td><td>${e(line)}</td></tr>`
    })
    .join('')}</table></div>`
}

export function pairPage(nonce: string, row: ReportRow, pair: PairRow, left: string | undefined, right: string | undefined, base: string): string {
  const fragments = JSON.parse(pair.fragmentsJson) as PairFragment[]
  const list = fragments
    .map(
      (f, k) =>
        `<li><span class="swatch f${k % 8}"></span>Fragment ${k + 1}: <a href="#L${f.left_lines[0]}">lines ${f.left_lines[0]}–${f.left_lines[1]}</a> ↔ <a href="#R${f.right_lines[0]}">lines ${f.right_lines[0]}–${f.right_lines[1]}</a></li>`
    )
    .join('')
  const body = `<p><a href="${e(base)}">← all pairs</a></p>
<table class="facts"><tr><th>Pair</th><td>#${pair.rank} of ${e(row.language)} report</td></tr><tr><th>Similarity</th><td id="similarity">${pct(pair.similarity)}</td></tr>
<tr><th>Longest fragment</th><td>${pair.longestFragment}</td></tr><tr><th>Overlap</th><td>${pair.overlap}</td></tr></table>
<h2>Matching fragments</h2><ol id="fragments">${list}</ol>
<div class="side"><section id="left"><h2>${e(pair.leftHeId)}</h2>${source('L', left, fragments.map((f) => f.left_lines))}</section>
<section id="right"><h2>${e(pair.rightHeId)}</h2>${source('R', right, fragments.map((f) => f.right_lines))}</section></div>`
  return layout(nonce, `Pair #${pair.rank}: ${pct(pair.similarity)} similar`, body)
}
