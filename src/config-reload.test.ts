import { describe, expect, it } from 'vitest'
import { parseConfig } from './config.ts'
import { applyLiveConfig } from './config-reload.ts'

const cfg = (raw: Record<string, unknown>) => parseConfig(raw, {}, '/data')

describe('applyLiveConfig', () => {
  it('copies live keys into the running config object and reports the rest', () => {
    const running = cfg({ server: { cors_origins: ['https://a.example'] } })
    const limits = running.limits // services hold on to the sections: they must see the change
    const report = applyLiveConfig(
      running,
      cfg({ server: { cors_origins: ['https://b.example'], port: 9999 }, limits: { max_time_sec: 2 }, languages: { enabled: ['C'] }, paths: { nsjail: '/x' } })
    )
    expect(report.applied.sort()).toEqual(['languages.enabled', 'limits.max_time_sec', 'server.cors_origins'])
    // the default public URL follows the port: it changes with it, and needs the restart too
    expect(report.needsRestart.sort()).toEqual(['paths.nsjail', 'server.port', 'server.public_url'])
    expect(limits.max_time_sec).toBe(2)
    expect(running.server.cors_origins).toEqual(['https://b.example'])
    expect(running.server.port).toBe(8080) // not applied
    expect(running.paths.nsjail).toBe('/var/lib/arbiter/bin/nsjail')
  })

  it('the per-client queued cap is live; the rest of evaluation is not', () => {
    const running = cfg({})
    const report = applyLiveConfig(running, cfg({ evaluation: { max_queued_per_client: 50, job_max_attempts: 5 } }))
    expect(report).toEqual({ applied: ['evaluation.max_queued_per_client'], needsRestart: ['evaluation.job_max_attempts'] })
    expect(running.evaluation.max_queued_per_client).toBe(50)
  })

  it('reports nothing when nothing changed', () => {
    expect(applyLiveConfig(cfg({}), cfg({}))).toEqual({ applied: [], needsRestart: [] })
  })
})
