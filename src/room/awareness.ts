// Awareness (where each participant's cursor is, and under which name and colour it shows), as the
// editor sends it: a y-protocols awareness update holding one entry, its own — client id, clock, and a
// JSON state { user, cursor } or null when the tab leaves. The server never relays what it was sent:
// it reads the entry, refuses anything but that shape (one bad entry would break every peer's cursor
// display), and writes a new one whose `user` — name, role, colour — comes from the session, the
// colour from a fixed palette. So nobody can label a cursor with someone else's name or role, or put
// CSS into a colour (the editor writes it into a style attribute).
import { z } from 'zod'
import { AppError } from '../errors.ts'

/** Cursor colours, by participant; fixed here so none comes from a client. */
export const PALETTE = ['#1e6fd9', '#c2410c', '#15803d', '#9333ea', '#be123c', '#0e7490'] as const

export const colourOf = (participantId: number) => PALETTE[participantId % PALETTE.length]

export interface AwarenessUser {
  name: string
  role: 'candidate' | 'interviewer'
  color: string
  colorLight: string
}

const Id = z.object({ client: z.number().int().min(0).max(0xffffffff), clock: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER) }).strict()
/** A Y.RelativePosition in the root text "code", as JSON (what y-codemirror.next puts in `cursor`). */
const Position = z.object({ type: z.null().optional(), tname: z.literal('code'), item: Id.nullable().optional(), assoc: z.number().int().min(-1).max(1).optional() }).strict()
const Cursor = z.object({ anchor: Position, head: Position }).strict()
type Cursor = z.infer<typeof Cursor>
/** What the editor sends; its `user` is replaced whatever it holds. */
const State = z
  .object({
    user: z.record(z.string(), z.unknown()).optional(),
    cursor: Cursor.nullable().optional(),
  })
  .strict()
  .nullable()

const bad = (why: string) => new AppError('RoomBadRequest', `awareness: ${why}`)

// lib0's encoding, as y-protocols writes awareness updates: unsigned LEB128 integers, strings as a length and UTF-8
function reader(buf: Uint8Array) {
  let pos = 0
  const uint = () => {
    let n = 0
    let mult = 1
    for (;;) {
      if (pos >= buf.length) throw bad('cut short')
      const b = buf[pos++]
      n += (b & 0x7f) * mult
      if (n > Number.MAX_SAFE_INTEGER) throw bad('number too large')
      if (b < 0x80) return n
      mult *= 128
    }
  }
  const string = () => {
    const len = uint()
    if (pos + len > buf.length) throw bad('cut short')
    const s = new TextDecoder('utf-8', { fatal: true }).decode(buf.subarray(pos, pos + len))
    pos += len
    return s
  }
  return { uint, string, done: () => pos === buf.length }
}

function writer() {
  const out: number[] = []
  const uint = (n: number) => {
    while (n > 0x7f) {
      out.push((n % 128) | 0x80)
      n = Math.floor(n / 128)
    }
    out.push(n)
  }
  const string = (s: string) => {
    const b = new TextEncoder().encode(s)
    uint(b.length)
    for (const x of b) out.push(x)
  }
  return { uint, string, bytes: () => Uint8Array.from(out) }
}

/** Reads the editor's awareness update: exactly one well-formed entry, or RoomBadRequest. */
export function readAwareness(update: Uint8Array): { clientId: number; clock: number; state: z.infer<typeof State> } {
  const r = reader(update)
  try {
    if (r.uint() !== 1) throw bad('one entry per update: your own')
    const clientId = r.uint()
    const clock = r.uint()
    if (clientId > 0xffffffff) throw bad('not a Yjs client id')
    if (clock > 0xffffffff) throw bad('clock out of range')
    let json: unknown
    try {
      json = JSON.parse(r.string())
    } catch (e) {
      if (e instanceof AppError) throw e
      throw bad('the state is not JSON')
    }
    if (!r.done()) throw bad('bytes after the entry')
    const state = State.safeParse(json)
    if (!state.success) throw bad(`not an editor's state (${state.error.issues[0].path.join('.') || 'state'}: ${state.error.issues[0].message})`)
    return { clientId, clock, state: state.data }
  } catch (e) {
    if (e instanceof AppError) throw e
    throw bad('not an awareness update')
  }
}

/** The entry as the server relays it: the cursor as sent, the user from the session. */
export function relayedAwareness(sent: ReturnType<typeof readAwareness>, who: { id: number; name: string; role: 'candidate' | 'interviewer' }): Uint8Array {
  const colour = colourOf(who.id)
  const state = sent.state === null ? null : { user: { name: who.name, role: who.role, color: colour, colorLight: `${colour}33` }, cursor: sent.state.cursor ?? null }
  const w = writer()
  w.uint(1)
  w.uint(sent.clientId)
  w.uint(sent.clock)
  w.string(JSON.stringify(state))
  return w.bytes()
}
