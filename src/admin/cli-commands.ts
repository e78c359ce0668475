// CLI of the dashboard's admins: admin create | list | revoke. The token is printed once, at creation.
import type { CliCommands } from '../cli-types.ts'
import { createAdmin, listAdmins, revokeAdmin, type Admin } from './admins.ts'

const adminJson = (a: Admin) => ({ id: a.id, name: a.name, created_at: a.createdAt.toISOString(), revoked_at: a.revokedAt?.toISOString() ?? null })

export const adminCommands: CliCommands = {
  'admin create': {
    summary: 'admin create --name N: a token for /admin (printed once; only its hash is kept)',
    options: { name: { type: 'string' }, json: { type: 'boolean' } },
    async run({ values }, ctx) {
      if (typeof values.name !== 'string') throw new Error('give --name N')
      return ctx.withDb((db) => {
        const { admin, token } = createAdmin(db, new Date(), values.name as string)
        return { token, ...adminJson(admin) }
      })
    },
  },
  'admin list': {
    summary: 'admin list: the admins (tokens are not stored)',
    options: { json: { type: 'boolean' } },
    async run(_, ctx) {
      return ctx.withDb((db) => listAdmins(db).map(adminJson))
    },
  },
  'admin revoke': {
    summary: 'admin revoke NAME: its token and sessions stop working at once',
    options: { json: { type: 'boolean' } },
    async run({ positionals }, ctx) {
      if (!positionals[0]) throw new Error('give the admin name')
      return ctx.withDb((db) => adminJson(revokeAdmin(db, new Date(), positionals[0])))
    },
  },
}
