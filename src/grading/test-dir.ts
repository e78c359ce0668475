// A folder of test cases, in the layouts graders and judges use: NAME.in + NAME.out, input/inputNN.txt +
// output/outputNN.txt, or NN + NN.a (Codeforces/Polygon). Ordered naturally (2 before 10). A file
// without its pair is an error, not a silently dropped test.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'

export interface NamedTest {
  name: string
  input: string
  expectedOutput: string
}

const natural = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true })

export function readTestDir(dir: string): NamedTest[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`${dir} is not a folder`)
  const files = readdirSync(dir).filter((f) => statSync(join(dir, f)).isFile())
  const pairs: [string, string, string][] = [] // name, input file, output file
  if (existsSync(join(dir, 'input')) && existsSync(join(dir, 'output'))) {
    const ins = readdirSync(join(dir, 'input')).filter((f) => /^input.*\.txt$/.test(f))
    const outs = new Set(readdirSync(join(dir, 'output')))
    for (const f of ins) {
      const name = f.slice('input'.length, -'.txt'.length)
      const out = `output${name}.txt`
      if (!outs.has(out)) throw new Error(`input/${f} has no output/${out}`)
      outs.delete(out)
      pairs.push([name, join(dir, 'input', f), join(dir, 'output', out)])
    }
    const left = [...outs].filter((f) => /^output.*\.txt$/.test(f))
    if (left.length) throw new Error(`output/${left[0]} has no input`)
  } else {
    const set = new Set(files)
    const used = new Set<string>()
    for (const f of files) {
      if (f.endsWith('.in')) {
        const name = f.slice(0, -3)
        if (!set.has(`${name}.out`)) throw new Error(`${f} has no ${name}.out`)
        pairs.push([name, join(dir, f), join(dir, `${name}.out`)])
        used.add(f).add(`${name}.out`)
      } else if (/^\d+$/.test(f)) {
        if (!set.has(`${f}.a`)) throw new Error(`${f} has no ${f}.a`)
        pairs.push([f, join(dir, f), join(dir, `${f}.a`)])
        used.add(f).add(`${f}.a`)
      }
    }
    const unpaired = files.filter((f) => (f.endsWith('.out') || f.endsWith('.a')) && !used.has(f))
    if (unpaired.length) throw new Error(`${unpaired[0]} has no input`)
  }
  if (!pairs.length) throw new Error(`no tests in ${dir} (NAME.in + NAME.out, input/inputNN.txt + output/outputNN.txt, or NN + NN.a)`)
  return pairs
    .sort((a, b) => natural(a[0], b[0]))
    .map(([name, i, o]) => ({ name, input: readFileSync(i, 'utf8'), expectedOutput: readFileSync(o, 'utf8') }))
}
