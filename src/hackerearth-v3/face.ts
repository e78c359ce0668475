// HackerEarth v3 as the server mounts it: /code/compile/ and /code/run/, the output URLs both versions
// link to, and the v3 error body for any unknown path and any fault outside a face's routes (v3 clients
// call the server's root: it is asked last).
import { AppError } from '../errors.ts'
import { message, v3Error, v3ErrorBody } from '../hackerearth/error-bodies.ts'
import { outputRoutes } from '../hackerearth/output-routes.ts'
import { hackerEarthApi } from '../hackerearth/openapi-docs.ts'
import type { Face } from '../http/face.ts'
import { hackerEarthV3 } from './protocol.ts'
import { v3Routes } from './routes.ts'

export const hackerEarthV3Face: Face = {
  protocols: [hackerEarthV3],
  mount(app, deps) {
    app.route('/', v3Routes(deps).onError(v3Error(deps.log)))
    app.route('/', outputRoutes(deps).onError(v3Error(deps.log)))
  },
  notFound: () => v3ErrorBody(new AppError('NotFound', 'no such endpoint')),
  // the v3 body without the error's data (a storage fault's retry_after goes in the Retry-After header)
  unhandled: (e) => ({ status: v3ErrorBody(e).status, body: { message: message(e), errors: {} } }),
  docs: [hackerEarthApi],
}
