// The Piston column of the API benchmarks: one request of each benchmark program through
// POST /piston/api/v2/execute, and the same through v3 /code/run/ for the side-by-side in one run.
// Used by scripts/bench-piston.ts; `pistonColumn` has the shape of a scripts/bench-apis.ts Column
// ({name, once(url, secret, program, source)}), so that benchmark takes it as one more column.

import { benchFetch } from './bench-http.ts'

export interface BenchProgram {
  /** Arbiter code (v3 lang) and Piston language */
  code: string
  piston: string
  source: string
  expect: string
}

export const BENCH_PROGRAMS: Record<string, BenchProgram> = {
  'python3 hello': { code: 'PYTHON3', piston: 'python', source: 'print("hello")', expect: 'hello\n' },
  'C hello': { code: 'C', piston: 'c', source: '#include <stdio.h>\nint main(void){puts("hello");return 0;}\n', expect: 'hello\n' },
  // spins until it has used 0.3 s of CPU, whatever the machine's speed
  'C 0.3 s CPU': {
    code: 'C',
    piston: 'c',
    source: '#include <stdio.h>\n#include <time.h>\nint main(void){while(clock() < 3 * CLOCKS_PER_SEC / 10);puts("spun");return 0;}\n',
    expect: 'spun\n',
  },
}

export type Outcome = { ok: true } | { ok: false; why: string }

/** One Piston execute (key in the Authorization header, as aiopyston sends it). */
export async function pistonOnce(url: string, secret: string, p: BenchProgram): Promise<Outcome> {
  const r = await benchFetch(`${url}/piston/api/v2/execute`, {
    method: 'POST',
    headers: { authorization: secret, 'content-type': 'application/json' },
    body: JSON.stringify({ language: p.piston, version: '*', files: [{ content: p.source }], run_timeout: 3000 }),
  })
  const body = (await r.json()) as { run?: { stdout?: string }; message?: string }
  if (r.status !== 200) return { ok: false, why: `HTTP ${r.status} ${body.message ?? ''}` }
  return body.run?.stdout === p.expect ? { ok: true } : { ok: false, why: `stdout ${JSON.stringify(body.run?.stdout)}` }
}

/** One v3 synchronous /code/run/ of the same program: the baseline. */
export async function v3Once(url: string, secret: string, p: BenchProgram): Promise<Outcome> {
  const r = await benchFetch(`${url}/code/run/`, { method: 'POST', body: new URLSearchParams({ client_secret: secret, lang: p.code, source: p.source }) })
  const body = (await r.json()) as { run_status?: { status?: string; output?: string } }
  if (r.status !== 200) return { ok: false, why: `HTTP ${r.status}` }
  return body.run_status?.status === 'AC' && body.run_status.output === p.expect ? { ok: true } : { ok: false, why: `v3 ${body.run_status?.status}` }
}

/** Piston's language for an Arbiter code of the benchmark programs. */
const PISTON_LANGUAGE: Record<string, string> = { PYTHON3: 'python', C: 'c' }

/** The Piston column for scripts/bench-apis.ts: the program's source as given (its --fresh tag included). */
export const pistonColumn = {
  name: 'piston',
  once(url: string, secret: string, p: { code: string; expect: string }, source: string): Promise<Outcome> {
    return pistonOnce(url, secret, { code: p.code, piston: PISTON_LANGUAGE[p.code], source, expect: p.expect })
  },
}
