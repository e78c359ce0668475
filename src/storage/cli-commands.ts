// CLI commands for the admin's data: `backup --to FILE` (safe while the server runs) and
// `restore --from FILE` (only while it is stopped).
import type { CliCommands } from '../cli-types.ts'
import { dataDirFromEnv, initDataDir } from '../config.ts'
import { backupDataDir, restoreDataDir } from './backup.ts'

// dataDirFromEnv(), not ctx.config(), on purpose: a restore must work when config.toml is absent or does not load.

export const storageCommands: CliCommands = {
  init: {
    summary: 'init: a fresh data directory (ARBITER_DATA) with the default config.toml; the server and the CLI refuse one that is not there',
    async run() {
      return initDataDir()
    },
  },
  backup: {
    summary: 'backup --to FILE: the database (online, consistent) and the stored files into one .tar.gz',
    options: { to: { type: 'string' } },
    async run({ values }) {
      if (typeof values.to !== 'string') throw new Error('backup needs --to FILE')
      return backupDataDir(dataDirFromEnv(), values.to)
    },
  },
  restore: {
    summary: 'restore --from FILE: replace the data directory by a backup (refused while a server runs on it)',
    options: { from: { type: 'string' } },
    async run({ values }) {
      if (typeof values.from !== 'string') throw new Error('restore needs --from FILE')
      return restoreDataDir(dataDirFromEnv(), values.from)
    },
  },
}
