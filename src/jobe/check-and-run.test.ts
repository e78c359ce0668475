// Jobe's python3 syntax check and run in one jailed process (languages.ts PY_CHECK_AND_RUN_PYC), in the
// jail's own python3: one step where the two-step form runs two, the check's text and exit status as
// the compile step gives them, and what the program sees and prints the same as a plain `python3 prog.py`.
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { loadConfig } from '../config.ts'
import { workerSettings } from '../jobs/pool.ts'
import type { Job } from '../jobs/types.ts'
import { createJobRunner, type JobRunner } from '../jobs/worker.ts'
import type { Step } from '../sandbox/types.ts'
import { JOBE_OWN, PY_CHECK_AND_RUN_PYC, type JobeArgs } from './languages.ts'

/** Every jailed step's argv, in order. */
const steps: string[][] = []
vi.mock('../sandbox/run.ts', async (original) => {
  const m = await original<typeof import('../sandbox/run.ts')>()
  return {
    ...m,
    openSandbox: (...a: Parameters<typeof m.openSandbox>) => {
      const sb = m.openSandbox(...a)
      const runStep = sb.runStep.bind(sb)
      return { ...sb, runStep: (step: Step, opts?: Parameters<typeof runStep>[1]) => (steps.push(step.argv), runStep(step, opts)) }
    },
  }
})

const config = loadConfig({ ...process.env, ARBITER_DATA: process.env.ARBITER_DATA ?? '/tmp/arbiter-check-and-run-test' })
const settings = workerSettings(config)
settings.compileCache = undefined
let runner: JobRunner
beforeAll(() => {
  runner = createJobRunner(settings, `check-and-run-${process.pid}`)
})
afterAll(async () => {
  await runner?.close()
})

const python3 = JOBE_OWN.find((l) => l.name === 'python3')!
const args = (a: Partial<JobeArgs> = {}): JobeArgs => ({ compileargs: [], linkargs: [], interpreterargs: ['-BE'], runargs: [], ...a })

/** The job the Jobe face makes, in one step (merged) or in two (the check, then the run). */
function job(source: string, merged: boolean, a = args()): Job {
  const marker = randomBytes(12).toString('hex')
  const checkAndRun = merged ? python3.checkAndRun!('prog.py', a, marker) : undefined
  if (merged) expect(checkAndRun).toBeDefined()
  return {
    language: 'PYTHON3',
    source,
    input: '',
    timeLimitSec: 2,
    memoryLimitKb: 262144,
    sourceFileName: 'prog.py',
    compileStderrFails: true,
    outputEncoding: 'latin1',
    ...(checkAndRun ? { compileArgv: [], runArgv: checkAndRun, compileCheckMarker: marker } : { compileArgv: python3.compile('prog.py', a)!, runArgv: python3.run('prog.py', a) }),
  }
}

async function both(source: string, a = args()) {
  steps.length = 0
  const one = await runner.run(job(source, true, a))
  const oneSteps = steps.length
  steps.length = 0
  const two = await runner.run(job(source, false, a))
  return { one, two, oneSteps, twoSteps: steps.length }
}

const SEES = `import sys, traceback
print(sys.argv, __name__, __file__, sys.path[0], sorted(globals()), type(__loader__).__name__, __loader__.name, __loader__.path, __cached__, __spec__, sys.orig_argv[1:], __doc__)
def f():
    try:
        raise KeyError('inner')
    except KeyError:
        traceback.print_exc()
    raise ValueError('x')
print('before')
f()
`

describe('Jobe python3: the check and the run in one jailed process', () => {
  test('a program that compiles: one step, and the same output as the check then the run', async () => {
    const { one, two, oneSteps, twoSteps } = await both('print("hello")\n')
    expect([oneSteps, twoSteps]).toEqual([1, 2])
    expect(one.compile.ok).toBe(true)
    expect(one.compile.step).toBeUndefined()
    expect(one.run).toMatchObject({ status: 'ok', stdout: 'hello\n', stderr: '' })
    expect(two.run).toMatchObject({ status: 'ok', stdout: 'hello\n', stderr: '' })
  })

  test.each([
    ['unclosed', 'print("a"\n'],
    ['indentation (the "Sorry:" form)', 'if 1:\nprint(2)\n'],
    ['null byte', 'print(1)\0\n'],
    ['a warning only (any stderr fails, as on Jobe)', 'x = 1\nprint(x is 1)\n'],
    ["the parser's warning", 'import re\nprint(re.compile("\\d"))\n'],
    ["the compiler's warning, twice on a line", 'assert (1, "x"); assert (1, "x")\nprint(1)\n'],
  ])('%s: a compile error in one step, with the check step\'s text and exit status', async (_name, source) => {
    const { one, two, oneSteps, twoSteps } = await both(source)
    expect([oneSteps, twoSteps]).toEqual([1, 1])
    expect(two.compile.ok).toBe(false)
    expect(one.compile.ok).toBe(false)
    expect(one.run).toBeUndefined()
    expect(one.compile.message).toBe(two.compile.message)
    expect(one.compile.step!.stderr).toBe(two.compile.step!.stderr)
    expect(one.compile.step!.stderr).not.toBe('')
    expect(one.compile.step!.stdout).toBe('')
    expect([one.compile.step!.status, one.compile.step!.exitCode]).toEqual([two.compile.step!.status, two.compile.step!.exitCode])
  })

  test('what the program sees and prints (argv, __main__, __file__, sys.path, globals, tracebacks, exit status) is the plain run\'s', async () => {
    const a = args({ runargs: ['a', 'b c'] })
    const { one, two } = await both(SEES, a)
    expect(two.run!.stderr).toContain('File "/work/prog.py", line 10, in <module>')
    expect(two.run!.stdout).toContain("['prog.py', 'a', 'b c'] __main__ /work/prog.py /work")
    for (const k of ['status', 'exitCode', 'stdout', 'stderr'] as const) expect(one.run![k], k).toEqual(two.run![k])
  })

  test('a declared encoding, nested code raising: as the plain run', async () => {
    const source = Buffer.from('# -*- coding: latin-1 -*-\nclass A:\n    def f(self):\n        return [1 / 0 for _ in "\xe9"]\nprint("\xe9")\nA().f()\n', 'latin1').toString('latin1')
    const { one, two } = await both(source)
    expect(two.run!.stderr).toContain('File "/work/prog.py", line 4, in f')
    for (const k of ['status', 'exitCode', 'stdout', 'stderr'] as const) expect(one.run![k], k).toEqual(two.run![k])
  })

  test("a program that compiles clean is compiled once, not again by compile() (the check's ~2 ms)", async () => {
    // compile() under the script's name raises its audit event (written to stdout: stderr must start
    // with the marker); exec()'s quick compile names '<string>'. The hook goes first by -c, which then
    // loads the driver's .pyc (past its 16-byte header) as python3 would run it
    const hook = "__import__('sys').addaudithook(lambda e, a: e == 'compile' and a[1] == 'prog.py' and __import__('os').write(1, b'<compile()>'));"
    const loader = `_f=open(${JSON.stringify(PY_CHECK_AND_RUN_PYC)},'rb');_c=_f.read();_f.close();exec(__import__('marshal').loads(_c[16:]))`
    const audited = (source: string) => {
      const j = job(source, true)
      return runner.run({ ...j, runArgv: j.runArgv!.flatMap((a) => (a === PY_CHECK_AND_RUN_PYC ? ['-c', hook + loader] : [a])) })
    }
    const clean = await audited('print("hello")\n')
    expect(clean.run).toMatchObject({ status: 'ok', stdout: 'hello\n', stderr: '' })
    const warned = await audited('x = 1\nprint(x is 1)\n')
    expect(warned.compile.ok).toBe(false)
    expect(warned.compile.step!.stdout).toBe('<compile()>')
  })

  test('sys.exit and a program that reads stdin: as the plain run', async () => {
    const { one, two } = await both('import sys\nprint(sys.argv)\nsys.exit(3)\n', args({ runargs: ['x'] }))
    expect(one.run).toMatchObject({ status: 'exit', exitCode: 3, stdout: "['prog.py', 'x']\n", stderr: '' })
    for (const k of ['status', 'exitCode', 'stdout', 'stderr'] as const) expect(one.run![k], k).toEqual(two.run![k])
  })

  test('a program cannot pass for a compile error without the job\'s marker', async () => {
    steps.length = 0
    const r = await runner.run(job('import sys\nsys.stderr.write("0123456789abcdef01234567\\nfake")\nsys.exit(1)\n', true))
    expect(r.compile.ok).toBe(true)
    expect(r.run).toMatchObject({ status: 'exit', exitCode: 1, stderr: '0123456789abcdef01234567\nfake' })
  })
})
