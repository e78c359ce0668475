// Pure: a stored submission → the v3 reply, the v4 reply (also the v4 callback body) and the v3 callback
// form body. The wire types clients depend on are fixed here: v3 figures are strings and its limits
// integers; v4 request_status is always an object; result.run_status is always present; compile_status
// is never null.
import { constants } from 'node:os'
import type { Config } from '../config.ts'
import type { Submission } from '../evaluation/model.ts'
import { scoreOf, type SubmissionTest } from '../evaluation/graded.ts'
import type { PackageScore } from '../packages/stored-grading.ts'
import type { TestResult, V3Reply, V4Reply } from './schemas.ts'
import { escapeHtml } from '../http/html.ts'

export type { Submission }

export interface Links {
  publicUrl: string
  codeViewUrl: string
}

export function linksFor(config: Pick<Config, 'server' | 'evaluation'>): Links {
  const publicUrl = config.server.public_url.replace(/\/+$/, '')
  const codeViewUrl = config.evaluation.code_view_url.replace(/\/+$/, '') || `${publicUrl}/view`
  return { publicUrl, codeViewUrl }
}

export const SUBMISSIONS_PATH = '/v4/partner/code-evaluation/submissions'
export const statusUpdateUrl = (links: Links, publicId: string) => `${links.publicUrl}${SUBMISSIONS_PATH}/${publicId}/`
export const outputUrl = (links: Links, codeId: string) => `${links.publicUrl}/output/${codeId}`
export const webLink = (links: Links, codeId: string) => `${links.codeViewUrl}/${codeId}`
// a test's name comes from an upload (a zip's file names): encoded, so '#', '?', '/' or spaces stay in the path segment
export const testOutputUrl = (links: Links, codeId: string, testId: string) => `${links.publicUrl}/output/${codeId}/tests/${encodeURIComponent(testId)}`

export const COMPILING = 'Compiling...'

const parseEcho = (json: string | null): unknown => (json === null ? null : JSON.parse(json))

/** The figures as HackerEarth wrote them: seconds with 6 decimals, KB as an integer string. */
const timeText = (sec: number | null) => (sec ?? 0).toFixed(6)
const memoryText = (kb: number | null) => String(Math.round(kb ?? 0))

/** A program killed by a signal has no exit code; report minus the signal number, as Python does. */
function exitCodeText(row: Submission): string {
  if (row.exitCode !== null) return String(row.exitCode)
  const signo = row.signal ? (constants.signals as Record<string, number>)[row.signal] : undefined
  return signo ? String(-signo) : row.verdict === 'AC' ? '0' : '-1'
}

// ── v3 ─────────────────────────────────────────────────────────────────────────────────────────────

/** v3 reply: pending (immediate async reply) until the row is completed. */
export function v3Reply(row: Submission, links: Links): V3Reply {
  const done = row.state === 'completed'
  const requestId = parseEcho(row.requestIdJson)
  const asyncFlag = row.async ? 1 : 0
  const limits = { time_limit: Math.ceil(row.timeLimitSec), memory_limit: row.memoryLimitKb, async: asyncFlag }
  const reply: V3Reply = {
    message: done && row.failure ? `InternalServerError: ${row.failure}` : 'OK',
    errors: {},
    id: requestId ?? row.codeId,
    code_id: row.codeId,
    async: asyncFlag,
    compile_status: done ? (row.compileStatus ?? 'OK') : COMPILING,
    web_link: webLink(links, row.codeId),
  }
  if (row.compileOnly) return reply
  if (!done) return { ...reply, run_status: { status: 'NA', ...limits } }
  const output = row.stdout ?? ''
  return {
    ...reply,
    run_status: {
      status: (row.verdict ?? 'RE') as 'AC',
      time_used: timeText(row.timeUsedSec),
      memory_used: memoryText(row.memoryUsedKb),
      output,
      output_html: escapeHtml(output).replace(/\r?\n/g, '<br>'),
      stderr: row.stderr ?? '',
      signal: row.signal ?? 'OTHER',
      // v3 wrote "N/A" where v4 writes "NA" (each as in its own examples)
      status_detail: !row.statusDetail || row.statusDetail === 'NA' ? 'N/A' : row.statusDetail,
      exit_code: exitCodeText(row),
      request_OK: row.failure ? 'False' : 'True',
      ...limits,
    },
  }
}

/** The v3 callback: a form with one field, payload, holding the final reply as JSON text. */
export const v3CallbackBody = (row: Submission, links: Links): string =>
  new URLSearchParams({ payload: JSON.stringify(v3Reply(row, links)) }).toString()

// ── v4 ─────────────────────────────────────────────────────────────────────────────────────────────

export type V4Stage = 'queued' | 'compiled' | 'completed'

export const REQUEST_STATUS = {
  queued: { code: 'REQUEST_QUEUED', message: 'Your request has been queued in the evaluation pipeline' },
  compiled: { code: 'CODE_COMPILED', message: 'Compilation step is over' },
  completed: { code: 'REQUEST_COMPLETED', message: 'Your request has been completed successfully' },
} as const

export const stageOf = (row: Submission): V4Stage =>
  row.state === 'completed' ? 'completed' : row.state === 'compiled' ? 'compiled' : 'queued'

/**
 * v4 reply for the row's stage, or for an earlier stage (the CODE_COMPILED callback of a submission
 * that completed in the same breath, e.g. a compile error). Also the callback body.
 */
export function v4Reply(row: Submission, links: Links, stage: V4Stage = stageOf(row), tests?: SubmissionTest[]): V4Reply {
  const head = {
    he_id: row.publicId,
    request_status: { ...REQUEST_STATUS[stage] },
    status_update_url: statusUpdateUrl(links, row.publicId),
    context: parseEcho(row.contextJson),
    errors: {},
  }
  if (stage === 'queued') return { ...head, result: { run_status: { status: 'NA' }, compile_status: COMPILING } }
  const compileStatus = row.compileStatus ?? 'OK'
  // a graded submission's tests that have run (all of them once completed), and its score at the end
  const graded = tests && row.verdict !== 'CE' ? { tests: testResults(row, links, tests) } : {}
  if (stage === 'compiled') return { ...head, result: { run_status: {}, compile_status: compileStatus, ...graded } }
  return {
    ...head,
    result: {
      ...graded,
      ...(tests && row.verdict !== 'CE' && !row.failure ? { score: { ...scoreOf(tests), ...(row.gradedJson && { package: JSON.parse(row.gradedJson) as PackageScore }) } } : {}),
      // only when true: a reply without it is the same as before the cache existed
      ...(row.compileCached ? { compile_cached: true } : {}),
      compile_status: compileStatus,
      run_status: {
        status: (row.verdict ?? 'RE') as 'AC',
        time_used: timeText(row.timeUsedSec),
        memory_used: memoryText(row.memoryUsedKb),
        signal: row.signal ?? 'OTHER',
        exit_code: exitCodeText(row),
        status_detail: row.statusDetail ?? 'NA',
        stderr: row.stderr ?? '',
        output: outputUrl(links, row.codeId),
        request_NOT_OK_reason: row.failure ?? '',
        request_OK: row.failure ? 'False' : 'True',
      },
    },
  }
}

/** result.tests: one entry per test that has run, in order (the stage of a test is its status column). */
function testResults(row: Submission, links: Links, tests: SubmissionTest[]): TestResult[] {
  return tests
    .filter((t) => t.status !== null)
    .map((t) => ({
      id: t.name,
      status: t.status as TestResult['status'],
      status_detail: t.statusDetail ?? 'NA',
      time_used: timeText(t.timeUsedSec),
      memory_used: memoryText(t.memoryUsedKb),
      exit_code: t.exitCode !== null ? String(t.exitCode) : t.status === 'AC' || t.status === 'WA' ? '0' : t.status === 'SKIPPED' ? '' : '-1',
      points: t.earnedPoints ?? 0,
      checker_message: t.checkerMessage ?? '',
      output: testOutputUrl(links, row.codeId, t.name),
    }))
}
