// The dashboard's HTML: server-rendered, every value escaped; no inline script (the live panel's
// poller is /admin/assets/admin.js), so the page's CSP allows scripts from this origin only.
import { escapeHtml as e } from '../http/html.ts'
import type { Dashboard } from './dashboard.ts'
import type { HealthReport } from '../health.ts'

export const ADMIN_CSP =
  "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

const STYLE = `body{font:14px system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:1em;color:#222}
h1{font-size:1.4em}h2{font-size:1.1em;margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;width:100%}td,th{padding:3px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
.ok{color:#070}.bad{color:#b00}.muted{color:#777}.live span{display:inline-block;margin-right:2em;font-size:1.2em}
form.inline{display:inline}button{cursor:pointer}code{font-size:12px}`

const layout = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${e(title)}</title><meta name="robots" content="noindex">
<style>${STYLE}</style></head><body>${body}</body></html>`

export function signInPage(error?: string): string {
  return layout(
    'Arbiter admin: sign in',
    `<h1>Arbiter admin</h1>
${error ? `<p class="bad" id="error">${e(error)}</p>` : ''}
<form method="post" action="/admin/login">
<label>Admin token <input type="password" name="token" id="token" autocomplete="current-password" required size="50"></label>
<button type="submit" id="sign-in">Sign in</button></form>
<p class="muted">Make a token on the server: <code>npm run -s cli -- admin create --name NAME</code></p>`
  )
}

const when = (d: Date | null) => (d ? e(new Date(d).toISOString().replace('T', ' ').slice(0, 19)) + ' UTC' : '')
const hidden = (csrf: string) => `<input type="hidden" name="csrf" value="${e(csrf)}">`

/** /health's parts: what jobs need, each ok or what is wrong. */
function healthTable(h: HealthReport): string {
  const rows = Object.entries(h.parts).map(([name, p]) => `<tr><td>${e(name.replace('_', ' '))}</td><td class="${p.ok ? 'ok' : 'bad'}">${p.ok ? 'ok' : 'failing'}</td><td>${e(p.detail)}</td></tr>`)
  const fault = h.last_storage_fault
  return `<h2>Health</h2>
<p id="health-status" class="${h.can_run ? 'ok' : 'bad'}">${h.can_run ? 'Jobs can run.' : 'Jobs cannot run now (/health answers 503).'}</p>
<table id="health"><tr><th>part</th><th>state</th><th>detail</th></tr>
${rows.join('\n')}
</table>${fault ? `\n<p class="muted" id="last-storage-fault">Last storage fault: ${e(fault.cause)} (${e(fault.code)}${fault.path ? ` on ${e(fault.path)}` : ''}) at ${e(fault.at)}</p>` : ''}`
}

export function dashboardPage(d: Dashboard, admin: string, csrf: string, flash?: string, health?: HealthReport): string {
  const l = d.live
  return layout(
    'Arbiter admin',
    `<h1>Arbiter admin <small class="muted">signed in as ${e(admin)}</small>
<form class="inline" method="post" action="/admin/logout">${hidden(csrf)}<button id="sign-out">Sign out</button></form></h1>
${flash ? `<p class="ok" id="flash">${e(flash)}</p>` : ''}
${health ? healthTable(health) : ''}
<h2>Queue and pool</h2>
<p class="live" id="live"><span>queued <b id="live-queued">${l.queued}</b></span><span>running <b id="live-running">${l.running}</b></span>
<span>oldest queued <b id="live-oldest">${l.oldestQueuedSec}</b> s</span><span>pool <b id="live-busy">${l.pool.busy}</b>/<b id="live-size">${l.pool.size}</b> busy</span></p>
<h2>Recent submissions</h2>
<table id="recent"><tr><th>#</th><th>client</th><th>API</th><th>language</th><th>state</th><th>verdict</th><th>created</th></tr>
${d.recent.map((s) => `<tr><td><a href="${e(s.webLink)}">${s.id}</a></td><td>${e(s.client)}</td><td>${e(s.api)}</td><td>${e(s.language)}</td><td>${e(s.state)}</td><td class="${s.verdict === 'AC' ? 'ok' : 'bad'}">${e(s.verdict ?? '')}</td><td>${when(s.createdAt)}</td></tr>`).join('\n')}
</table>
<h2>Recent similarity reports</h2>
${d.similarity.length ? `<table id="similarity"><tr><th>report</th><th>client</th><th>language</th><th>problem</th><th>submissions</th><th>state</th><th>pairs at or above</th><th>created</th></tr>
${d.similarity.map((r) => `<tr><td><a href="${e(r.webLink)}">${e(r.publicId.slice(0, 8))}</a></td><td>${e(r.client)}</td><td>${e(r.language)}</td><td>${e(r.problemId ?? 'he_ids')}</td><td>${r.submissions}</td><td>${e(r.state === 'running' ? `running ${Math.round(r.progress * 100)} %` : r.state)}</td><td>${r.pairsAbove ?? ''}</td><td>${when(r.createdAt)}</td></tr>`).join('\n')}
</table>` : '<p class="muted" id="similarity">None yet (<code>POST /v4/partner/code-evaluation/similarity/</code> or <code>cli similarity</code>).</p>'}
<h2>Languages</h2>
<p class="muted">Self-tests: ${d.selfTestsAt ? `last run ${e(d.selfTestsAt)} (<code>cli doctor</code>)` : 'never run (<code>npm run -s cli -- doctor --lang all</code>)'}</p>
<table id="languages"><tr><th>code</th><th>name</th><th>version</th><th>self-test</th></tr>
${d.languages.map((g) => `<tr><td>${e(g.code)}</td><td>${e(g.name)}</td><td>${e(g.version ?? 'not provisioned')}</td><td class="${g.selfTest?.ok ? 'ok' : g.selfTest ? 'bad' : 'muted'}">${g.selfTest ? (g.selfTest.ok ? `passed (${g.selfTest.ms ?? '?'} ms)` : `failed${g.selfTest.error ? `: ${e(g.selfTest.error)}` : ''}`) : 'not run'}</td></tr>`).join('\n')}
</table>
<h2>Clients</h2>
<table id="clients"><tr><th>id</th><th>name</th><th>secret</th><th>used / quota</th><th></th></tr>
${d.clients.map((c) => `<tr><td>${c.id}</td><td>${e(c.name)}</td><td><code>${e(c.hint)}…</code></td><td>${c.used} / ${c.quota === 0 ? 'unlimited' : c.quota}</td><td>${c.revoked ? '<span class="muted">revoked</span>' : `<form class="inline" method="post" action="/admin/clients/${c.id}/revoke">${hidden(csrf)}<button class="revoke">Revoke</button></form>`}</td></tr>`).join('\n')}
</table>
<form method="post" action="/admin/clients" id="new-client">${hidden(csrf)}<label>New client <input name="name" id="client-name" required maxlength="100"></label>
<label>quota <input name="quota" id="client-quota" type="number" min="0" placeholder="default"></label> <button>Create</button></form>
<h2>Outbox</h2>
<p>${d.outbox.pending} pending; ${d.outbox.failed.length} failed${d.outbox.failed.length ? ` <form class="inline" method="post" action="/admin/outbox/retry">${hidden(csrf)}<button id="retry-all">Retry all failed</button></form>` : ''}</p>
<table id="outbox"><tr><th>#</th><th>kind</th><th>target</th><th>attempts</th><th>last error</th><th></th></tr>
${d.outbox.failed.map((o) => `<tr><td>${o.id}</td><td>${e(o.kind)}</td><td>${e(o.target)}</td><td>${o.attempts}</td><td>${e(o.lastError ?? '')}</td><td><form class="inline" method="post" action="/admin/outbox/${o.id}/retry">${hidden(csrf)}<button class="retry">Retry</button></form></td></tr>`).join('\n')}
</table>
<h2>Upcoming and ongoing interviews</h2>
<table id="interviews"><tr><th>title</th><th>candidate</th><th>starts</th><th>status</th></tr>
${d.interviews.map((i) => `<tr><td>${e(i.title)}</td><td>${e(i.candidate)}</td><td>${when(i.startAt)}</td><td>${e(i.status)}</td></tr>`).join('\n')}
</table>
<script src="/admin/assets/admin.js"></script>`
  )
}

/** The live panel: polls /admin/live every 2 s and fills the numbers in. */
export const LIVE_SCRIPT = `(function () {
  function tick() {
    fetch('/admin/live', { credentials: 'same-origin' }).then(function (r) { return r.ok ? r.json() : null }).then(function (l) {
      if (!l) return
      document.getElementById('live-queued').textContent = l.queued
      document.getElementById('live-running').textContent = l.running
      document.getElementById('live-oldest').textContent = l.oldestQueuedSec
      document.getElementById('live-busy').textContent = l.pool.busy
      document.getElementById('live-size').textContent = l.pool.size
    }).catch(function () {})
  }
  setInterval(tick, 2000)
})()
`
