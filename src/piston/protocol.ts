// Piston as a protocol of the submission core: synchronous only (the reply is the result), so no
// stages are shown and no callbacks are sent.
import type { Protocol } from '../evaluation/protocols.ts'

export const PISTON = 'piston'

export const piston: Protocol = { name: PISTON, stagesShown: false }
