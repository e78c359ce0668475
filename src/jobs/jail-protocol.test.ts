import { describe, expect, it } from 'vitest'
import { testConfig } from '../testing/evaluation.ts'
import { resultMessageSchema } from '../sandbox-hosts/wire.ts'
import { jobRequestSchema } from './jail-protocol.ts'
import { MAX_REPEAT } from './types.ts'

const config = testConfig({ limits: { max_time_sec: 5 } })
const base = { language: 'C', source: 'x', input: '', timeLimitSec: 1, memoryLimitKb: 65536 }
const accepts = (over: Record<string, unknown>) => jobRequestSchema(config).safeParse({ job: { ...base, ...over } }).success

describe('the jail daemon and sandbox hosts check extra CPU time, the stack limit and the repeat count', () => {
  it('within bounds they pass; past them, or not whole where they must be, the job is refused', () => {
    expect(accepts({ cpuExtraSec: 0.5, stackKb: 8000, repeat: MAX_REPEAT })).toBe(true)
    for (const bad of [{ cpuExtraSec: 0 }, { cpuExtraSec: 1e6 }, { stackKb: 0 }, { stackKb: 1.5 }, { repeat: 0 }, { repeat: MAX_REPEAT + 1 }, { repeat: 2.5 }])
      expect(accepts(bad), JSON.stringify(bad)).toBe(false)
  })

  it("a host's result may carry each repeated run's figures, at most MAX_REPEAT of them", () => {
    const schema = resultMessageSchema(1000, 10)
    const run = { status: 'ok', exitCode: 0, signal: null, cpuSec: 0.1, wallSec: 0.2, memoryKb: 900, stdout: '', stderr: '' }
    const message = (n: number) => ({ key: 's1-a1', host: 'h', kind: 'result', result: { compile: { ok: true, message: '' }, run, repeats: Array.from({ length: n }, () => ({ cpuSec: 0.1, wallSec: 0.2, memoryKb: 900 })) } })
    expect(schema.safeParse(message(3)).success).toBe(true)
    expect(schema.safeParse(message(MAX_REPEAT + 1)).success).toBe(false)
  })
})
