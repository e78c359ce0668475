// CLI of /metrics: `metrics token` shows the token scrapers send (made now if the server never started).
import type { CliCommands } from '../cli-types.ts'
import { metricsToken } from './token.ts'

export const metricsCommands: CliCommands = {
  'metrics token': {
    summary: 'metrics token: the bearer token GET /metrics needs (metrics.token, else the one made at first start)',
    options: { json: { type: 'boolean' } },
    async run(_, ctx) {
      return ctx.withDb((db, config) => {
        const token = metricsToken(config, db, new Date())
        return { enabled: config.metrics.enabled, open: token === null, token, header: token === null ? null : `Authorization: Bearer ${token}` }
      })
    },
  },
}
