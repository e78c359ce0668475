// Jobe as a protocol of the core: synchronous, no stages shown, no callbacks.
import type { Protocol } from '../evaluation/protocols.ts'

export const jobe: Protocol = { name: 'jobe', stagesShown: false }
