// Jobe's languages as CodeRunner names them, each mapped to one of Arbiter's toolchains, with Jobe's
// own defaults (file name, memory limit, compiler and interpreter flags) and its compile and run
// commands built as argv lists — the same programs Jobe runs, without Jobe's shell around them.

/** A run's arguments after Jobe's defaults were applied, each item already split into words. */
export interface JobeArgs {
  compileargs: string[]
  linkargs: string[]
  interpreterargs: string[]
  runargs: string[]
  mainClass?: string
}

export interface JobeLanguage {
  /** Jobe's name (language_id), lowercase. */
  name: string
  /** Arbiter's language code whose toolchain runs it. */
  code: string
  /** The source's name when the request gives none. */
  defaultFileName(source: string): string
  /** Jobe's per-language defaults, as items before word splitting (Jobe joins them with spaces). */
  defaults: { memorylimit: number; numprocs: number; compileargs: string[]; interpreterargs: string[] }
  /** Jobe's memorylimit is ignored (Java: the JVM manages its heap); the jail's memory cap still holds. */
  noAddressSpaceLimit?: boolean
  /** The compile step's argv; [] when Jobe runs no compiler. */
  compile(src: string, a: JobeArgs): string[]
  run(src: string, a: JobeArgs): string[]
  /** Jobe counts any compiler output on stderr as a compile error (its cmpinfo), warnings included. */
  compileStderrFails: boolean
}

const exe = (src: string) => `${src}.exe`

/** Java's main class: the public class with a main method (Jobe's regular expression), or undefined. */
export function javaMainClass(source: string): string | undefined {
  const re = /(^|\W)public\s+class\s+(\w+)[^{]*\{.*?(public\s+static|static\s+public)\s+void\s+main\s*\(\s*String/gms
  const found = [...source.matchAll(re)]
  return found.length === 1 ? found[0]![2] : undefined
}

const base = { memorylimit: 400, numprocs: 30, compileargs: [] as string[], interpreterargs: [] as string[] }

export const JOBE_LANGUAGES: JobeLanguage[] = [
  {
    name: 'c',
    code: 'C',
    defaultFileName: () => 'prog.c',
    defaults: { ...base, compileargs: ['-Wall', '-Werror', '-std=c99', '-x c'] },
    compile: (src, a) => ['gcc', ...a.compileargs, '-o', exe(src), src, ...a.linkargs],
    run: (src, a) => [`./${exe(src)}`, ...a.interpreterargs, ...a.runargs],
    compileStderrFails: true,
  },
  {
    name: 'cpp',
    code: 'CPP',
    defaultFileName: () => 'prog.cpp',
    defaults: { ...base, compileargs: ['-Wall', '-Werror'] },
    compile: (src, a) => ['g++', ...a.compileargs, '-o', exe(src), src, ...a.linkargs],
    run: (src, a) => [`./${exe(src)}`, ...a.interpreterargs, ...a.runargs],
    compileStderrFails: true,
  },
  {
    name: 'python3',
    code: 'PYTHON3',
    defaultFileName: () => 'prog.py',
    // NumPy and matplotlib need the room (Jobe's own reason)
    defaults: { ...base, memorylimit: 1000, interpreterargs: ['-BE'] },
    // Jobe syntax-checks first: a syntax error is a compile error (11), not a runtime one
    compile: (src) => ['python3', '-m', 'py_compile', src],
    run: (src, a) => ['python3', ...a.interpreterargs, src, ...a.runargs],
    compileStderrFails: true,
  },
  {
    name: 'java',
    code: 'JAVA',
    defaultFileName: (source) => `${javaMainClass(source) ?? 'prog'}.java`,
    defaults: { ...base, memorylimit: 0, numprocs: 256, interpreterargs: ['-Xrs', '-Xss8m', '-Xmx200m'] },
    noAddressSpaceLimit: true,
    compile: (src, a) => ['javac', ...a.compileargs, src],
    // the main class is the file name up to its first dot (Jobe's rule), unless main_class names it
    run: (src, a) => ['java', ...a.interpreterargs, a.mainClass ?? src.split('.')[0]!, ...a.runargs],
    compileStderrFails: true,
  },
  {
    name: 'nodejs',
    code: 'JAVASCRIPT_NODE',
    defaultFileName: () => 'prog.js',
    // V8 reserves several GB of address space it never uses: under Jobe's 400 MB default it cannot start,
    // so by default only the jail's memory cap holds (a request's own memorylimit still applies)
    defaults: { ...base, memorylimit: 0, interpreterargs: ['--use_strict'] },
    // no syntax check: a syntax error is a runtime error (12), as in Jobe
    compile: () => [],
    run: (src, a) => ['node', ...a.interpreterargs, src, ...a.runargs],
    compileStderrFails: false,
  },
  {
    name: 'php',
    code: 'PHP',
    defaultFileName: () => 'prog.php',
    defaults: { ...base, interpreterargs: ['--no-php-ini'] },
    compile: (src) => ['php', '-l', src],
    run: (src, a) => ['php', ...a.interpreterargs, src, ...a.runargs],
    compileStderrFails: false,
  },
  {
    name: 'pascal',
    code: 'PASCAL',
    defaultFileName: () => 'prog.pas',
    defaults: { ...base, compileargs: ['-vew', '-Se'] },
    // Jobe sends fpc's messages to a file (-Fe) and reads it back; here they are the compile step's output
    compile: (src, a) => ['fpc', ...a.compileargs, `-o${exe(src)}`, src],
    run: (src, a) => [`./${exe(src)}`, ...a.interpreterargs, ...a.runargs],
    compileStderrFails: false,
  },
]

export const jobeLanguage = (name: string): JobeLanguage | undefined => JOBE_LANGUAGES.find((l) => l.name === name)
