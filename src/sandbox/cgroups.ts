// Which cgroup version this host offers for the jails, and whether swap is accounted (v1).
import { existsSync, readFileSync } from 'node:fs'

export type CgroupVersion = 'v1' | 'v2'

export interface CgroupInfo {
  version: CgroupVersion | null
  swapAccounting: boolean
  detail: string
}

export function detectCgroups(root = '/sys/fs/cgroup'): CgroupInfo {
  const controllers = `${root}/cgroup.controllers`
  if (existsSync(controllers) && /\bmemory\b/.test(readFileSync(controllers, 'utf8'))) {
    const pids = /\bpids\b/.test(readFileSync(controllers, 'utf8'))
    return { version: 'v2', swapAccounting: true, detail: pids ? 'unified hierarchy' : 'unified hierarchy, no pids controller' }
  }
  if (existsSync(`${root}/memory/memory.limit_in_bytes`)) {
    const missing = ['pids', 'cpuacct'].filter((c) => !existsSync(`${root}/${c}`))
    return {
      version: 'v1',
      swapAccounting: existsSync(`${root}/memory/memory.memsw.limit_in_bytes`),
      detail: missing.length ? `v1 controllers; missing ${missing.join(', ')}` : 'v1 controllers memory, pids, cpuacct',
    }
  }
  return { version: null, swapAccounting: false, detail: 'no cgroup memory controller found' }
}
