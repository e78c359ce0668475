// CLI of the dashboard's admins: admin create | list | revoke. The token is printed once, at creation.
import { join } from 'node:path'
import type { CliCommands } from '../cli.ts'
import { loadConfig } from '../config.ts'
import { openDb, type Db } from '../storage/db.ts'
import { createAdmin, listAdmins, revokeAdmin, type Admin } from './admins.ts'

function withDb<T>(fn: (db: Db) => T): T {
  const db = openDb(join(loadConfig().dataDir, 'arbiter.db'))
  try {
    return fn(db)
  } finally {
    db.$client.close()
  }
}

const adminJson = (a: Admin) => ({ id: a.id, name: a.name, created_at: a.createdAt.toISOString(), revoked_at: a.revokedAt?.toISOString() ?? null })

export const adminCommands: CliCommands = {
  'admin create': {
    summary: 'admin create --name N: a token for /admin (printed once; only its hash is kept)',
    options: { name: { type: 'string' }, json: { type: 'boolean' } },
    async run({ values }) {
      if (typeof values.name !== 'string') throw new Error('give --name N')
      return withDb((db) => {
        const { admin, token } = createAdmin(db, new Date(), values.name as string)
        return { token, ...adminJson(admin) }
      })
    },
  },
  'admin list': {
    summary: 'admin list: the admins (tokens are not stored)',
    options: { json: { type: 'boolean' } },
    async run() {
      return withDb((db) => listAdmins(db).map(adminJson))
    },
  },
  'admin revoke': {
    summary: 'admin revoke NAME: its token and sessions stop working at once',
    options: { json: { type: 'boolean' } },
    async run({ positionals }) {
      if (!positionals[0]) throw new Error('give the admin name')
      return withDb((db) => adminJson(revokeAdmin(db, new Date(), positionals[0])))
    },
  },
}
