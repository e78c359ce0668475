// Jobe's languages as CodeRunner names them. Which Arbiter code answers to which Jobe name is the
// manifest's (each entry's `jobe` key); what is here is Jobe's own behaviour for its own names: its
// defaults (file name, memory limit, compiler and interpreter flags) and its compile and run commands
// built as argv lists — the same programs Jobe runs, without Jobe's shell around them. A manifest entry
// whose name Jobe has no rule for runs with the manifest's own commands.
import type { Language } from '../languages.ts'

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
  /** The source is always written under defaultFileName: the manifest's commands name that file, so a request's sourcefilename is checked but not used. */
  fixedFileName?: boolean
  /** Jobe's per-language defaults, as items before word splitting (Jobe joins them with spaces); numprocs undefined: the toolchain's own process limit unless the request gives one. */
  defaults: { memorylimit: number; numprocs?: number; compileargs: string[]; interpreterargs: string[] }
  /** Jobe's memorylimit is ignored (Java: the JVM manages its heap); the jail's memory cap still holds. */
  noAddressSpaceLimit?: boolean
  /** numprocs is ignored: the toolchain's own process limit holds (a JVM needs its threads). */
  ownProcessLimit?: boolean
  /**
   * The syntax check and the run as one jailed process: the run step's argv, which checks the source
   * first and writes the marker line and the check's message to stderr when it fails (the core's
   * compileCheckMarker), or undefined when the arguments need the two steps.
   */
  checkAndRun?(src: string, a: JobeArgs, marker: string): string[] | undefined
  /** The compile step's argv; [] when Jobe runs no compiler; undefined: the manifest's own compile step. */
  compile(src: string, a: JobeArgs): string[] | undefined
  run(src: string, a: JobeArgs): string[]
  /** Jobe counts any compiler output on stderr as a compile error (its cmpinfo), warnings included. */
  compileStderrFails: boolean
  /** The run gets Jobe's 8 MiB stack limit (JOBE_STACK_BYTES) rather than the jail's 64 MiB (Java sets its own). */
  jobeStack?: boolean
  /** JavaTask's filteredStderr: a stack trace's newline-tab as a newline and eight spaces (outcome.ts JobeTexts). */
  stderrTabsAsSpaces?: boolean
  /** PhpTask's cmpinfo: stdout, a newline, then stderr (outcome.ts JobeTexts). */
  cmpinfoStdoutFirst?: boolean
}

const exe = (src: string) => `${src}.exe`
/**
 * C and C++ link with gold, as the manifest's own commands do: a hello world links in about 17 ms
 * instead of ld.bfd's 29, the largest part of a C hello's compile (bench-apis: Jobe's C hello took
 * 1.2-1.4× the other faces' with ld.bfd). Before compileargs, so a request's own -fuse-ld wins.
 */
const GOLD = '-fuse-ld=gold'

/**
 * Jobe's programs run with the 8 MiB stack limit they inherit from its web server (runguard sets none);
 * the jail's own is 64 MiB. glibc and libuv reserve each thread's stack at that size and memorylimit
 * counts what is reserved, so under 64 MiB node needed about 300 MB more than on Jobe to start and a C
 * program got a sixth of Jobe's threads. The run's stack limit (the core's stackKb) is Jobe's then.
 */
export const JOBE_STACK_BYTES = 8 * 1024 * 1024

/** Java's main class: the public class with a main method (Jobe's regular expression), or undefined. */
export function javaMainClass(source: string): string | undefined {
  const re = /(^|\W)public\s+class\s+(\w+)[^{]*\{.*?(public\s+static|static\s+public)\s+void\s+main\s*\(\s*String/gms
  const found = [...source.matchAll(re)]
  return found.length === 1 ? found[0]![2] : undefined
}

const base = { memorylimit: 400, numprocs: 30, compileargs: [] as string[], interpreterargs: [] as string[] }

/**
 * Jobe's syntax check (`python3 -m py_compile prog.py`) without its cost: the same compile() call and
 * the same message on stderr, byte for byte (py_compile's PyCompileError text: a SyntaxError as
 * traceback formats it, any other error as "Sorry: Type: text"; an uncaught error exits 1, as
 * py_compile does), but no argparse, no site (-S) and no .pyc written. 9 ms in the jail's root
 * against 31 ms: py_compile's imports were most of a fresh python3 run's extra cost on the Jobe path.
 * One line: the supervisor's requests are line-based.
 */
export const PY_SYNTAX_CHECK =
  "import sys;f=sys.argv[1];sys.excepthook=lambda t,e,b:sys.stderr.write(''.join(__import__('traceback').format_exception_only(t,e)).replace('File \"<string>\"','File \"%s\"'%f) if t is SyntaxError else 'Sorry: %s: %s'%(t.__name__,e));compile(open(f,'rb').read(),f,'exec',dont_inherit=True)"

/**
 * PY_SYNTAX_CHECK and the run in one interpreter (one jailed process, not two): `python3 [flags]
 * PY_CHECK_AND_RUN_PYC marker prog.py args...` compiles the source as the check does (same text on stderr
 * after the marker line, same exit status; a warning on stderr fails the check, as Jobe's any-stderr
 * rule does: a source that compiles clean is compiled once, by exec() of its bytes stopped before its
 * first instruction, which skips the ~2 ms compile() spends on the ast module's types; any other end
 * compiles it again by the check's own compile() call for the check's exact text) and, when it
 * compiles, runs that code as __main__ as `python3 [flags] prog.py args...` would: sys.argv, sys.orig_argv, sys.path[0], __file__, __loader__, __cached__ and the
 * code's file name (so tracebacks' File lines and line numbers) are the script's; the driver leaves no
 * name in __main__, and the tracebacks an uncaught error prints start at the program (sys.excepthook
 * drops the driver's frames and flushes stdout first, as the interpreter does). What still shows the
 * driver: the frames below the program's (sys._getframe, inspect.stack) and the tracebacks a hook the
 * program installs itself receives. The driver is toolchains/bin/jobe-python3-check-and-run.py,
 * compiled into a .pyc when the toolchain is provisioned (toolchains/bin/python-precompile, by the
 * root's python3), which python3 runs as its script: compiling its ~50 lines at every run cost ~1.4 ms
 * of a python3 hello in the jail, and loading it with `-c` 0.13–0.15 ms of CPU more (3.13 imports linecache for a -c
 * command, to show it in tracebacks).
 */
export const PY_CHECK_AND_RUN_PYC = '/usr/local/lib/arbiter/jobe-python3-check-and-run.pyc'

/**
 * Flags that leave the script and its arguments where they are: clusters of letters without c or m
 * (which take the rest of the command line), not ending in W or X (which take the next item), and
 * without x (which skips the script's first line: the driver's .pyc would lose its header, and Jobe
 * checks the whole file, so the two steps are Jobe's own behaviour).
 */
const PY_PLAIN_FLAGS = /^-(?![A-Za-z]*[cmx])[A-Za-z]*[A-VYZa-z]$/

/** Jobe's own behaviour for the names Jobe itself has, in Jobe's order (the listing's); the code is the manifest entry's that claims the name. */
export const JOBE_OWN: readonly Omit<JobeLanguage, 'code'>[] = [
  {
    name: 'c',
    defaultFileName: () => 'prog.c',
    defaults: { ...base, compileargs: ['-Wall', '-Werror', '-std=c99', '-x c'] },
    compile: (src, a) => ['gcc', GOLD, ...a.compileargs, '-o', exe(src), src, ...a.linkargs],
    run: (src, a) => [`./${exe(src)}`, ...a.interpreterargs, ...a.runargs],
    jobeStack: true,
    compileStderrFails: true,
  },
  {
    name: 'cpp',
    defaultFileName: () => 'prog.cpp',
    defaults: { ...base, compileargs: ['-Wall', '-Werror'] },
    compile: (src, a) => ['g++', GOLD, ...a.compileargs, '-o', exe(src), src, ...a.linkargs],
    run: (src, a) => [`./${exe(src)}`, ...a.interpreterargs, ...a.runargs],
    jobeStack: true,
    compileStderrFails: true,
  },
  {
    name: 'python3',
    defaultFileName: () => 'prog.py',
    // NumPy and matplotlib need the room (Jobe's own reason)
    defaults: { ...base, memorylimit: 1000, interpreterargs: ['-BE'] },
    // Jobe syntax-checks first: a syntax error is a compile error (11), not a runtime one
    compile: (src) => ['python3', '-I', '-S', '-c', PY_SYNTAX_CHECK, src],
    checkAndRun: (src, a, marker) =>
      a.interpreterargs.every((f) => PY_PLAIN_FLAGS.test(f)) ? ['python3', ...a.interpreterargs, PY_CHECK_AND_RUN_PYC, marker, src, ...a.runargs] : undefined,
    run: (src, a) => ['python3', ...a.interpreterargs, src, ...a.runargs],
    jobeStack: true,
    compileStderrFails: true,
  },
  {
    name: 'java',
    defaultFileName: (source) => `${javaMainClass(source) ?? 'prog'}.java`,
    defaults: { ...base, memorylimit: 0, numprocs: 256, interpreterargs: ['-Xrs', '-Xss8m', '-Xmx200m'] },
    noAddressSpaceLimit: true,
    ownProcessLimit: true,
    compile: (src, a) => ['javac', ...a.compileargs, src],
    // the main class is the file name up to its first dot (Jobe's rule), unless main_class names it;
    // the jail's stack: no address-space limit here, and the JVM sizes its threads' stacks itself (-Xss)
    run: (src, a) => ['java', ...a.interpreterargs, a.mainClass ?? src.split('.')[0]!, ...a.runargs],
    compileStderrFails: true,
    stderrTabsAsSpaces: true,
  },
  {
    name: 'nodejs',
    defaultFileName: () => 'prog.js',
    // Jobe's 400 MB default, as Jobe applies it: V8 reserves more address space than that at start, so
    // node fails there ("Failed to reserve virtual memory for CodeRange", outcome 12) exactly as on Jobe;
    // CodeRunner's nodejs prototype asks for 1000 MB and Jobe's test script for 1000000
    defaults: { ...base, interpreterargs: ['--use_strict'] },
    // no syntax check: a syntax error is a runtime error (12), as in Jobe
    compile: () => [],
    run: (src, a) => ['node', ...a.interpreterargs, src, ...a.runargs],
    jobeStack: true,
    compileStderrFails: false,
  },
  {
    name: 'python2',
    defaultFileName: () => 'prog.py2',
    defaults: { ...base, interpreterargs: ['-BESs'] },
    // no syntax check: a syntax error is a runtime error (12), as in Jobe
    compile: () => [],
    run: (src, a) => ['python2.7', ...a.interpreterargs, src, ...a.runargs],
    jobeStack: true,
    compileStderrFails: false,
  },
  {
    name: 'php',
    defaultFileName: () => 'prog.php',
    defaults: { ...base, interpreterargs: ['--no-php-ini'] },
    compile: (src) => ['php', '-l', src],
    run: (src, a) => ['php', ...a.interpreterargs, src, ...a.runargs],
    jobeStack: true,
    compileStderrFails: false,
    cmpinfoStdoutFirst: true,
  },
  {
    name: 'pascal',
    defaultFileName: () => 'prog.pas',
    defaults: { ...base, compileargs: ['-vew', '-Se'] },
    // Jobe sends fpc's messages to a file (-Fe) and reads it back; here they are the compile step's output
    compile: (src, a) => ['fpc', ...a.compileargs, `-o${exe(src)}`, src],
    run: (src, a) => [`./${exe(src)}`, ...a.interpreterargs, ...a.runargs],
    jobeStack: true,
    compileStderrFails: false,
  },
]

/**
 * A language whose Jobe name (by default its code in lowercase) is not one of Jobe's own: the manifest's own compile and run
 * commands (runargs follow the program; compileargs, linkargs and interpreterargs do not apply), the
 * manifest's source file name, the compile step failing on its exit status (not on a warning), and no
 * address-space limit unless the request sets memorylimit.
 */
function manifestLanguage(lang: Language): JobeLanguage {
  return {
    name: lang.jobe,
    code: lang.code,
    defaultFileName: () => lang.sourceFile,
    fixedFileName: true,
    defaults: { memorylimit: 0, compileargs: [], interpreterargs: [] },
    compile: () => undefined,
    run: (_src, a) => [...lang.run, ...a.runargs],
    compileStderrFails: false,
  }
}

/**
 * Every language of the manifest under its Jobe name: those with one of Jobe's own names first, in
 * Jobe's order, with Jobe's behaviour; then the others in manifest order with their own commands. The
 * manifest loader refused a Jobe name claimed twice.
 */
export function jobeLanguages(manifest: ReadonlyMap<string, Language>): JobeLanguage[] {
  const byName = new Map([...manifest.values()].map((l) => [l.jobe, l]))
  const own = new Set(JOBE_OWN.map((j) => j.name))
  const jobe = JOBE_OWN.flatMap((j) => {
    const lang = byName.get(j.name)
    return lang ? [{ ...j, code: lang.code }] : []
  })
  // Judge0's own forms (judge0_only) are not Jobe's
  const others = [...manifest.values()].filter((l) => !own.has(l.jobe) && !l.judge0Only).map(manifestLanguage)
  return [...jobe, ...others]
}
