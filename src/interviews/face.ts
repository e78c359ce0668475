// HackerEarth's interview partner API as the server mounts it: B1–B5 under both prefixes and the stored
// resume (the envelope's error bodies inside). It registers no protocol with the core: it submits no code.
import type { Face } from '../http/face.ts'
import { interviewsApi } from './openapi-docs.ts'
import { interviewRoutes } from './routes.ts'

export const interviewsFace: Face = {
  protocols: [],
  mount: (app, deps) => void app.route('/', interviewRoutes(deps)),
  docs: [interviewsApi],
}
