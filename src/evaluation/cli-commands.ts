// CLI of the code-evaluation API: clients create | list | revoke. The secret is printed once, at creation.
import { type CliCommands, JSON_FLAG } from '../cli-types.ts'
import { createClient, listClients, revokeClient, type Client } from '../clients/clients.ts'


const clientJson = (c: Client, defaultQuota: number) => ({
  id: c.id,
  name: c.name,
  secret_hint: `${c.secretHint}…`,
  // the quota in force: the client's own, else the config's default (0 = unlimited)
  quota: c.quota ?? defaultQuota,
  current_count: c.used,
  created_at: c.createdAt,
  revoked_at: c.revokedAt,
})

const json = JSON_FLAG

export const evaluationCommands: CliCommands = {
  'clients create': {
    summary: 'clients create --name N [--quota Q]: a v3/v4 API client; prints its client_secret once',
    options: { name: { type: 'string' }, quota: { type: 'string' }, ...json },
    async run({ values }, ctx) {
      if (typeof values.name !== 'string' || !values.name.trim()) throw new Error('--name is required')
      const q = values.quota
      if (q !== undefined && (typeof q !== 'string' || !/^\d{1,15}$/.test(q.trim()))) throw new Error('--quota must be a whole number >= 0')
      return ctx.withDb((db, { evaluation: { default_quota: defaultQuota } }) => {
        const { client, secret } = createClient(db, new Date(), { name: values.name as string, quota: q === undefined ? undefined : Number(q) })
        return { client_secret: secret, ...clientJson(client, defaultQuota) }
      })
    },
  },
  'clients list': {
    summary: 'clients list: every client with its quota and submission count (secrets are not stored)',
    options: { ...json },
    async run(_, ctx) {
      return ctx.withDb((db, { evaluation: { default_quota: defaultQuota } }) => listClients(db).map((c) => clientJson(c, defaultQuota)))
    },
  },
  'clients revoke': {
    summary: 'clients revoke ID|NAME: its secret stops working at once',
    options: { ...json },
    async run({ positionals }, ctx) {
      const which = positionals[0]
      if (!which) throw new Error('usage: clients revoke ID|NAME')
      return ctx.withDb((db, { evaluation: { default_quota: defaultQuota } }) => clientJson(revokeClient(db, new Date(), which), defaultQuota))
    },
  },
}
