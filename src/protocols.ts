// Wiring only: the wire protocols this server speaks, registered with the submission core. Adding a
// protocol adds its folder, one line here, and its routes in app.ts.
import { protocolRegistry, type Protocols } from './evaluation/protocols.ts'
import { hackerEarthV3 } from './hackerearth-v3/protocol.ts'
import { hackerEarthV4 } from './hackerearth-v4/protocol.ts'
import { judge0Protocol } from './judge0/protocol.ts'

export function createProtocols(): Protocols {
  return protocolRegistry([hackerEarthV3, hackerEarthV4, judge0Protocol])
}
