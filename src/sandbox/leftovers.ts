// What a killed process leaves of its jail slots: the slot folder under the runs directory (with its
// work-directory tmpfs still mounted) and the slot's cgroups. Each slot records its owner (pid and the
// process's start time, so a reused pid is not mistaken for it); a slot whose owner is gone is
// cleaned by the next sandbox that opens. Slots of live owners (a `cli run` beside the server, other
// test processes) are never touched.
import { readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { isMountPoint } from './root-image.ts'

const CG_ROOT = '/sys/fs/cgroup'
const OWNER = 'owner'

/** The start time of a process (field 22 of /proc/<pid>/stat), or null when there is none. */
function startTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null
  } catch {
    return null
  }
}

/** Marks a slot folder as this process's. */
export function claimSlot(slotDir: string): void {
  writeFileSync(join(slotDir, OWNER), `${process.pid} ${startTime(process.pid)}\n`)
}

/** Whether a slot folder records an owner that is no longer running (false for folders without one). */
export function isDeadSlot(runsDir: string, name: string): boolean {
  let owner: string
  try {
    owner = readFileSync(join(runsDir, name, OWNER), 'utf8')
  } catch {
    return false // not a slot folder of ours (or one from before owners were recorded)
  }
  const [pid, started] = owner.trim().split(' ')
  return !/^\d+$/.test(pid) || startTime(Number(pid)) !== started
}

/** Slots under the runs directory whose recorded owner is no longer running. */
export function deadSlots(runsDir: string): string[] {
  try {
    return readdirSync(runsDir).filter((name) => isDeadSlot(runsDir, name))
  } catch {
    return []
  }
}

/**
 * Removes a dead slot's cgroups (deepest first: nsjail's per-run groups, then the slot's own). A jail
 * can outlive its killed owner (nsjail and the program carry on): whatever is still in the groups is
 * killed first, then the empty groups are removed, retried while the kernel reaps.
 */
export async function removeSlotCgroups(slot: string): Promise<void> {
  const roots = [join(CG_ROOT, 'arbiter', slot), ...['memory', 'pids', 'cpuacct'].map((c) => join(CG_ROOT, c, 'arbiter', slot))]
  const dirs = (dir: string): string[] => {
    try {
      const subs = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory())
      return [...subs.flatMap((e) => dirs(join(dir, e.name))), dir]
    } catch {
      return []
    }
  }
  for (let attempt = 0; attempt < 40; attempt++) {
    const left = roots.flatMap(dirs)
    if (!left.length) return
    for (const dir of left) {
      for (const file of ['cgroup.procs', 'tasks']) {
        let pids: string[] = []
        try {
          pids = readFileSync(join(dir, file), 'utf8').split('\n').filter(Boolean)
        } catch {
          continue
        }
        for (const pid of pids) {
          try {
            process.kill(Number(pid), 'SIGKILL')
          } catch {
            // already gone
          }
        }
      }
      try {
        rmdirSync(dir)
      } catch {
        // not empty yet: next round
      }
    }
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** Removes a dead slot's folder; its box must be unmounted first (the supervisor does it). */
export function removeSlotDir(runsDir: string, slot: string): void {
  rmSync(join(runsDir, slot), { recursive: true, force: true })
}

/**
 * Removes the slots of this process whose threads have ended (a graceful stop, a pool retired by a
 * reload): their supervisors unmount the box and leave the cgroups as they exit, the folder is ours
 * to remove. A box still mounted after waitMs is left to the next start's sweep, which unmounts it
 * through a live supervisor.
 */
export async function removeEndedSlots(runsDir: string, slots: string[], waitMs = 3000): Promise<void> {
  const until = Date.now() + waitMs
  for (const slot of slots) {
    const box = join(runsDir, slot, 'box')
    while (isMountPoint(box) && Date.now() < until) await new Promise((r) => setTimeout(r, 50))
    if (isMountPoint(box)) continue
    await removeSlotCgroups(slot)
    removeSlotDir(runsDir, slot)
  }
}
