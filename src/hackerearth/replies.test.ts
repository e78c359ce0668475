import { describe, expect, test } from 'vitest'
import { linksFor, v3CallbackBody, v3Reply, v4Reply, type Submission } from './replies.ts'
import { V3Reply, V4Reply } from './schemas.ts'
import { testConfig } from '../testing/evaluation.ts'

const links = linksFor(testConfig())
const at = new Date('2025-01-01T00:00:00Z')

const row = (over: Partial<Submission> = {}): Submission => ({
  id: 1,
  publicId: '0b6f1c1e-8a4e-4c55-9d5e-1f2a3b4c5d6e',
  codeId: 'c0de',
  clientId: 1,
  api: 'v4',
  compileOnly: false,
  async: true,
  priority: 1,
  fairRound: 0,
  interviewId: null,
  language: 'PYTHON3',
  langRequested: 'python3',
  source: 'print(1)',
  input: '',
  timeLimitSec: 5,
  memoryLimitKb: 262144,
  requestIdJson: null,
  contextJson: null,
  callbackUrl: null,
  checkerJson: null,
  stopOnFirstFailure: false,
  compileCached: false,
  protocolJson: null,
  jobSpecJson: null,
  rawResultJson: null,
  problemId: null,
  gradingJson: null,
  gradedJson: null,
  state: 'queued',
  attempt: 0,
  compileStatus: null,
  verdict: null,
  statusDetail: null,
  signal: null,
  exitCode: null,
  timeUsedSec: null,
  memoryUsedKb: null,
  stdout: null,
  stderr: null,
  failure: null,
  createdAt: at,
  startedAt: null,
  compiledAt: null,
  completedAt: null,
  ...over,
})

const completed = (over: Partial<Submission> = {}) =>
  row({ state: 'completed', compileStatus: 'OK', verdict: 'AC', statusDetail: 'NA', signal: 'OTHER', exitCode: 0, timeUsedSec: 0.0213, memoryUsedKb: 3100, stdout: '1\n', stderr: '', ...over })

describe('links', () => {
  test('public_url without its trailing slash; web_link under /view unless code_view_url is set', () => {
    expect(links).toEqual({ publicUrl: 'https://judge.example.com', codeViewUrl: 'https://judge.example.com/view' })
    expect(linksFor(testConfig({ evaluation: { code_view_url: 'https://code.example.org/c/' } })).codeViewUrl).toBe('https://code.example.org/c')
  })
})

describe('v4Reply', () => {
  test('queued: REQUEST_QUEUED, run_status {status: NA}, Compiling..., absolute status_update_url', () => {
    const r = v4Reply(row({ contextJson: JSON.stringify('ctx-1') }), links)
    expect(V4Reply.parse(r)).toBeTruthy()
    expect(r).toEqual({
      he_id: '0b6f1c1e-8a4e-4c55-9d5e-1f2a3b4c5d6e',
      request_status: { code: 'REQUEST_QUEUED', message: 'Your request has been queued in the evaluation pipeline' },
      status_update_url: 'https://judge.example.com/v4/partner/code-evaluation/submissions/0b6f1c1e-8a4e-4c55-9d5e-1f2a3b4c5d6e/',
      context: 'ctx-1',
      errors: {},
      result: { run_status: { status: 'NA' }, compile_status: 'Compiling...' },
    })
    expect(r).not.toHaveProperty('message')
  })

  test('a row claimed but not compiled still reads REQUEST_QUEUED', () => {
    expect(v4Reply(row({ state: 'running' }), links).request_status.code).toBe('REQUEST_QUEUED')
  })

  test('compiled: CODE_COMPILED, run_status {}, compile_status OK', () => {
    const r = v4Reply(row({ state: 'compiled', compileStatus: 'OK' }), links)
    expect(r.request_status).toEqual({ code: 'CODE_COMPILED', message: 'Compilation step is over' })
    expect(r.result).toEqual({ run_status: {}, compile_status: 'OK' })
  })

  test('completed: every run_status field a string, output a URL', () => {
    const r = v4Reply(completed({ contextJson: JSON.stringify({ id: 213121 }) }), links)
    expect(V4Reply.parse(r)).toBeTruthy()
    expect(r.request_status).toEqual({ code: 'REQUEST_COMPLETED', message: 'Your request has been completed successfully' })
    expect(r.context).toEqual({ id: 213121 })
    expect(r.result).toEqual({
      compile_status: 'OK',
      run_status: {
        status: 'AC',
        time_used: '0.021300',
        memory_used: '3100',
        signal: 'OTHER',
        exit_code: '0',
        status_detail: 'NA',
        stderr: '',
        output: 'https://judge.example.com/output/c0de',
        request_NOT_OK_reason: '',
        request_OK: 'True',
      },
    })
  })

  test('a compile error completes as CE with the compiler text; its CODE_COMPILED view carries the text too', () => {
    const ce = completed({ verdict: 'CE', compileStatus: 'main.c:1: error: x', stdout: '', exitCode: 1 })
    expect(v4Reply(ce, links).result.compile_status).toBe('main.c:1: error: x')
    expect(v4Reply(ce, links).result.run_status.status).toBe('CE')
    const early = v4Reply(ce, links, 'compiled')
    expect(early.request_status.code).toBe('CODE_COMPILED')
    expect(early.result).toEqual({ run_status: {}, compile_status: 'main.c:1: error: x' })
  })

  test('killed by a signal: exit_code is minus the signal number', () => {
    const r = v4Reply(completed({ verdict: 'RE', statusDetail: 'SIGSEGV', signal: 'SIGSEGV', exitCode: null }), links)
    expect(r.result.run_status).toMatchObject({ status: 'RE', status_detail: 'SIGSEGV', signal: 'SIGSEGV', exit_code: '-11' })
  })

  test('our own failure: request_OK False with the reason', () => {
    const r = v4Reply(completed({ verdict: 'RE', statusDetail: 'OTHER', failure: 'internal error: no jail' }), links)
    expect(r.result.run_status).toMatchObject({ request_OK: 'False', request_NOT_OK_reason: 'internal error: no jail' })
  })
})

describe('v3Reply', () => {
  const v3 = (over: Partial<Submission> = {}) => row({ api: 'v3', async: false, priority: 1, ...over })

  test('pending async reply: Compiling..., run_status {status NA, time_limit, memory_limit, async}', () => {
    const r = v3Reply(v3({ async: true, requestIdJson: JSON.stringify('req-7'), timeLimitSec: 1.5, memoryLimitKb: 1024 }), links)
    expect(V3Reply.parse(r)).toBeTruthy()
    expect(r).toEqual({
      message: 'OK',
      errors: {},
      id: 'req-7',
      code_id: 'c0de',
      async: 1,
      compile_status: 'Compiling...',
      web_link: 'https://judge.example.com/view/c0de',
      run_status: { status: 'NA', time_limit: 2, memory_limit: 1024, async: 1 },
    })
  })

  test('completed: figures and exit_code as strings, limits and async as integers', () => {
    const r = v3Reply(v3({ ...completed(), api: 'v3', async: false, stdout: '<b>1</b>\n2\n' }), links)
    expect(V3Reply.parse(r)).toBeTruthy()
    expect(r.run_status).toEqual({
      status: 'AC',
      time_used: '0.021300',
      memory_used: '3100',
      output: '<b>1</b>\n2\n',
      output_html: '&lt;b&gt;1&lt;/b&gt;<br>2<br>',
      stderr: '',
      signal: 'OTHER',
      status_detail: 'N/A',
      exit_code: '0',
      request_OK: 'True',
      time_limit: 5,
      memory_limit: 262144,
      async: 0,
    })
  })

  test('id: echoed as sent (number kept a number); absent → code_id', () => {
    expect(v3Reply(v3({ requestIdJson: '42' }), links).id).toBe(42)
    expect(v3Reply(v3(), links).id).toBe('c0de')
  })

  test('compile endpoint: no run_status', () => {
    const r = v3Reply(v3({ compileOnly: true, state: 'completed', compileStatus: 'OK' }), links)
    expect(r).not.toHaveProperty('run_status')
    expect(r.compile_status).toBe('OK')
  })

  test('RE keeps its detail; our failure changes the message', () => {
    expect(v3Reply(v3({ ...completed({ verdict: 'RE', statusDetail: 'NZEC', exitCode: 1 }), api: 'v3' }), links).run_status?.status_detail).toBe('NZEC')
    expect(v3Reply(v3({ ...completed({ failure: 'internal error: x' }), api: 'v3' }), links).message).toBe('InternalServerError: internal error: x')
  })

  test('callback body: form field payload holding the reply as JSON text', () => {
    const r = v3({ ...completed(), api: 'v3', async: true, requestIdJson: '"a"' })
    const form = new URLSearchParams(v3CallbackBody(r, links))
    expect([...form.keys()]).toEqual(['payload'])
    expect(JSON.parse(form.get('payload')!)).toEqual(v3Reply(r, links))
  })
})
