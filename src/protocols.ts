// Wiring only: the wire protocols this server speaks. Each face registers its protocols with the
// submission core and mounts its routes (src/http/face.ts); adding a protocol adds its folder and one
// line here. The order is the order they are mounted, asked for a 404's body, and listed in the OpenAPI
// document (its overview and tags): HackerEarth v3 answers any path no other face claims, so it comes last.
import { protocolRegistry, type Protocols } from './evaluation/protocols.ts'
import { packageVerifyProtocol } from './evaluation/package-verifies.ts'
import type { Face } from './http/face.ts'
import { hackerEarthV3Face } from './hackerearth-v3/face.ts'
import { hackerEarthV4Face } from './hackerearth-v4/face.ts'
import { interviewsFace } from './interviews/face.ts'
import { jobeFace } from './jobe/face.ts'
import { judge0Face } from './judge0/face.ts'
import { pistonFace } from './piston/face.ts'

export const FACES: readonly Face[] = [
  hackerEarthV4Face,
  jobeFace,
  judge0Face,
  pistonFace,
  interviewsFace,
  hackerEarthV3Face,
]

export function createProtocols(faces: readonly Face[] = FACES): Protocols {
  // the core's own: a package verify's runs (asked for through a face, run as the core's submissions)
  return protocolRegistry([...faces.flatMap((f) => f.protocols), packageVerifyProtocol])
}
