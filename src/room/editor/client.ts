// The room's editor in the browser (bundled by src/room/editor/bundle.ts with esbuild, served by
// Arbiter itself): CodeMirror 6 with the language's mode, line numbers, indentation, bracket matching,
// search and Tab indenting; the text is a Yjs document shared through the room's own calls — local
// updates POSTed to /doc, remote ones arriving on the event stream — and y-codemirror.next shows the
// others' cursors and selections with their names. The page's inline script drives it through
// window.ArbiterEditor.mount().
import { indentWithTab } from '@codemirror/commands'
import { Compartment, EditorState } from '@codemirror/state'
import { EditorView, keymap, type EditorViewConfig } from '@codemirror/view'
import { basicSetup } from 'codemirror'
import { yCollab } from 'y-codemirror.next'
import { Awareness, applyAwarenessUpdate, encodeAwarenessUpdate, removeAwarenessStates } from 'y-protocols/awareness'
import * as Y from 'yjs'
import { modeExtension } from './modes.ts'

// the browser's window (the project's tsconfig has no DOM library, on purpose: the server must not use it)
declare const window: { addEventListener(type: 'pagehide', fn: () => void): void; ArbiterEditor?: unknown }

const toB64 = (u: Uint8Array) => {
  let s = ''
  for (let i = 0; i < u.length; i += 0x8000) s += String.fromCharCode(...u.subarray(i, i + 0x8000))
  return btoa(s)
}
const fromB64 = (s: string) => Uint8Array.from(atob(s), (ch) => ch.charCodeAt(0))

export interface MountOptions {
  parent: NonNullable<EditorViewConfig['parent']>
  /** The language's editor mode (its manifest entry's editor_mode, mode-names.ts). */
  mode: string | undefined
  me: { id: number; name: string }
  /** The page's CSP nonce, for the style elements CodeMirror adds. */
  nonce: string
  readOnly: boolean
  /** POSTs a body to the room's path (the page's own post(): cookie and CSRF token). */
  post: (path: string, body: unknown) => Promise<unknown>
  /** The server's document is not the one this tab has (it was rebuilt): the page reloads. */
  onReplaced: () => void
  /** The local document changed (the page shows "editing…" / "saved" from these). */
  onSync: (state: 'editing' | 'saved' | { error: string }) => void
}

export function mount(o: MountOptions) {
  const doc = new Y.Doc()
  const text = doc.getText('code')
  const awareness = new Awareness(doc)
  // the others see the name, role and colour the server gives this session, whatever is set here
  awareness.setLocalStateField('user', { name: o.me.name })
  const cid = Math.random().toString(36).slice(2)
  let ready = false
  let readOnly = o.readOnly

  // local changes are batched: merged into one update and POSTed 60 ms after the first, one request at a
  // time in order (each builds on the ones before); flush() sends what waits at once, for Run
  let pending: Uint8Array[] = []
  let timer: ReturnType<typeof setTimeout> | undefined
  /** The latest POST, settled when it and every one before it are done. */
  let last: Promise<void> = Promise.resolve()
  const flush = (): Promise<void> => {
    clearTimeout(timer)
    timer = undefined
    if (!pending.length) return last
    const update = Y.mergeUpdates(pending)
    pending = []
    last = last
      .catch(() => {})
      .then(() => o.post('/doc', { update: toB64(update), cid }))
      .then(
        () => {
          if (!pending.length) o.onSync('saved')
        },
        (e: Error) => {
          o.onSync({ error: e.message })
          throw e
        }
      )
    last.catch(() => {})
    return last
  }
  doc.on('update', (update: Uint8Array, origin: unknown) => {
    if (origin === 'remote' || !ready) return
    pending.push(update)
    o.onSync('editing')
    timer ??= setTimeout(flush, 60)
  })
  /** The server's whole document holds everything this tab got from the others (its own edits may still be on their way). */
  const covers = (whole: Uint8Array) => {
    const theirs = Y.decodeStateVector(Y.encodeStateVectorFromUpdate(whole))
    for (const [client, clock] of Y.decodeStateVector(Y.encodeStateVector(doc))) {
      if (client !== doc.clientID && (theirs.get(client) ?? 0) < clock) return false
    }
    return true
  }
  let awarenessTimer: ReturnType<typeof setTimeout> | undefined
  awareness.on('update', ({ added, updated, removed }: { added: number[]; updated: number[]; removed: number[] }, origin: unknown) => {
    if (origin === 'remote' || !ready) return
    const changed = [...added, ...updated, ...removed].filter((id) => id === doc.clientID)
    if (!changed.length || awarenessTimer) return
    awarenessTimer = setTimeout(() => {
      awarenessTimer = undefined
      o.post('/awareness', { update: toB64(encodeAwarenessUpdate(awareness, [doc.clientID])), cid }).catch(() => {})
    }, 50)
  })
  window.addEventListener('pagehide', () => removeAwarenessStates(awareness, [doc.clientID], 'local'))

  const mode = new Compartment()
  const editable = new Compartment()
  const view = new EditorView({
    parent: o.parent,
    state: EditorState.create({
      doc: '',
      extensions: [
        basicSetup,
        keymap.of([indentWithTab]),
        EditorView.cspNonce.of(o.nonce),
        mode.of(modeExtension(o.mode)),
        // read-only until the shared document has arrived: an edit made before would never be sent
        editable.of([EditorState.readOnly.of(true), EditorView.editable.of(false)]),
        yCollab(text, awareness),
        EditorView.contentAttributes.of({ 'aria-label': 'Code editor' }),
      ],
    }),
  })

  return {
    view,
    /** This tab's id on the wire: the event stream echoes its own updates back, and they are skipped. */
    cid,
    /** The whole text (what Run runs). */
    text: () => text.toString(),
    /** Sends the edits not yet sent; settles when the server has every edit made so far (rejects if one was refused). */
    flush,
    /** The document as the server has it: the full state at connect, then others' updates. */
    applyRemote(update64: string, init = false) {
      const update = fromB64(update64)
      // a stream that reopens gets the whole document again; when it lacks what this tab already had from
      // the others, the server's document was rebuilt (repaired from its text): merging would double the
      // text, so the page starts again from the server's
      if (init && ready && !covers(update)) return o.onReplaced()
      Y.applyUpdate(doc, update, 'remote')
      if (init && !ready) {
        ready = true
        if (!readOnly) view.dispatch({ effects: editable.reconfigure([EditorState.readOnly.of(false), EditorView.editable.of(true)]) })
        // tell the others where this cursor is
        awareness.setLocalStateField('user', awareness.getLocalState()?.user)
      }
    },
    applyAwareness(update64: string) {
      applyAwarenessUpdate(awareness, fromB64(update64), 'remote')
    },
    /** Another language was chosen: its editor mode. */
    setMode(name: string | undefined) {
      view.dispatch({ effects: mode.reconfigure(modeExtension(name)) })
    },
    setReadOnly() {
      readOnly = true
      view.dispatch({ effects: editable.reconfigure([EditorState.readOnly.of(true), EditorView.editable.of(false)]) })
    },
  }
}

window.ArbiterEditor = { mount }
