// Piston v2 as the server mounts it, under /piston ({message} errors inside).
import type { Face } from '../http/face.ts'
import { loggablePath } from './auth.ts'
import { pistonApi } from './openapi-docs.ts'
import { piston } from './protocol.ts'
import { pistonRoutes } from './routes.ts'

export const pistonFace: Face = {
  protocols: [piston],
  mount: (app, deps) => void app.route('/', pistonRoutes(deps)),
  // a client secret may be the base path's second segment: never logged
  loggablePath,
  docs: [pistonApi],
}
