// compiler_options and command_line_arguments → argv items, and the compile/run argv they extend.
// Judge0 writes them into a bash script (and strips $&;<>|` first, which is how its 2024 CVEs got
// in); here they are only ever words: split like a shell splits words (blanks separate, quotes and
// backslashes group), with no expansion, substitution, redirection or globbing of any kind.

/** Splits a string into words the way a POSIX shell would, without expanding anything. */
export function splitWords(text: string): { ok: true; words: string[] } | { ok: false; error: string } {
  const words: string[] = []
  let word = ''
  let inWord = false
  let i = 0
  while (i < text.length) {
    const ch = text[i]!
    if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') {
      if (inWord) words.push(word)
      word = ''
      inWord = false
      i++
    } else if (ch === "'") {
      const end = text.indexOf("'", i + 1)
      if (end < 0) return { ok: false, error: 'has an unterminated single quote' }
      word += text.slice(i + 1, end)
      inWord = true
      i = end + 1
    } else if (ch === '"') {
      i++
      for (;;) {
        if (i >= text.length) return { ok: false, error: 'has an unterminated double quote' }
        const c = text[i]!
        if (c === '"') break
        // inside double quotes a backslash only escapes these (POSIX)
        if (c === '\\' && i + 1 < text.length && '"\\$`\n'.includes(text[i + 1]!)) {
          if (text[i + 1] !== '\n') word += text[i + 1]
          i += 2
        } else {
          word += c
          i++
        }
      }
      inWord = true
      i++
    } else if (ch === '\\') {
      if (i + 1 < text.length && text[i + 1] !== '\n') word += text[i + 1]
      inWord = inWord || i + 1 < text.length
      i += 2
    } else {
      word += ch
      inWord = true
      i++
    }
  }
  if (inWord) words.push(word)
  return { ok: true, words }
}

/**
 * The compile argv with the options in the place of Judge0's `%s` (its compile commands read
 * `gcc %s main.c`): just before the source file's argument, or at the end when it names none.
 */
export function compileArgvWith(compile: readonly string[], sourceFile: string, options: readonly string[]): string[] {
  const at = compile.lastIndexOf(sourceFile)
  if (at < 0) return [...compile, ...options]
  return [...compile.slice(0, at), ...options, ...compile.slice(at)]
}

/** The JVM wrapper appends the main class to its argv; the program's own arguments follow `--`. */
export const JVM_RUN = '/usr/local/lib/arbiter/jvm-run'

/** The run argv with the program's arguments after it (Judge0: `run_cmd args`). */
export function runArgvWith(run: readonly string[], args: readonly string[]): string[] {
  if (!args.length) return [...run]
  if (run[0] === JVM_RUN) return [...run, '--', ...args]
  return [...run, ...args]
}
