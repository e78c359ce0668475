// Jobe joins its argument lists into a shell command, so a client's item such as `-c "print(1)"` or
// Jobe's own `-x c` is several words. This splits an item into words the way sh splits them (quotes and
// backslashes), and does nothing else a shell would: no variables, globs, redirections or `;` — those
// characters stay in the words, which reach the program as argv items.

/** The words of one item; undefined when a quote is left open. */
export function splitWords(item: string): string[] | undefined {
  const words: string[] = []
  let word = ''
  let inWord = false
  for (let i = 0; i < item.length; i++) {
    const ch = item[i]!
    if (ch === "'") {
      const end = item.indexOf("'", i + 1)
      if (end < 0) return undefined
      word += item.slice(i + 1, end)
      inWord = true
      i = end
    } else if (ch === '"') {
      let j = i + 1
      for (; j < item.length && item[j] !== '"'; j++) {
        // inside double quotes a backslash escapes only these (POSIX)
        if (item[j] === '\\' && j + 1 < item.length && '"\\$`\n'.includes(item[j + 1]!)) j++
        word += item[j]
      }
      if (j >= item.length) return undefined
      inWord = true
      i = j
    } else if (ch === '\\') {
      if (i + 1 < item.length) word += item[++i]
      inWord = true
    } else if (ch === ' ' || ch === '\t' || ch === '\n') {
      if (inWord) words.push(word)
      word = ''
      inWord = false
    } else {
      word += ch
      inWord = true
    }
  }
  if (inWord) words.push(word)
  return words
}
