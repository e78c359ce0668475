// An API host that runs jobs itself and also has sandbox hosts (pool.size > 0 with queue.redis_url):
// a job runs here while a local slot is free and its language is provisioned here, else on a host.
import type { Config } from '../config.ts'
import type { Pool } from '../jobs/pool-types.ts'
import type { RemotePool } from './remote-pool.ts'

export function combinePools(local: Pool, remote: RemotePool, runsHere: (language: string) => boolean): RemotePool {
  const localFree = () => local.busy < local.size
  return {
    get size() {
      return local.size + remote.size
    },
    get busy() {
      return local.busy + remote.busy
    },
    resumesInFlight: true,
    available() {
      const langs = new Set(remote.available())
      // while a local slot is free, anything provisioned here may be claimed too
      return localFree() ? undefined : langs
    },
    onCapacity: (fn) => remote.onCapacity(fn),
    run(job, hooks) {
      return localFree() && runsHere(job.language) ? local.run(job, hooks) : remote.run(job, hooks)
    },
    reconfigure(next: Config) {
      local.reconfigure(next)
    },
    start: () => remote.start(),
    status: () => remote.status(),
    async close() {
      await Promise.allSettled([local.close(), remote.close()])
    },
  }
}
