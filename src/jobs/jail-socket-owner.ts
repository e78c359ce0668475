// Who serves a jail socket: one jail daemon per data directory. The daemon records its pid and data
// directory beside the socket (<socket>.owner); a second daemon finds the socket answering and refuses
// to start (it never takes a live socket over), a daemon removes only the socket it made, and a server
// whose data directory is not the one the daemon serves refuses to start (a restored backup's server
// beside the live service must not hand its jobs to the live service's daemon).
import { chmodSync, chownSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'

export interface SocketOwner {
  pid: number
  data_dir: string
}

const ownerFile = (socketPath: string) => `${socketPath}.owner`

/** Exit code of a jail daemon that refused to start because its socket is another's: supervisors must not restart it. */
export const SOCKET_TAKEN_EXIT = 3

export class SocketTaken extends Error {}

/** The daemon serving socketPath, as its owner file says (undefined when none is recorded). */
export function readSocketOwner(socketPath: string): SocketOwner | undefined {
  try {
    const rec = JSON.parse(readFileSync(ownerFile(socketPath), 'utf8')) as SocketOwner
    return typeof rec.pid === 'number' && typeof rec.data_dir === 'string' ? rec : undefined
  } catch {
    return undefined
  }
}

/** Whether something accepts connections on the socket now (a live daemon), within a second. */
export function socketAnswers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(socketPath)
    const done = (v: boolean) => {
      clearTimeout(timer)
      s.destroy()
      resolve(v)
    }
    const timer = setTimeout(() => done(true), 1000) // a daemon too busy to accept at once is still alive
    s.once('connect', () => done(true))
    s.once('error', () => done(false))
  })
}

/** Before listening: a live socket is refused; a dead one (its daemon killed) is removed. */
export async function claimSocketPath(socketPath: string, dataDir: string): Promise<void> {
  if (await socketAnswers(socketPath)) {
    const owner = readSocketOwner(socketPath)
    const who = owner ? `pid ${owner.pid}, data directory ${owner.data_dir}` : 'owner unknown'
    throw new SocketTaken(
      `jail daemon: another jail daemon serves ${socketPath} (${who}); not taking it over. ` +
        `This data directory (${dataDir}) needs a socket of its own: pool.jail_socket with {data_id} in it, e.g. "/run/arbiter-jail/jail-{data_id}.sock"`
    )
  }
  rmSync(socketPath, { force: true })
}

/** Once listening: the record that says the socket (this inode) is ours. */
export function recordSocketOwner(socketPath: string, dataDir: string, gid: number): { ino: number } {
  writeFileSync(ownerFile(socketPath), JSON.stringify({ pid: process.pid, data_dir: dataDir }) + '\n', { mode: 0o640 })
  chownSync(ownerFile(socketPath), 0, gid)
  chmodSync(ownerFile(socketPath), 0o640)
  return { ino: statSync(socketPath).ino }
}

/** On close: the socket and its record go only if they are still this daemon's (another may have started since). */
export function releaseSocket(socketPath: string, mine: { ino: number }): void {
  try {
    if (statSync(socketPath).ino === mine.ino) rmSync(socketPath, { force: true })
  } catch {
    // already gone
  }
  if (readSocketOwner(socketPath)?.pid === process.pid) rmSync(ownerFile(socketPath), { force: true })
}

/**
 * The server's check at start: a socket recorded as serving another data directory is not ours.
 * No record (the daemon not up yet) is fine: jobs wait for it.
 */
export function checkSocketServes(socketPath: string, dataDir: string): void {
  const owner = readSocketOwner(socketPath)
  if (owner && owner.data_dir !== dataDir) {
    throw new SocketTaken(
      `the jail daemon on ${socketPath} (pid ${owner.pid}) serves the data directory ${owner.data_dir}, not ${dataDir}: ` +
        'this server would run its jobs in another installation\'s daemon. Give it a socket of its own: pool.jail_socket with {data_id} in it, e.g. "/run/arbiter-jail/jail-{data_id}.sock"'
    )
  }
}
