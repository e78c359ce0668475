// Judge0 CE 1.13.1 as the server mounts it, under /judge0 (its own error bodies inside).
import type { Face } from '../http/face.ts'
import { judge0Api } from './openapi-docs.ts'
import { judge0Protocol } from './protocol.ts'
import { judge0Routes } from './routes.ts'

export const judge0Face: Face = {
  protocols: [judge0Protocol],
  mount: (app, deps) => void app.route('/judge0', judge0Routes(deps)),
  docs: [judge0Api],
}
