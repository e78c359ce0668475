// The per-language tables of the languages Judge0, Piston and the contest judges offer beyond the
// spec's: for each, in the real jail, a hello world, a runtime error (an exit status and
// the language's own uncaught error), a memory hog over its limit (MLE), one under it whose
// memory_used must show what it touched, and a hostile program that shells out through the
// runtime's own way of starting a process and tries what the jail refuses: a new user namespace
// (seccomp), the host's secrets, the read-only root. The echo of stdin and the compile (syntax) error
// of each are src/languages.provisioned.test.ts's rows, its endless loop src/jobs/languages-tle.test.ts's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../config.ts'
import { verdictOf, type Verdict } from '../grading/verdict.ts'
import { isProvisioned, loadLanguages } from '../languages.ts'
import { workerSettings } from './pool.ts'
import type { Job } from './types.ts'
import { createJobRunner, type JobRunner } from './worker.ts'

const config = loadConfig({ ...process.env, ARBITER_DATA: process.env.ARBITER_DATA ?? '/tmp/arbiter-worker-test' })
const langs = loadLanguages()
const settings = workerSettings(config)
settings.limits.wallExtraSec = 0.5

const MB = 1 << 20
/** What the hostile programs run through /bin/sh: each line must come out as `<what>=1`. */
const HOSTILE = 'unshare -U true 2>/dev/null; echo unshare=$?; cat /etc/shadow >/dev/null 2>&1; echo shadow=$?; touch /usr/hostile 2>/dev/null; echo write=$?'
const HOSTILE_OUT = 'unshare=1\nshadow=1\nwrite=1\n'

interface Programs {
  hello: string
  /** ends with exit status 3 */
  exit3?: string
  /** the language's own uncaught error (an exception, a failed assertion, a division by zero) */
  thrown?: string
  /** allocates and touches n bytes, then prints "done" */
  alloc?: (n: number) => string
  /** runs HOSTILE with /bin/sh, its output on stdout */
  hostile: (cmd: string) => string
}

const cMain = (body: string, includes = '') => `#include <stdio.h>\n#include <stdlib.h>\n${includes}\nint main(void){${body}}\n`
const C_PROGRAMS: Programs = {
  hello: cMain('puts("hello, world");return 0;'),
  exit3: cMain('exit(3);'),
  thrown: cMain('volatile int*p=0;return *p;'),
  alloc: (n) => cMain(`size_t n=${n}u;volatile char*p=malloc(n);if(!p)return 1;for(size_t i=0;i<n;i+=4096)p[i]=1;puts("done");return 0;`),
  hostile: (cmd) => cMain(`fflush(stdout);return system("${cmd}")==0?0:1;`),
}
const cpp = (s: string) => s.replace('#include <stdio.h>', '#include <cstdio>').replace('#include <stdlib.h>', '#include <cstdlib>').replace('=malloc(n)', '=(char*)malloc(n)')
const CPP_PROGRAMS: Programs = {
  hello: cpp(C_PROGRAMS.hello),
  exit3: cpp(C_PROGRAMS.exit3!),
  thrown: '#include <stdexcept>\nint main(){throw std::runtime_error("boom");}\n',
  alloc: (n) => cpp(C_PROGRAMS.alloc!(n)),
  hostile: (cmd) => cpp(C_PROGRAMS.hostile(cmd)),
}

const asmExit = (status: number) => `    mov eax, 60\n    mov edi, ${status}\n    syscall\n`
const PROGRAMS: Record<string, Programs> = {
  BASH: {
    hello: 'echo "hello, world"',
    exit3: 'exit 3',
    thrown: 'set -e\nfalse\necho unreachable',
    // dd holds its block in memory: bs is what it allocates and fills
    alloc: (n) => `dd if=/dev/zero of=/dev/null bs=${n} count=1 2>/dev/null && echo done`,
    hostile: (cmd) => cmd,
  },
  // Judge0's multi-file program: its run script (the source here) is bash; language 89's own cases
  // (the zip's compile step, files beside it) are src/jobs/judge0-forms.test.ts's
  MULTIFILE: {
    hello: 'echo "hello, world"',
    exit3: 'exit 3',
    thrown: 'set -e\nfalse\necho unreachable',
    alloc: (n) => `dd if=/dev/zero of=/dev/null bs=${n} count=1 2>/dev/null && echo done`,
    hostile: (cmd) => cmd,
  },
  LUA: {
    hello: 'print("hello, world")',
    exit3: 'os.exit(3)',
    thrown: 'error("boom")',
    alloc: (n) => `local s = string.rep("x", ${n})\nif #s == ${n} then print("done") end`,
    hostile: (cmd) => `io.stdout:flush()\nos.execute("${cmd}")`,
  },
  AWK: {
    hello: 'BEGIN { print "hello, world" }',
    exit3: 'BEGIN { exit 3 }',
    thrown: 'BEGIN { z = 0; print 1 / z }',
    // doubled 20 times from n / 2^20 bytes; no length() or substr(): in a UTF-8 locale gawk would
    // hold a wide-character copy of the string, four bytes a character
    alloc: (n) => `BEGIN { s = sprintf("%${n / MB}s", ""); for (i = 0; i < 20; i++) s = s s; if (s != "") print "done" }`,
    hostile: (cmd) => `BEGIN { system("${cmd}") }`,
  },
  FORTRAN: {
    hello: "program hello\n  print '(A)', 'hello, world'\nend program hello\n",
    exit3: 'program status\n  stop 3\nend program status\n',
    thrown: "program failing\n  error stop 'boom'\nend program failing\n",
    alloc: (n) =>
      `program hog\n  integer(1), allocatable :: a(:)\n  allocate(a(${n}))\n  a = 1\n  if (sum(int(a(1:${n}:4096))) > 0) print '(A)', 'done'\nend program hog\n`,
    hostile: (cmd) => `program hostile\n  call execute_command_line('${cmd}')\nend program hostile\n`,
  },
  C_CLANG: C_PROGRAMS,
  C_GCC9: C_PROGRAMS,
  C_GCC9_GNU17: C_PROGRAMS,
  C_GCC10: C_PROGRAMS,
  CPP_CLANG: CPP_PROGRAMS,
  CPP_GCC9: CPP_PROGRAMS,
  CPP_GCC10: CPP_PROGRAMS,
  ASSEMBLY: {
    hello: `section .data\nmsg: db "hello, world", 10\nsection .text\nglobal _start\n_start:\n    mov eax, 1\n    mov edi, 1\n    lea rsi, [rel msg]\n    mov edx, 13\n    syscall\n${asmExit(0)}`,
    exit3: `section .text\nglobal _start\n_start:\n${asmExit(3)}`,
    thrown: `section .text\nglobal _start\n_start:\n    xor eax, eax\n    mov rax, [rax]\n${asmExit(0)}`,
    alloc: (n) =>
      `section .data\nmsg: db "done", 10\nsection .text\nglobal _start\n_start:\n    mov eax, 9\n    xor edi, edi\n    mov rsi, ${n}\n    mov edx, 3\n    mov r10d, 0x22\n    mov r8, -1\n    xor r9d, r9d\n    syscall\n    cmp rax, -4096\n    ja .fail\n    mov rcx, ${n}\n.touch:\n    sub rcx, 4096\n    mov byte [rax + rcx], 1\n    jnz .touch\n    mov eax, 1\n    mov edi, 1\n    lea rsi, [rel msg]\n    mov edx, 5\n    syscall\n${asmExit(0)}.fail:\n${asmExit(1)}`,
    hostile: (cmd) =>
      `section .data\nsh: db "/bin/sh", 0\ndashc: db "-c", 0\ncmd: db "${cmd}", 0\nargv: dq sh, dashc, cmd, 0\nsection .text\nglobal _start\n_start:\n    mov eax, 59\n    lea rdi, [rel sh]\n    lea rsi, [rel argv]\n    xor edx, edx\n    syscall\n${asmExit(1)}`,
  },
  OCAML: {
    hello: 'let () = print_endline "hello, world"',
    exit3: 'let () = exit 3',
    thrown: 'let () = print_int (1 / Sys.opaque_identity 0)',
    alloc: (n) => `let () =\n  let b = Bytes.make ${n} 'x' in\n  if Bytes.length b = ${n} then print_endline "done"`,
    hostile: (cmd) => `let () = ignore (Sys.command "${cmd}")`,
  },
  PROLOG: {
    hello: ":- initialization(main).\nmain :- write('hello, world'), nl.\n",
    exit3: ':- initialization(main).\nmain :- halt(3).\n',
    // GNU Prolog's own stacks (not the memory limit) bound what a program may build: no alloc rows
    hostile: (cmd) => `:- initialization(main).\nmain :- shell('${cmd}', _).\n`,
  },
  PROLOG_SWI: {
    hello: ":- initialization(main, main).\nmain :- writeln('hello, world').\n",
    exit3: ':- initialization(main, main).\nmain :- halt(3).\n',
    thrown: ':- initialization(main, main).\nmain :- X is 1 / 0, writeln(X).\n',
    alloc: (n) => `:- initialization(main, main).\nmain :- N is ${n} // 24, numlist(1, N, L), length(L, N), writeln(done).\n`,
    hostile: (cmd) => `:- initialization(main, main).\nmain :- shell('${cmd}').\n`,
  },
  SQL: {
    hello: "SELECT 'hello, world';",
    thrown: 'SELECT * FROM no_such_table;',
    alloc: (n) => `SELECT CASE WHEN length(randomblob(${n})) = ${n} THEN 'done' END;`,
    hostile: (cmd) => `.shell ${cmd}`,
  },
  LISP: {
    hello: '(write-line "hello, world")',
    exit3: '(sb-ext:exit :code 3)',
    thrown: '(error "boom")',
    alloc: (n) => `(let ((a (make-array ${n} :element-type '(unsigned-byte 8) :initial-element 1)))\n  (when (= (length a) ${n}) (write-line "done")))`,
    hostile: (cmd) => `(sb-ext:run-program "/bin/sh" (list "-c" "${cmd}") :output t)`,
  },
  D: {
    hello: 'import std.stdio;\nvoid main() { writeln("hello, world"); }\n',
    exit3: 'import core.stdc.stdlib;\nvoid main() { exit(3); }\n',
    thrown: 'void main() { throw new Exception("boom"); }\n',
    alloc: (n) => `import std.stdio;\nvoid main() {\n    auto a = new ubyte[](${n});\n    a[] = 1;\n    if (a[$ - 1] == 1) writeln("done");\n}\n`,
    hostile: (cmd) => `import std.process, std.stdio;\nvoid main() { stdout.flush(); spawnShell("${cmd}").wait; }\n`,
  },
  ERLANG: {
    hello: 'main(_) -> io:format("hello, world~n").\n',
    exit3: 'main(_) -> halt(3).\n',
    thrown: 'main(_) -> erlang:error(boom).\n',
    alloc: (n) => `main(_) ->\n    B = binary:copy(<<1>>, ${n}),\n    ${n} = byte_size(B),\n    io:format("done~n").\n`,
    hostile: (cmd) => `main(_) -> io:put_chars(os:cmd("${cmd}")).\n`,
  },
  ELIXIR: {
    hello: 'IO.puts("hello, world")',
    exit3: 'System.halt(3)',
    thrown: 'raise "boom"',
    alloc: (n) => `b = :binary.copy(<<1>>, ${n})\nif byte_size(b) == ${n}, do: IO.puts("done")`,
    hostile: (cmd) => `{out, _} = System.cmd("/bin/sh", ["-c", "${cmd}"])\nIO.write(out)`,
  },
  COBOL: {
    hello: 'IDENTIFICATION DIVISION.\nPROGRAM-ID. HELLO.\nPROCEDURE DIVISION.\n    DISPLAY "hello, world".\n    STOP RUN.\n',
    exit3: 'IDENTIFICATION DIVISION.\nPROGRAM-ID. STATUS3.\nPROCEDURE DIVISION.\n    STOP RUN RETURNING 3.\n',
    alloc: (n) =>
      `IDENTIFICATION DIVISION.\nPROGRAM-ID. HOG.\nDATA DIVISION.\nWORKING-STORAGE SECTION.\n01 BIG PIC X(${n}).\nPROCEDURE DIVISION.\n    MOVE ALL "x" TO BIG.\n    IF BIG(${n}:1) = "x" DISPLAY "done" END-IF.\n    STOP RUN.\n`,
    hostile: (cmd) => `IDENTIFICATION DIVISION.\nPROGRAM-ID. HOSTILE.\nPROCEDURE DIVISION.\n    CALL "SYSTEM" USING "${cmd}".\n    STOP RUN.\n`,
  },
  OCTAVE: {
    hello: "disp('hello, world')",
    exit3: 'exit(3)',
    thrown: "error('boom')",
    alloc: (n) => `a = ones(${n / 8}, 1);\nif numel(a) == ${n / 8}\n  disp('done')\nend`,
    hostile: (cmd) => `system('${cmd}');`,
  },
  GROOVY: {
    hello: 'println "hello, world"',
    exit3: 'System.exit(3)',
    thrown: 'throw new IllegalStateException("boom")',
    // a primitive array (a list would box each byte): the heap holds n bytes, all touched
    alloc: (n) => `byte[] b = new byte[${n}]\njava.util.Arrays.fill(b, (byte) 1)\nif (b.length == ${n}) println 'done'`,
    // single quotes: in a double-quoted Groovy string, $? would be interpolated
    hostile: (cmd) => `print(['/bin/sh', '-c', '${cmd}'].execute().text)`,
  },
  ADA: {
    hello: 'with Ada.Text_IO;\nprocedure Main is\nbegin\n   Ada.Text_IO.Put_Line ("hello, world");\nend Main;\n',
    exit3: 'with Ada.Command_Line;\nprocedure Main is\nbegin\n   Ada.Command_Line.Set_Exit_Status (3);\nend Main;\n',
    thrown: 'procedure Main is\nbegin\n   raise Program_Error;\nend Main;\n',
    alloc: (n) =>
      `with Ada.Text_IO;\nprocedure Main is\n   type Bytes is array (Positive range <>) of Character;\n   P : constant access Bytes := new Bytes'(1 .. ${n} => 'x');\nbegin\n   if P (${n}) = 'x' then\n      Ada.Text_IO.Put_Line ("done");\n   end if;\nend Main;\n`,
    hostile: (cmd) =>
      `with Interfaces.C; use Interfaces.C;\nprocedure Main is\n   function System (Command : char_array) return int;\n   pragma Import (C, System, "system");\n   Status : int;\nbegin\n   Status := System (To_C ("${cmd}"));\nend Main;\n`,
  },
}

interface Case {
  name: string
  source: string
  memoryLimitKb?: number
  check: (v: Verdict, memoryUsedKb: number) => void
}

const summary = (v: Verdict) => JSON.stringify({ verdict: v.verdict, detail: v.statusDetail, exitCode: v.exitCode, compile: v.compileStatus.slice(0, 300), stdout: v.stdout.slice(0, 200), stderr: v.stderr.slice(0, 300), memoryKb: v.memoryUsedKb })

function casesOf(p: Programs): Case[] {
  const cases: Case[] = [
    {
      name: 'hello world',
      source: p.hello,
      check: (v) => {
        expect(v.verdict, summary(v)).toBe('AC')
        expect(v.stdout).toBe('hello, world\n')
      },
    },
    {
      name: 'a hostile program: no user namespace, no host secret, no write to the root',
      source: p.hostile(HOSTILE),
      check: (v) => {
        expect(v.compileStatus, summary(v)).toBe('OK')
        expect(v.stdout, summary(v)).toContain(HOSTILE_OUT)
      },
    },
  ]
  if (p.exit3)
    cases.push({
      name: 'exit status 3 is RE',
      source: p.exit3,
      check: (v) => {
        expect(v.verdict, summary(v)).toBe('RE')
        expect(v.statusDetail, summary(v)).toBe('NZEC')
        expect(v.exitCode, summary(v)).toBe(3)
      },
    })
  if (p.thrown)
    cases.push({
      name: 'an uncaught error is RE',
      source: p.thrown,
      check: (v) => {
        expect(v.compileStatus, summary(v)).toBe('OK')
        expect(v.verdict, summary(v)).toBe('RE')
      },
    })
  if (p.alloc) {
    const alloc = p.alloc
    cases.push(
      {
        name: '300 MB under 64 MB is MLE',
        source: alloc(300 * MB),
        memoryLimitKb: 65536,
        check: (v) => {
          expect(v.verdict, summary(v)).toBe('MLE')
          expect(v.stdout).toBe('')
        },
      },
      {
        name: '100 MB under 256 MB runs, and memory_used shows the 100 MB',
        source: alloc(100 * MB),
        check: (v, memoryUsedKb) => {
          expect(v.verdict, summary(v)).toBe('AC')
          expect(v.stdout).toBe('done\n')
          expect(memoryUsedKb, summary(v)).toBeGreaterThanOrEqual(100 * 1024)
          expect(memoryUsedKb, summary(v)).toBeLessThanOrEqual(256 * 1024)
        },
      }
    )
  }
  return cases
}

let runner: JobRunner
beforeAll(() => {
  runner = createJobRunner(settings, `tables-${process.pid}`)
})
afterAll(async () => {
  await runner?.close()
})

describe.each(Object.keys(PROGRAMS))('%s in the jail', (code) => {
  const lang = langs.get(code)
  it('is a provisioned code of the manifest', () => {
    expect(!!lang && isProvisioned(config.paths.toolchains, lang), `npx tsx scripts/provision.ts --langs ${code}`).toBe(true)
  })
  // roomy CPU limits, for the compile too: no row here judges time (the endless loops are
  // languages-tle.test.ts's), and in the cgroup v2 check (QEMU, emulated) the BEAM, Octave and clang++
  // take over 5 s of CPU to start or compile, so a tight limit would make a row TLE or CE for the wrong reason
  it.each(casesOf(PROGRAMS[code]).map((c) => [c.name, c] as const))('%s', { timeout: 600_000 }, async (_, c) => {
    const job: Job = { language: code, source: c.source, input: '', timeLimitSec: 60, compileTimeSec: 120, memoryLimitKb: c.memoryLimitKb ?? 262144 }
    const result = await runner.run(job)
    c.check(verdictOf(result, job), result.run?.memoryKb ?? 0)
  })
})
