// The analysis child process: receives the sources over IPC in batches, then the analysis' settings;
// sends progress as it goes and the result (with its own peak RSS) at the end, then exits. A process of
// its own so that the analysis can be niced below the sandbox's jobs, held to a memory cap and killed
// at its deadline (runner.ts).
import { analyse, type AnalysisInput } from './analyse.ts'

export type ParentMessage = { type: 'files'; files: AnalysisInput['files'] } | { type: 'start'; input: Omit<AnalysisInput, 'files'> }

export type ChildMessage =
  | { type: 'progress'; fraction: number; stage: string }
  | { type: 'result'; result: Awaited<ReturnType<typeof analyse>>; maxRssKb: number; ms: number }
  | { type: 'error'; message: string }

const send = (m: ChildMessage) => new Promise<void>((resolve) => process.send!(m, undefined, undefined, () => resolve()))

const files: AnalysisInput['files'] = []
const onMessage = (m: ParentMessage) => {
  if (m.type === 'files') {
    for (const f of m.files) files.push(f)
    return
  }
  process.off('message', onMessage)
  run({ ...m.input, files })
}
process.on('message', onMessage)

function run(input: AnalysisInput) {
  const started = performance.now()
  let last = -1
  let lastStage = ''
  analyse(input, (fraction, stage) => {
    // whole per cents only, and every new stage: the parent stores them, and needs no more
    const pc = Math.floor(fraction * 100)
    if (pc !== last || stage !== lastStage) {
      last = pc
      lastStage = stage
      process.send!({ type: 'progress', fraction, stage } satisfies ChildMessage)
    }
  })
    .then((result) => send({ type: 'result', result, maxRssKb: process.resourceUsage().maxRSS, ms: Math.round(performance.now() - started) }))
    .catch((err: Error) => send({ type: 'error', message: err.message }))
    .finally(() => process.disconnect())
}
