// Checks every provisioned language for real: its self-test compiles and echoes a line of stdin, and
// its syntax-error program is a compile error (interpreted: an RE) with the compiler's (interpreter's)
// own message, in the jail that serves real jobs. Also: the JVM languages find the class or object
// holding main, and a JVM program over its memory limit is MLE. `npm test` provisions every toolchain
// first, so a missing one is a failure here, never a skip.
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from './config.ts'
import { verdictOf, type Verdict } from './grading/verdict.ts'
import { workerSettings } from './jobs/pool.ts'
import type { JobResult } from './jobs/types.ts'
import { createJobRunner, type JobRunner } from './jobs/worker.ts'
import { isProvisioned, loadLanguages, type Language } from './languages.ts'

const config = loadConfig()
const toolchains = config.paths.toolchains
const isRoot = process.getuid?.() === 0
const MEMORY_KB = 262144
const LINE = 'hello arbiter 42 ✓'

/** What one source did: compiled or not, then what its run printed. */
interface Outcome {
  compiled: boolean
  compileMessage: string
  exitCode: number | null
  stdout: string
  stderr: string
  compileMs: number
  runMs: number
  /** the whole job and the verdict a client would get for it */
  result: JobResult
  verdict: Verdict
}

interface Backend {
  name: string
  check(lang: Language, source: string, stdin: string, memoryLimitKb?: number): Promise<Outcome>
  close(): Promise<void>
}

// ---------- the jail: the worker that serves real jobs ----------

function jailBackend(): Backend {
  let runner: JobRunner | undefined
  return {
    name: 'jail',
    async check(lang, source, stdin, memoryLimitKb = MEMORY_KB) {
      runner ??= createJobRunner(workerSettings(config), `languages-test-${process.pid}`)
      const job = { language: lang.code, source, input: stdin, timeLimitSec: 5, memoryLimitKb }
      const r = await runner.run(job)
      return {
        result: r,
        verdict: verdictOf(r, job),
        compiled: r.compile.ok,
        compileMessage: r.compile.message,
        exitCode: r.run?.exitCode ?? null,
        stdout: r.run?.stdout ?? '',
        stderr: r.run
          ? `${r.run.stderr}${r.run.status === 'ok' || r.run.status === 'exit' ? '' : ` [${r.run.status}]`}`
          : '',
        compileMs: Math.round((r.compile.step?.wallSec ?? 0) * 1000),
        runMs: Math.round((r.run?.wallSec ?? 0) * 1000),
      }
    },
    close: async () => runner?.close(),
  }
}

const backend = jailBackend()

const timings: string[] = []
afterAll(async () => {
  await backend.close()
  if (timings.length)
    console.log(`wall times in the ${backend.name} (compile / run):\n${timings.join('\n')}`)
})

const langs = [...loadLanguages().values()]
const byCode = new Map(langs.map((l) => [l.code, l]))

// what each selftest_error must produce is the manifest's selftest_error_message: a syntax error in the
// compiler's (interpreter's) own words, never a type error, a note or only "exceeded its time limit";
// an entry whose source is its output (Plain Text) has no syntax to break
it('knows the syntax error of every code (selftest_error_message in the manifest)', () => {
  expect(langs.filter((l) => !l.selftestErrorMessage && !l.sourceIsOutput).map((l) => l.code)).toEqual([])
})

describe.each(langs.map((l) => [l.code, l] as const))(`%s (${backend.name})`, (code, lang) => {
  it('is provisioned', () => {
    expect(isRoot, 'the jail needs root').toBe(true)
    expect(isProvisioned(toolchains, lang), `npm run provision -- --langs ${code}`).toBe(true)
  })

  it('compiles its self-test, which echoes a line of stdin', { timeout: 180_000 }, async () => {
    const o = await backend.check(lang, lang.selftest, `${LINE}\nsecond line\n`)
    timings.push(
      `${code.padEnd(16)} ${String(o.compileMs).padStart(5)} ms  ${String(o.runMs).padStart(5)} ms`
    )
    expect(o.compiled, `compile failed:\n${o.compileMessage}`).toBe(true)
    expect(o.stderr).toBe('')
    expect(o.exitCode).toBe(0)
    // Plain Text prints its source, not its input
    expect(o.stdout).toBe(lang.sourceIsOutput ? lang.selftest : `${LINE}\n`)
  })

  it('reports a syntax error in its own words', { timeout: 120_000 }, async () => {
    if (lang.sourceIsOutput) {
      // Plain Text has no syntax: another language's syntax error is printed as it is
      const broken = 'int main(void) { return 0 }\n'
      const o = await backend.check(lang, broken, LINE)
      expect([o.verdict.verdict, o.stdout, o.stderr]).toEqual(['AC', broken, ''])
      return
    }
    const o = await backend.check(lang, lang.selftestError, '')
    const { compile, run } = o.result
    const summary = JSON.stringify({ verdict: o.verdict.verdict, compile: compile.step?.status, run: run?.status, message: compile.message.slice(0, 400), stderr: run?.stderr.slice(0, 400) })
    if (lang.compile) {
      // a compile error: the compiler ran to its end and said no (not killed by a time or memory limit)
      expect(o.verdict.verdict, summary).toBe('CE')
      expect(compile.step?.status, summary).toBe('exit')
      expect(o.verdict.compileStatus, summary).toMatch(new RegExp(lang.selftestErrorMessage!))
      expect(o.verdict.compileStatus).not.toMatch(/exceeded its (time|memory) limit|compiler killed by/)
    } else {
      // an interpreted language: a runtime error (non-zero exit) with the parser's message on stderr
      expect(o.verdict.verdict, summary).toBe('RE')
      expect(o.verdict.statusDetail, summary).toBe('NZEC')
      expect(run?.status, summary).toBe('exit')
      expect(o.verdict.stderr, summary).toMatch(new RegExp(lang.selftestErrorMessage!))
    }
  })
})

// ---------- JVM languages: Kotlin and Scala entry points, memory limits the JVM is sized to ----------

const kotlinObject = `object Foo {
    @JvmStatic
    fun main(args: Array<String>) {
        println("object: " + readLine())
    }
}
`
const kotlinCompanion = `class Helper { fun twice(s: String?) = "$s$s" }

class Solution {
    companion object {
        @JvmStatic
        fun main(args: Array<String>) {
            println("companion: " + Helper().twice(readLine()))
        }
    }
}
`
const scalaApp = `object Solution extends App {
  println("app: " + scala.io.StdIn.readLine())
}
`

describe.each([
  ['KOTLIN', 'an object with a @JvmStatic main', kotlinObject, 'object: x\n'],
  ['KOTLIN', 'a class whose companion object has a @JvmStatic main', kotlinCompanion, 'companion: xx\n'],
  ['SCALA', 'an object extending App', scalaApp, 'app: x\n'],
  ['KOTLIN2', 'an object with a @JvmStatic main', kotlinObject, 'object: x\n'],
  ['KOTLIN2', 'a class whose companion object has a @JvmStatic main', kotlinCompanion, 'companion: xx\n'],
  ['SCALA3', 'an object extending App', scalaApp, 'app: x\n'],
])(`%s (${backend.name}) finds the entry point`, (code, what, source, stdout) => {
  it(what, { timeout: 180_000 }, async () => {
    const o = await backend.check(byCode.get(code)!, source, 'x\n')
    expect(o.compiled, o.compileMessage).toBe(true)
    expect(o.stderr).toBe('')
    expect(o.verdict.verdict).toBe('AC')
    expect(o.stdout).toBe(stdout)
  })
})

// 300 MB under 64 MB, as JAVA's case in src/jobs/worker.test.ts: the JVM is sized to the limit
// (MaxRAM, the heap 85% of it), so the JVM's own OutOfMemoryError (memory_error_pattern) makes it MLE,
// and the cgroup's kill at the same limit does for what no heap bound covers
const OVER_LIMIT: [string, string][] = [
  ['KOTLIN', 'fun main() {\n    val b = ByteArray(300 shl 20)\n    b.fill(1)\n    println(b.size)\n}\n'],
  [
    'SCALA',
    'object Main {\n  def main(args: Array[String]): Unit = {\n    val b = new Array[Byte](300 << 20)\n    java.util.Arrays.fill(b, 1.toByte)\n    println(b.length)\n  }\n}\n',
  ],
  ['KOTLIN2', 'fun main() {\n    val b = ByteArray(300 shl 20)\n    b.fill(1)\n    println(b.size)\n}\n'],
  [
    'SCALA3',
    'object Main {\n  def main(args: Array[String]): Unit = {\n    val b = new Array[Byte](300 << 20)\n    java.util.Arrays.fill(b, 1.toByte)\n    println(b.length)\n  }\n}\n',
  ],
  ['CLOJURE', '(let [b (byte-array (* 300 1024 1024))]\n  (java.util.Arrays/fill b (byte 1))\n  (println (alength b)))\n'],
]

describe.each(OVER_LIMIT)(`%s (${backend.name}) over its memory limit`, (code, source) => {
  it('300 MB under 64 MB is MLE', { timeout: 180_000 }, async () => {
    const o = await backend.check(byCode.get(code)!, source, '', 65536)
    const summary = JSON.stringify({ verdict: o.verdict.verdict, compile: o.compileMessage.slice(0, 300), stderr: o.stderr.slice(0, 300) })
    expect(o.compiled, summary).toBe(true)
    expect(o.verdict.verdict, summary).toBe('MLE')
    expect(o.stdout).toBe('')
  })
})

// ---------- the modern codes: what their version brings compiles and runs; the older code rejects it ----------

const java21 = `import java.util.*;

public class Main {
    sealed interface Shape permits Circle, Square {}
    record Circle(double r) implements Shape {}
    record Square(double side) implements Shape {}

    static String describe(Object o) {
        return switch (o) {
            case Circle(double r) when r > 10 -> "big circle";
            case Circle c -> "circle " + c.r();
            case Square(var s) -> "square " + s;
            case Integer i -> "int " + i;
            default -> "other";
        };
    }

    public static void main(String[] args) {
        double r = new Scanner(System.in).nextDouble();
        System.out.println(describe(new Circle(r)));
        System.out.println(describe(new Square(2)));
        System.out.println(describe(42));
        System.out.println(List.of(1, 2, 3).reversed());
    }
}
`
const cpp20 = `#include <bits/stdc++.h>

template <typename T>
concept Number = std::integral<T> || std::floating_point<T>;

auto twice(Number auto x) { return x * 2; }

int main() {
  std::vector<int> v;
  for (int x; std::cin >> x;) v.push_back(x);
  auto doubled = v | std::views::filter([](int n) { return n % 2 == 0; }) | std::views::transform([](int n) { return twice(n); });
  for (int n : doubled) std::cout << n << ' ';
  std::cout << std::format("max {}\\n", std::ranges::max(v));
}
`
const cpp23 = `#include <bits/stdc++.h>

struct Counter {
  int n = 0;
  auto&& inc(this auto&& self) { ++self.n; return self; }
};

int main() {
  std::string line;
  std::getline(std::cin, line);
  auto words = line | std::views::split(' ')
    | std::views::transform([](auto r) { return std::string(r.begin(), r.end()); })
    | std::ranges::to<std::vector>();
  Counter c;
  c.inc().inc();
  std::expected<int, std::string> e = 7;
  std::print("{} words, last {}, counter {}, expected {}\\n", words.size(), words.back(), c.n, *e);
}
`
const ts5 = `function logged<This, Args extends unknown[], R>(
  target: (this: This, ...args: Args) => R,
  context: ClassMethodDecoratorContext<This, (this: This, ...args: Args) => R>,
) {
  return function (this: This, ...args: Args): R {
    const r = target.call(this, ...args)
    console.log(\`\${String(context.name)} -> \${r}\`)
    return r
  }
}

class Greeter {
  constructor(private name: string) {}
  @logged
  greet(): string {
    return \`hello \${this.name}\`
  }
}

function first<const T extends readonly unknown[]>(xs: T): T[0] {
  return xs[0]
}

const config = { port: 8080, host: 'localhost' } satisfies Record<string, string | number>
const line: string = require('fs').readFileSync(0, 'utf8').trim()
new Greeter(line).greet()
const f: 'a' = first(['a', 'b'])
console.log(f, config.port.toFixed(0))
`
const kotlin2 = `sealed interface Shape
data class Circle(val r: Double) : Shape
data object Dot : Shape
enum class Color { RED, GREEN }

fun describe(s: Shape): String = when (s) {
    is Circle if s.r > 10 -> "big circle"
    is Circle -> "circle \${s.r}"
    Dot -> "dot"
}

fun main() {
    val r = readln().trim().toDouble()
    println(describe(Circle(r)))
    println(describe(Dot))
    println(Dot)
    println(Color.entries.joinToString())
    println($$"cost: $$r $")
}
`
const scala3 = `enum Color:
  case Red, Green, Blue

trait Show[A]:
  def show(a: A): String

given Show[Color] with
  def show(c: Color): String = c.toString.toLowerCase

extension (s: String) def shout: String = s.toUpperCase + "!"

def render[A](a: A)(using sh: Show[A]): String = sh.show(a)

@main def run(): Unit =
  val line = scala.io.StdIn.readLine()
  println(line.shout)
  println(Color.values.map(render(_)).mkString(","))
  println(Color.valueOf("Green").ordinal)
`

describe.each([
  ['JAVA21', 'JAVA14', 'a sealed interface, records, record patterns and guards in a switch, List.reversed', java21, '3\n', 'circle 3.0\nsquare 2.0\nint 42\n[3, 2, 1]\n'],
  ['CPP20', 'CPP17', 'a concept, an abbreviated template, ranges views, std::format', cpp20, '1 2 3 4\n', '4 8 max 4\n'],
  ['CPP23', 'CPP20', 'deducing this, ranges::to, std::expected, std::print', cpp23, 'a bb ccc\n', '3 words, last ccc, counter 2, expected 7\n'],
  ['TYPESCRIPT5', 'TYPESCRIPT', 'a standard (TC39) method decorator, a const type parameter, satisfies', ts5, 'world\n', 'greet -> hello world\na 8080\n'],
  ['KOTLIN2', 'KOTLIN', 'a guard in when, a data object, enum entries, multi-dollar interpolation', kotlin2, '3\n', 'circle 3.0\ndot\nDot\nRED, GREEN\ncost: 3.0 $\n'],
  ['SCALA3', 'SCALA', 'an enum, a given instance and using clause, an extension method, @main', scala3, 'hi\n', 'HI!\nred,green,blue\n1\n'],
])(`%s (${backend.name}) beside %s`, (code, older, what, source, stdin, stdout) => {
  it(`runs ${what}`, { timeout: 180_000 }, async () => {
    const o = await backend.check(byCode.get(code)!, source, stdin)
    expect(o.compiled, o.compileMessage).toBe(true)
    expect(o.stderr).toBe('')
    expect(o.verdict.verdict).toBe('AC')
    expect(o.stdout).toBe(stdout)
  })

  it(`the same program is a compile error for ${older}, which keeps its behaviour`, { timeout: 180_000 }, async () => {
    const o = await backend.check(byCode.get(older)!, source, stdin)
    expect(o.verdict.verdict, o.compileMessage.slice(0, 400)).toBe('CE')
  })
})
