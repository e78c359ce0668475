// Each raw step outcome as Piston reports it, and the reply's compile/run rule.
import { describe, expect, it } from 'vitest'
import { executeReply, pistonStage, type StepOutcome } from './replies.ts'
import { PistonExecuteReply } from './schemas.ts'

const step = (o: Partial<StepOutcome>): StepOutcome => ({ status: 'ok', exitCode: 0, signal: null, cpuSec: 0.0123, wallSec: 0.05, memoryKb: 2048, stdout: 'out', stderr: 'err', ...o })

describe('pistonStage', () => {
  it.each([
    [{}, { status: null, message: null, code: 0, signal: null }],
    [{ status: 'exit', exitCode: 3 }, { status: 'RE', message: 'Exited with error status 3', code: 3, signal: null }],
    [{ status: 'signal', exitCode: null, signal: 'SIGSEGV' }, { status: 'SG', message: 'Caught fatal signal 11', code: null, signal: 'SIGSEGV' }],
    [{ status: 'time', exitCode: null }, { status: 'TO', message: 'Time limit exceeded', code: null, signal: 'SIGKILL' }],
    [{ status: 'wall', exitCode: null }, { status: 'TO', message: 'Time limit exceeded (wall clock)', code: null, signal: 'SIGKILL' }],
    [{ status: 'memory', exitCode: null }, { status: 'SG', message: 'Memory limit exceeded', code: null, signal: 'SIGKILL' }],
    [{ status: 'output', exitCode: null, stdout: 'x'.repeat(10) }, { status: 'OL', message: 'stdout length exceeded', signal: 'SIGKILL' }],
    [{ status: 'output', exitCode: null, stderr: 'x'.repeat(10) }, { status: 'EL', message: 'stderr length exceeded', signal: 'SIGKILL' }],
  ] as [Partial<StepOutcome>, object][])('%j → %j', (o, want) => expect(pistonStage(step(o))).toMatchObject(want))

  it('gives times in ms, memory in bytes, output as stdout then stderr', () => {
    expect(pistonStage(step({}))).toMatchObject({ cpu_time: 12, wall_time: 50, memory: 2048 * 1024, output: 'outerr', stdout: 'out', stderr: 'err' })
  })
})

describe('executeReply', () => {
  const rt = { language: 'c', version: '14.2.0' }

  it('has compile and run for a compiled language', () => {
    const r = executeReply(rt, step({ stdout: '' }), step({ stdout: 'hi' }))
    expect(PistonExecuteReply.parse(r)).toEqual(r)
    expect(r.compile!.stdout).toBe('')
    expect(r.run.stdout).toBe('hi')
  })

  it('has no compile key for an interpreted one', () => {
    expect(executeReply(rt, undefined, step({}))).not.toHaveProperty('compile')
  })

  it("copies a failed compile into run (Piston's backward compatibility)", () => {
    const r = executeReply(rt, step({ status: 'exit', exitCode: 1, stderr: 'error: x' }), undefined)
    expect(r.run).toEqual(r.compile)
    expect(r.run).toMatchObject({ status: 'RE', code: 1, stderr: 'error: x' })
  })
})
