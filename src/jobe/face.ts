// The Jobe API for Moodle CodeRunner as the server mounts it (its own error bodies inside).
import type { Face } from '../http/face.ts'
import { jobeApi } from './openapi-docs.ts'
import { jobe } from './protocol.ts'
import { jobeRoutes } from './routes.ts'

export const jobeFace: Face = {
  protocols: [jobe],
  mount: (app, deps) => void app.route('/', jobeRoutes(deps)),
  docs: [jobeApi],
}
