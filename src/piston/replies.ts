// Pure: a finished step (compile or run) as Piston reports it, with isolate's status letters and
// messages (api/src/job.js safe_call), and the execute reply built from the two steps.
import { constants } from 'node:os'
import type { RawStep } from '../evaluation/model.ts'
import type { PistonExecuteReply, PistonStage } from './schemas.ts'

/** What the core stores of one step: its raw status, as the sandbox reported it (every one has its case below). */
export interface StepOutcome {
  status: RawStep['status']
  exitCode: number | null
  signal: string | null
  cpuSec: number | null
  wallSec: number | null
  memoryKb: number | null
  stdout: string
  stderr: string
}

const signalNumber = (name: string): number | undefined => (constants.signals as Record<string, number>)[name]

const ms = (sec: number | null) => (sec === null ? null : Math.round(sec * 1000))

/** isolate's status and message for an outcome; null/null for a clean exit 0. */
function statusOf(o: StepOutcome): Pick<PistonStage, 'status' | 'message' | 'signal' | 'code'> {
  switch (o.status) {
    case 'ok':
      return { status: null, message: null, signal: null, code: o.exitCode ?? 0 }
    case 'exit':
      return { status: 'RE', message: `Exited with error status ${o.exitCode}`, signal: null, code: o.exitCode }
    case 'signal': {
      const n = o.signal ? signalNumber(o.signal) : undefined
      return { status: 'SG', message: `Caught fatal signal ${n ?? o.signal}`, signal: o.signal, code: null }
    }
    case 'time':
      return { status: 'TO', message: 'Time limit exceeded', signal: 'SIGKILL', code: null }
    case 'wall':
      return { status: 'TO', message: 'Time limit exceeded (wall clock)', signal: 'SIGKILL', code: null }
    // isolate reports an out-of-memory kill as SG/SIGKILL with no word of memory; the cause is said here
    case 'memory':
      return { status: 'SG', message: 'Memory limit exceeded', signal: 'SIGKILL', code: null }
    case 'output': {
      const stderrFull = o.stderr.length > o.stdout.length
      return { status: stderrFull ? 'EL' : 'OL', message: stderrFull ? 'stderr length exceeded' : 'stdout length exceeded', signal: 'SIGKILL', code: null }
    }
    case 'internal':
      return { status: 'XX', message: 'Internal error of the sandbox', signal: null, code: null }
  }
}

export function pistonStage(o: StepOutcome): PistonStage {
  return {
    stdout: o.stdout,
    stderr: o.stderr,
    // Piston interleaves the two streams as they arrive; they are kept apart here, so stdout comes first
    output: o.stdout + o.stderr,
    ...statusOf(o),
    cpu_time: ms(o.cpuSec),
    wall_time: ms(o.wallSec),
    memory: o.memoryKb === null ? null : o.memoryKb * 1024,
  }
}

/**
 * The execute reply: `compile` for a compiled language; `run` the run's stage, or after a failed compile
 * a copy of the compile stage (Piston's "backward compatibility when the run stage is not started").
 */
export function executeReply(rt: { language: string; version: string }, compile: StepOutcome | undefined, run: StepOutcome | undefined): PistonExecuteReply {
  const compileStage = compile && pistonStage(compile)
  const runStage = run ? pistonStage(run) : compileStage
  if (!runStage) throw new Error('a reply needs a run or a compile step')
  return { language: rt.language, version: rt.version, run: runStage, ...(compileStage ? { compile: compileStage } : {}) }
}
