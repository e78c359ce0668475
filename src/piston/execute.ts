// POST /api/v2/execute as a service: Piston's checks, the runtime by language and semver range, the plan
// run synchronously through the core's durable queue and pool, the stored steps as Piston's reply.
import type { Deps } from '../deps.ts'
import { AppError } from '../errors.ts'
import type { Client } from '../clients/clients.ts'
import { rawResultOf, type Submission } from '../evaluation/model.ts'
import { evaluateWithin } from '../evaluation/submissions.ts'
import { planExecution } from './plan.ts'
import { PISTON } from './protocol.ts'
import { executeReply, type StepOutcome } from './replies.ts'
import { listRuntimes, matchRuntime } from './runtimes.ts'
import { parseExecuteRequest, type PistonExecuteReply } from './schemas.ts'

type ExecuteDeps = Pick<Deps, 'config' | 'db' | 'log' | 'languages' | 'now' | 'dispatcher' | 'outbox' | 'protocols'>

/** A compile served from the compile cache in a row stored before the cache kept the compile's output: an empty, successful step. */
const CACHED_COMPILE: StepOutcome = { status: 'ok', exitCode: 0, signal: null, cpuSec: 0, wallSec: 0, memoryKb: 0, stdout: '', stderr: '' }

/** The compile and run steps of a completed row, as the core stored them. */
export function stepsOf(row: Submission, compiled: boolean): { compile?: StepOutcome; run?: StepOutcome } {
  const raw = rawResultOf(row)
  if (row.failure || !raw) throw new AppError('Internal', row.failure ?? 'the run left no result')
  const compile = raw.compile ? { ...raw.compile } : compiled ? CACHED_COMPILE : undefined
  const run = raw.run ? { ...raw.run, stdout: row.stdout ?? '', stderr: row.stderr ?? '' } : undefined
  return { compile, run }
}

export async function executePiston(deps: ExecuteDeps, client: Client, body: unknown): Promise<PistonExecuteReply> {
  const req = parseExecuteRequest(body)
  const rt = matchRuntime(listRuntimes(deps.languages, deps.config), req.language, req.version)
  if (!rt) throw new AppError('InvalidArgument', `${req.language}-${req.version} runtime is unknown`, { field: 'language' })
  const plan = planExecution(deps.config, deps.languages, rt, req)
  // Piston itself waits for a free slot without end; here a run that has not started within
  // piston.wait_sec is withdrawn (never run) and the client told the server is busy
  const { row, withdrawn } = await evaluateWithin(
    deps,
    client,
    { api: PISTON, ...plan, protocolData: { language: rt.language, version: rt.version } },
    deps.config.piston.wait_sec * 1000
  )
  if (withdrawn) throw new AppError('SandboxUnavailable', `The server is busy: the run did not start within ${deps.config.piston.wait_sec} s and was not run; try again`)
  const { compile, run } = stepsOf(row, !!(plan.compileArgv ?? rt.lang.compile)?.length)
  return executeReply(rt, compile, run)
}
