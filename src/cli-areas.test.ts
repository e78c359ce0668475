import { describe, expect, it } from 'vitest'
import { allCommands, areaOf, CLI_AREAS } from './cli-areas.ts'

describe('the CLI areas table', () => {
  it('names exactly the commands each area exports, each name once', async () => {
    for (const area of CLI_AREAS) expect(Object.keys(await area.load()).sort()).toEqual([...area.names].sort())
    const names = CLI_AREAS.flatMap((a) => a.names)
    expect(new Set(names).size).toBe(names.length)
  })
  it('finds the area of a two-word command apart from another area with the same first word', async () => {
    expect(Object.keys(await areaOf('problems import')!.load())).toContain('problems import')
    expect(Object.keys(await areaOf('problems list')!.load())).toContain('problems list')
    expect(areaOf('problems')).toBeUndefined()
    expect(Object.keys(await allCommands())).toHaveLength(CLI_AREAS.flatMap((a) => a.names).length)
  })
})
