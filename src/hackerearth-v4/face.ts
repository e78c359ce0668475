// HackerEarth v4 as the server mounts it: CORS for browser clients, problems, submissions, similarity
// reports and their pages, and the v4 error body for any unknown path under /v4.
import { AppError } from '../errors.ts'
import { v4Error, v4ErrorBody } from '../hackerearth/error-bodies.ts'
import { hackerEarthApi } from '../hackerearth/openapi-docs.ts'
import { cors } from '../http/cors.ts'
import type { Face } from '../http/face.ts'
import { internalRoutes } from '../http/route-docs.ts'
import { similarityApi } from '../similarity/openapi-docs.ts'
import { similarityPageRoutes } from '../similarity/page-routes.ts'
import { similarityRoutes } from '../similarity/routes.ts'
import { problemsApi } from './problem-docs.ts'
import { problemRoutes } from './problem-routes.ts'
import { hackerEarthV4 } from './protocol.ts'
import { v4Routes } from './routes.ts'

export const hackerEarthV4Face: Face = {
  protocols: [hackerEarthV4],
  mount(app, deps) {
    // Browser clients call v4 directly: preflights for client-secret + content-type from the allowed origins.
    // read per request: cors_origins changes live on SIGHUP
    const evaluationCors = cors({
      origin: (origin) => {
        const origins = deps.config.server.cors_origins
        return origins.includes('*') ? '*' : origins.includes(origin) ? origin : null
      },
      allowMethods: ['GET', 'POST', 'OPTIONS'],
      allowHeaders: ['client-secret', 'content-type'],
      maxAge: 600,
    })
    app.use('/v4/*', evaluationCors)
    app.use('/output/*', evaluationCors)
    app.route('/', problemRoutes(deps).onError(v4Error(deps.log)))
    app.route('/', v4Routes(deps).onError(v4Error(deps.log)))
    // similarity reports: the v4 API and the report pages behind their links
    app.route('/', similarityRoutes(deps).onError(v4Error(deps.log)))
    app.route('/', internalRoutes('the similarity report pages (HTML behind an unguessable link)', similarityPageRoutes(deps)))
  },
  // a typo under /v4/ still gets the v4 error body: clients read request_status.code on every reply
  notFound: (path) => (/^\/v4(\/|$)/.test(path) ? v4ErrorBody(new AppError('NotFound', 'no such endpoint')) : undefined),
  // v3 and v4 are one line of the overview, given by both faces (the document counts it once)
  docs: [hackerEarthApi, problemsApi, similarityApi],
}
