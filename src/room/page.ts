// Pure: the room's HTML. Server-rendered, every value HTML-escaped; one small inline script (allowed by
// its CSP nonce) keeps the editor in sync over server-sent events and POSTs changes, runs, feedback and
// the end with the session's CSRF token. No build step, no external assets.
import type { RoomLanguage, RunOutput } from './room.ts'
import { escapeHtml } from '../http/html.ts'
import type { StoredRatings } from '../interviews/report.ts'

export interface RoomView {
  nonce: string
  /** The room's path; the script's calls are relative to it. */
  base: string
  csrf: string
  me: { id: number; name: string; role: 'candidate' | 'interviewer' }
  interview: { title: string; startDatetime: string; endDatetime: string; status: string }
  participants: { id: number; name: string; role: 'candidate' | 'interviewer' }[]
  languages: RoomLanguage[]
  state: { language: string; code: string; input: string; version: number }
  lastRun: RunOutput | null
  /** Interviewers only: the criteria, the scale and the form's current values. */
  feedback?: {
    evalParams: string[]
    keys: { key: string; verbose: string; labels: readonly string[] }[]
    evalLabels: readonly string[]
    results: [code: string, label: string][]
    mine: { result: string | null; ratings: StoredRatings; evalParamsRatings: StoredRatings } | null
  }
}

/** Where the editor's bundle (src/room/editor/client.ts) is served. */
export const EDITOR_PATH = '/interviews/room-assets/editor.js'

/** JSON inside <script type="application/json">: nothing in it can close the element or break a line. */
export const scriptJson = (v: unknown): string =>
  JSON.stringify(v).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')

/**
 * Headers of every room page: no caching, no framing, scripts and style sheets only with this response's
 * nonce; style attributes are allowed (the editor colours the others' cursors and selections with them).
 */
export const pageHeaders = (nonce: string): Record<string, string> => ({
  'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; style-src-attr 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
})

const STYLE = `
*{box-sizing:border-box}body{margin:0;font:15px/1.45 system-ui,sans-serif;color:#1d2327;background:#f4f5f7}
header{padding:.8rem 1.2rem;background:#fff;border-bottom:1px solid #dcdfe4}h1{margin:0;font-size:1.3rem}
.meta{color:#555;margin:.2rem 0 0}.badge{display:inline-block;padding:0 .5rem;border-radius:1rem;background:#e3ecfa;font-size:.85rem}
.badge.completed{background:#e7e7e7}.badge.ongoing{background:#dff3e4}main{display:grid;grid-template-columns:minmax(0,1fr) 22rem;gap:1rem;padding:1rem 1.2rem}
@media (max-width:900px){main{grid-template-columns:1fr}}section,aside>div{background:#fff;border:1px solid #dcdfe4;border-radius:6px;padding:.8rem}
aside{display:flex;flex-direction:column;gap:1rem}.bar{display:flex;gap:.6rem;align-items:center;flex-wrap:wrap;margin-bottom:.5rem}
textarea{width:100%;font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;border:1px solid #c9cdd3;border-radius:4px;padding:.5rem;tab-size:4}
#code{border:1px solid #c9cdd3;border-radius:4px;min-height:16rem;font-size:13px}#code .cm-editor{min-height:16rem}#code .cm-editor.cm-focused{outline:2px solid #1e6fd966}#code .cm-scroller{font-family:ui-monospace,SFMono-Regular,Menlo,monospace}
#code{min-height:22rem;resize:vertical}#stdin{min-height:4rem}pre{white-space:pre-wrap;word-break:break-word;margin:.3rem 0;font:13px/1.4 ui-monospace,monospace}
#stdout{background:#f7f7f9;padding:.5rem;min-height:2.5rem;border-radius:4px}#stderr:empty,#compile:empty{display:none}#stderr,#compile{color:#a4262c}
h2{font-size:1rem;margin:.2rem 0 .5rem}ul{padding-left:1.1rem;margin:.2rem 0}.online::after{content:" ●";color:#2e9e4f}
button{font:inherit;padding:.35rem .9rem;border-radius:4px;border:1px solid #6b7280;background:#fff;cursor:pointer}button.primary{background:#2457c5;color:#fff;border-color:#2457c5}
button.danger{background:#b42318;color:#fff;border-color:#b42318}button:disabled{opacity:.5;cursor:default}
fieldset{border:1px solid #e2e4e8;border-radius:4px;margin:0 0 .6rem;padding:.4rem .6rem}legend{font-weight:600}
fieldset select{width:100%}fieldset textarea{min-height:2.2rem;margin-top:.3rem;font-family:inherit}
.muted{color:#666;font-size:.85rem}#ended{display:none;background:#fff4ce;border:1px solid #e0c35c;padding:.5rem 1rem;margin:1rem 1.2rem 0;border-radius:6px}
body.ended #ended{display:block}
`

function feedbackForm(f: NonNullable<RoomView['feedback']>): string {
  const options = (labels: readonly string[], chosen: number | undefined) =>
    `<option value="">– not rated –</option>` +
    labels.map((l, i) => `<option value="${i + 1}"${chosen === i + 1 ? ' selected' : ''}>${i + 1} – ${escapeHtml(l)}</option>`).join('')
  const block = (name: string, legend: string, labels: readonly string[], current?: { rating: number; comment: string }) =>
    `<fieldset><legend>${escapeHtml(legend)}</legend>` +
    `<select name="r:${escapeHtml(name)}" aria-label="${escapeHtml(legend)} rating">${options(labels, current?.rating)}</select>` +
    `<textarea name="c:${escapeHtml(name)}" aria-label="${escapeHtml(legend)} comment" placeholder="Comment">${escapeHtml(current?.comment ?? '')}</textarea></fieldset>`
  const mine = f.mine
  return (
    `<div><h2>Evaluation criteria</h2>` +
    (f.evalParams.length ? `<ul id="eval-params">${f.evalParams.map((p) => `<li>${escapeHtml(p)}</li>`).join('')}</ul>` : `<p class="muted">None were given.</p>`) +
    `</div><div><h2>Feedback</h2><form id="feedback">` +
    `<fieldset><legend>Overall result</legend>` +
    f.results
      .map(([code, label]) => `<label><input type="radio" name="result" value="${escapeHtml(code)}" required${mine?.result === code ? ' checked' : ''}> ${escapeHtml(label)}</label> `)
      .join('') +
    `</fieldset>` +
    f.keys.map((k) => block(`k:${k.key}`, k.verbose, k.labels, mine?.ratings[k.key])).join('') +
    f.evalParams.map((p, i) => block(`p:${i}`, p, f.evalLabels, mine?.evalParamsRatings[p])).join('') +
    `<button type="submit" class="primary">Save feedback</button> <span id="fb-state" class="muted" role="status"></span></form></div>` +
    `<div><button id="end" type="button" class="danger">End interview</button><p class="muted">Ends it for everyone; your feedback can still be changed afterwards.</p></div>`
  )
}

export function renderRoomPage(v: RoomView): string {
  const boot = {
    base: v.base,
    csrf: v.csrf,
    me: v.me,
    status: v.interview.status,
    state: v.state,
    lastRun: v.lastRun,
    // language code → its editor mode: the editor highlights by the manifest's word, not by guessing from the code
    modes: Object.fromEntries(v.languages.flatMap((l) => (l.editorMode ? [[l.code, l.editorMode]] : []))),
    start: v.interview.startDatetime,
    evalParams: v.feedback?.evalParams ?? [],
    keys: v.feedback?.keys.map((k) => k.key) ?? [],
  }
  const people = v.participants
    .map((p) => `<li data-pid="${p.id}">${escapeHtml(p.name)} <span class="muted">(${p.role}${p.id === v.me.id ? ', you' : ''})</span></li>`)
    .join('')
  const langs = v.languages
    .map((l) => `<option value="${escapeHtml(l.code)}"${l.code === v.state.language ? ' selected' : ''}>${escapeHtml(l.name)}</option>`)
    .join('')
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<meta name="robots" content="noindex"><title>${escapeHtml(v.interview.title)} – interview</title>` +
    `<style nonce="${v.nonce}">${STYLE}</style></head>` +
    `<body class="${v.interview.status === 'completed' ? 'ended' : ''}">` +
    `<header><h1 id="title">${escapeHtml(v.interview.title)}</h1>` +
    `<p class="meta">Starts <time id="start" datetime="${escapeHtml(v.interview.startDatetime)}">${escapeHtml(v.interview.startDatetime)}</time>` +
    ` · <span id="status" class="badge ${escapeHtml(v.interview.status)}">${escapeHtml(v.interview.status)}</span>` +
    ` · you are ${escapeHtml(v.me.name)} (${v.me.role}) · <span id="conn" class="muted">connecting…</span></p></header>` +
    `<div id="ended" role="status">This interview has ended. The editor is read-only.</div>` +
    `<main><section aria-label="Code">` +
    `<div class="bar"><label>Language <select id="lang">${langs}</select></label>` +
    `<button id="run" type="button" class="primary">Run</button><span id="sync" class="muted" role="status"></span></div>` +
    // the editor (CodeMirror, bundled and served by this server) fills this; the text arrives as the shared document
    `<div id="code"></div>` +
    `<label for="stdin"><h2>Input</h2></label><textarea id="stdin" spellcheck="false" aria-label="Program input">${escapeHtml(v.state.input)}</textarea>` +
    `<h2>Output</h2><div id="run-status" class="muted" role="status"></div><pre id="compile"></pre><pre id="stdout"></pre><pre id="stderr"></pre>` +
    `</section><aside><div><h2>Participants</h2><ul id="people">${people}</ul></div>` +
    (v.feedback ? feedbackForm(v.feedback) : '') +
    `</aside></main>` +
    `<script type="application/json" id="boot">${scriptJson(boot)}</script>` +
    `<script nonce="${v.nonce}" src="${EDITOR_PATH}"></script>` +
    `<script nonce="${v.nonce}">${SCRIPT}</script></body></html>`
  )
}

/** A page with one message (a bad link, a session that ended). */
export function renderMessagePage(nonce: string, title: string, text: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
    `<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style nonce="${nonce}">body{font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem}</style></head>` +
    `<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></body></html>`
  )
}

// The browser side. The code is a shared Yjs document in the editor (ArbiterEditor, the bundle): every
// keystroke merges, nobody's typing is lost, and the others' cursors show. The language and the input
// stay plain fields, last writer wins: a change is POSTed 200 ms after typing stops, and a change from
// someone else is applied unless one of ours is still on its way (ours, being newer, then wins).
const SCRIPT = `(function () {
'use strict';
var boot = JSON.parse(document.getElementById('boot').textContent);
function $(id) { return document.getElementById(id); }
var lang = $('lang'), stdin = $('stdin'), runBtn = $('run'), sync = $('sync');
var cid = Math.random().toString(36).slice(2) + Date.now().toString(36);
var version = boot.state.version, timer = null, inflight = false, ended = false;

function post(path, body) {
  return fetch(boot.base + path, {
    method: 'POST', credentials: 'same-origin',
    headers: { 'content-type': 'application/json', 'x-csrf-token': boot.csrf },
    body: JSON.stringify(body || {})
  }).then(function (r) {
    return r.json().catch(function () { return {}; }).then(function (j) {
      if (!r.ok) { var e = new Error(j.message || ('HTTP ' + r.status)); e.status = r.status; throw e; }
      return j;
    });
  });
}
function failed(e) { return e.status === 401 ? 'signed out: open your link again' : e.message; }

var editor = window.ArbiterEditor.mount({
  parent: $('code'), mode: boot.modes[boot.state.language], me: boot.me, nonce: document.currentScript.nonce,
  readOnly: boot.status === 'completed', post: post,
  onReplaced: function () { window.location.reload(); },
  onSync: function (s) {
    if (ended) return;
    sync.textContent = s === 'editing' ? 'editing…' : s === 'saved' ? (timer || inflight ? 'editing…' : 'saved') : 'not saved: ' + s.error;
  }
});
function current() { return { code: editor.text(), language: lang.value, input: stdin.value, cid: cid }; }

function changed() {
  if (ended) return;
  sync.textContent = 'editing…';
  clearTimeout(timer);
  timer = setTimeout(push, 200);
}
function push() {
  timer = null;
  if (inflight) { timer = setTimeout(push, 100); return; }
  inflight = true;
  post('/code', current()).then(function (j) {
    version = Math.max(version, j.version);
    sync.textContent = 'saved';
  }, function (e) { sync.textContent = 'not saved: ' + failed(e); })
  .then(function () { inflight = false; });
}
stdin.addEventListener('input', changed);
lang.addEventListener('change', function () { editor.setMode(boot.modes[lang.value]); changed(); });

function setValue(el, v) {
  if (el.value === v) return;
  var focused = document.activeElement === el, a = el.selectionStart, b = el.selectionEnd;
  el.value = v;
  if (focused) el.setSelectionRange(Math.min(a, v.length), Math.min(b, v.length));
}
function applyState(s) {
  if (s.version < version) return;
  version = s.version;
  if (s.cid === cid || timer || inflight) return;
  setValue(stdin, s.input);
  if (lang.value !== s.language) { lang.value = s.language; editor.setMode(boot.modes[s.language]); }
}

function showRun(r) {
  if (!r) return;
  var detail = r.status_detail && r.status_detail !== 'NA' ? ' (' + r.status_detail + ')' : '';
  $('run-status').textContent = r.status + detail + ' · ' + Number(r.time_used).toFixed(2) + ' s · ' + Math.round(r.memory_used_kb / 1024) +
    ' MB · ' + r.language + ' · run by ' + r.by + (r.truncated ? ' · output cut' : '');
  $('compile').textContent = r.compile_output || '';
  $('stdout').textContent = r.stdout;
  // no empty output box under a compile error
  $('stdout').hidden = !r.stdout && !!r.compile_output;
  $('stderr').textContent = r.stderr;
}
runBtn.addEventListener('click', function () {
  if (ended) return;
  clearTimeout(timer); timer = null;
  runBtn.disabled = true;
  $('run-status').textContent = 'Running…';
  // the server runs its copy of the document: first it gets every edit made so far, so Run runs what is on screen
  editor.flush().then(function () {
    return post('/run', current()).then(function (r) { sync.textContent = 'saved'; showRun(r); },
      function (e) { sync.textContent = ''; $('run-status').textContent = 'Not run: ' + failed(e); });
  }, function (e) { $('run-status').textContent = 'Not run: your last edit was not saved (' + failed(e) + ')'; })
  .then(function () { runBtn.disabled = ended; });
});

function setStatus(status) {
  var el = $('status');
  el.textContent = status;
  el.className = 'badge ' + status;
  if (status !== 'completed') return;
  ended = true;
  clearTimeout(timer); timer = null;
  sync.textContent = 'read-only';
  document.body.classList.add('ended');
  editor.setReadOnly(); stdin.readOnly = true; lang.disabled = true; runBtn.disabled = true;
  var end = $('end'); if (end) end.disabled = true;
}
function markOnline(ids) {
  var items = document.querySelectorAll('#people li');
  for (var i = 0; i < items.length; i++) items[i].classList.toggle('online', ids.indexOf(Number(items[i].dataset.pid)) >= 0);
}

var start = $('start'), d = new Date(start.getAttribute('datetime'));
if (!isNaN(d)) start.textContent = d.toLocaleString(undefined, { dateStyle: 'full', timeStyle: 'short' });
setStatus(boot.status);
showRun(boot.lastRun);

var es = new EventSource(boot.base + '/events');
es.onopen = function () { $('conn').textContent = 'live'; };
es.onerror = function () { $('conn').textContent = es.readyState === 2 ? 'disconnected: reload, or open your link again' : 'reconnecting…'; };
es.addEventListener('state', function (e) { applyState(JSON.parse(e.data)); });
es.addEventListener('doc', function (e) { var d = JSON.parse(e.data); if (d.cid !== editor.cid) editor.applyRemote(d.update, !!d.init); });
es.addEventListener('awareness', function (e) { var d = JSON.parse(e.data); if (d.cid !== editor.cid) editor.applyAwareness(d.update); });
es.addEventListener('run', function (e) { showRun(JSON.parse(e.data)); });
es.addEventListener('running', function (e) { $('run-status').textContent = 'Running (started by ' + JSON.parse(e.data).by + ')…'; });
es.addEventListener('status', function (e) { setStatus(JSON.parse(e.data).status); });
es.addEventListener('presence', function (e) { markOnline(JSON.parse(e.data).online); });
es.addEventListener('signed-out', function () { es.close(); $('conn').textContent = 'signed out: open your link again'; });

var form = $('feedback');
if (form) form.addEventListener('submit', function (e) {
  e.preventDefault();
  var fd = new FormData(form), ratings = {}, params = {};
  function score(name) {
    var r = fd.get('r:' + name);
    return r ? { rating: Number(r), comment: String(fd.get('c:' + name) || '') } : null;
  }
  boot.keys.forEach(function (k) { var s = score('k:' + k); if (s) ratings[k] = s; });
  boot.evalParams.forEach(function (p, i) { var s = score('p:' + i); if (s) params[p] = s; });
  var state = $('fb-state');
  state.textContent = 'Saving…';
  post('/feedback', { result: fd.get('result'), ratings: ratings, eval_params_ratings: params })
    .then(function () { state.textContent = 'Feedback saved'; }, function (err) { state.textContent = 'Not saved: ' + failed(err); });
});
var endBtn = $('end');
if (endBtn) endBtn.addEventListener('click', function () {
  if (!window.confirm('End the interview for everyone?')) return;
  endBtn.disabled = true;
  post('/end').then(function (j) { window.location.assign(j.redirect_url); },
    function (err) { endBtn.disabled = false; alert('Could not end the interview: ' + failed(err)); });
});
})();`
