// `cli worker --redis URL [--slots N] [--langs A,B] [--id NAME]`: run this machine as a sandbox host
// until SIGTERM/SIGINT (scripts/arbiter-worker.service runs it as a service). Exit 0 after a clean stop.
import type { CliCommands } from '../cli-types.ts'
import { CliExit } from '../cli-types.ts'
import { loadLanguages } from '../languages.ts'
import { createLog } from '../log.ts'
import { startSandboxHost } from './sandbox-host.ts'

export const sandboxHostCommands: CliCommands = {
  worker: {
    summary: 'run as a sandbox host: take jobs from Redis (BullMQ), run them in the jail, send results back',
    options: {
      redis: { type: 'string' },
      slots: { type: 'string' },
      langs: { type: 'string' },
      id: { type: 'string' },
    },
    async run({ values }, ctx) {
      const config = ctx.config()
      const redisUrl = (values.redis as string | undefined) ?? config.queue.redis_url
      if (!redisUrl) throw new Error('worker: give --redis URL (or queue.redis_url / ARBITER_REDIS_URL)')
      if (!/^rediss?:\/\//.test(redisUrl)) throw new Error('worker: --redis must be a redis:// or rediss:// URL')
      const slots = values.slots === undefined ? undefined : Number(values.slots)
      if (slots !== undefined && !(Number.isInteger(slots) && slots >= 1 && slots <= 64)) throw new Error('worker: --slots must be a whole number from 1 to 64')
      const log = createLog({ svc: 'arbiter-worker' })
      const host = await startSandboxHost({
        config,
        log,
        languages: loadLanguages(),
        redisUrl,
        ...(slots !== undefined && { slots }),
        ...(typeof values.langs === 'string' && { only: values.langs.split(',').map((s) => s.trim()).filter(Boolean) }),
        ...(typeof values.id === 'string' && { id: values.id }),
      })
      await new Promise<void>((resolve) => {
        const stop = (signal: string) => {
          log.info('stopping: finishing the jobs in hand', { signal })
          host.close().then(resolve, resolve)
        }
        process.once('SIGTERM', () => stop('SIGTERM'))
        process.once('SIGINT', () => stop('SIGINT'))
      })
      return new CliExit(0)
    },
  },
}
