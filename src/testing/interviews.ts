// Test helpers of the interview area: in-memory deps with a stopped clock, seeded accounts, valid bodies.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { onTestFinished } from 'vitest'
import { parseConfig } from '../config.ts'
import type { Deps } from '../deps.ts'
import { createApp } from '../app.ts'
import { createTestDeps, type TestDeps } from './evaluation.ts'
import { createCompany, createUser } from '../interviews/accounts.ts'

/** Deps for the interview area (createTestDeps): no languages, nothing started, the clock stopped at 2030-01-01. */
export function testDeps(interviews: Record<string, unknown> = {}): TestDeps {
  const dataDir = mkdtempSync(join(tmpdir(), 'arbiter-interviews-'))
  onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }))
  const config = parseConfig(
    { server: { public_url: 'http://arbiter.test' }, interviews: { allow_private_resume_hosts: true, resume_timeout_ms: 3000, ...interviews } },
    {},
    dataDir
  )
  return createTestDeps({ config, languages: new Map(), start: false, now: new Date('2030-01-01T00:00:00Z') })
}

/** A company with credits and a super-admin and a member user; returns their credentials. */
export function seedCompany(deps: Deps, opts: { credits?: number; interviewsEnabled?: boolean; name?: string } = {}) {
  const company = createCompany(deps, { name: opts.name ?? 'Acme', credits: opts.credits ?? 100, interviewsEnabled: opts.interviewsEnabled ?? true })
  const admin = createUser(deps, { companyId: company.id, email: `admin${company.id}@acme.test`, superAdmin: true })
  const member = createUser(deps, { companyId: company.id, email: `ivan${company.id}@acme.test`, superAdmin: false })
  return {
    company,
    admin: { client_id: admin.client_id, client_secret: admin.client_secret, email: admin.user.email },
    member: { client_id: member.client_id, client_secret: member.client_secret, email: member.user.email },
  }
}

export type Creds = { client_id: string; client_secret: string }

/** A valid B2 body one hour after the test clock. */
export function createBody(creds: Creds, now: Date, over: Record<string, unknown> = {}) {
  return {
    ...creds,
    title: 'Backend interview',
    start_datetime: new Date(now.getTime() + 3_600_000).toISOString().replace(/\.\d{3}Z$/, '+00:00'),
    candidate_details: { full_name: 'Cara Candidate', email_id: 'cara@example.com', contact_number: '+91 98765 43210' },
    interviewers: [
      { full_name: 'Ivan Interviewer', email_id: 'ivan1@acme.test', feedback_redirect_url: 'https://acme.test/after' },
      { full_name: 'Olga Other', email_id: 'olga@acme.test' },
    ],
    eval_params: ['Problem solving', 'Communication'],
    ...over,
  }
}

/** One JSON request through `request` (app.request or fetch on a real server): status, parsed body, text, headers. */
export async function callJson(request: (path: string, init: RequestInit) => Promise<Response>, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await request(path, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  })
  const text = await res.text()
  let json: any
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: res.status, json, text, headers: res.headers }
}

/** The app and a JSON request helper. */
export function testApp(deps: Deps) {
  const app = createApp(deps)
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    callJson((p, init) => Promise.resolve(app.request(p, init)), method, path, body, headers)
  return { app, call }
}
