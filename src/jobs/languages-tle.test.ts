// Every language code, in the real jail: a program that loops forever ends TLE (issue 3, point c).
// The echo and syntax-error checks of each code are in src/languages.provisioned.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.ts'
import { verdictOf } from '../evaluation/verdict.ts'
import { isProvisioned, loadLanguages } from '../languages.ts'
import { workerSettings } from './pool.ts'
import { createJobRunner, type JobRunner } from './worker.ts'

const config = loadConfig({ ...process.env, ARBITER_DATA: process.env.ARBITER_DATA ?? '/tmp/arbiter-worker-test' })
const settings = workerSettings(config)
settings.limits.wallExtraSec = 0.5

const cLoop = 'int main(void){volatile unsigned x=0;for(;;)x++;}'
const pyLoop = 'while True:\n    pass\n'
const javaLoop = 'public class Main { public static void main(String[] a) { long i = 0; while (true) i++; } }'
const cppLoop = 'int main(){volatile unsigned x=0;for(;;)x++;}'

/** An endless loop per code; written so that no optimiser may remove it. */
const LOOPS: Record<string, string> = {
  C: cLoop,
  CPP: cppLoop,
  CPP11: cppLoop,
  CPP14: cppLoop,
  CPP17: cppLoop,
  OBJECTIVEC: '#import <Foundation/Foundation.h>\nint main(void){volatile unsigned x=0;for(;;)x++;}',
  CLOJURE: '(loop [i 0] (recur (inc i)))',
  CSHARP: 'class P { static void Main() { long i = 0; while (true) { i++; } } }',
  GO: 'package main\n\nfunc main() {\n\ti := 0\n\tfor {\n\t\ti++\n\t}\n}\n',
  HASKELL: 'loop :: Int -> Int\nloop n = loop (n + 1)\n\nmain :: IO ()\nmain = print (loop 0)\n',
  JAVA: javaLoop,
  JAVA8: javaLoop,
  JAVA14: javaLoop,
  JAVASCRIPT: 'for (;;) {}',
  JAVASCRIPT_NODE: 'for (;;) {}',
  TYPESCRIPT: 'let i: number = 0\nfor (;;) { i++ }\n',
  KOTLIN: 'fun main() { var i = 0L; while (true) i++ }',
  PASCAL: 'program Loop;\nvar i: longint;\nbegin\n  i := 0;\n  while true do i := i + 1;\nend.\n',
  PERL: '1 while 1;',
  PHP: '<?php while (true) {}',
  PYTHON: pyLoop,
  PYTHON3: pyLoop,
  PYTHON3_8: pyLoop,
  R: 'repeat {}',
  RUBY: 'loop {}',
  RUST: 'fn main() { let mut i: u64 = 0; loop { i = std::hint::black_box(i.wrapping_add(1)); } }',
  SCALA: 'object Main { def main(args: Array[String]): Unit = { var i = 0L; while (true) i += 1 } }',
  SWIFT: 'var i = 0\nwhile true {\n  i &+= 1\n  if i == -1 { print(i) }\n}\n',
}

const langs = loadLanguages()
let runner: JobRunner
beforeAll(() => {
  runner = createJobRunner(settings, `tle-${process.pid}`)
})
afterAll(async () => {
  await runner?.close()
})

describe('an endless loop is TLE in every language', () => {
  it('has a loop for every code of the manifest', () => {
    expect(Object.keys(LOOPS).sort()).toEqual([...langs.keys()].sort())
  })

  for (const [code, source] of Object.entries(LOOPS)) {
    const lang = langs.get(code)
    it(code, { timeout: 120_000 }, async () => {
      expect(!!lang && isProvisioned(config.paths.toolchains, lang), `${code} is not provisioned`).toBe(true)
      const job = { language: code, source, input: '', timeLimitSec: 1, memoryLimitKb: 262144 }
      const v = verdictOf(await runner.run(job), job)
      expect(v.verdict, `${v.compileStatus.slice(0, 400)} ${v.stderr.slice(0, 400)}`).toBe('TLE')
    })
  }
})
