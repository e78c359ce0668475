import { describe, expect, test } from 'vitest'
import { splitWords } from './words.ts'

describe('splitWords', () => {
  test.each([
    ['-x c', ['-x', 'c']],
    ['-Wall', ['-Wall']],
    ['-c "print(\\"Blah\\")"', ['-c', 'print("Blah")']],
    ["'a b' c\\ d", ['a b', 'c d']],
    ['  spaced   out  ', ['spaced', 'out']],
    ['', []],
    ['""', ['']],
    // nothing a shell would do: the characters stay in the words
    ['a;rm -rf /', ['a;rm', '-rf', '/']],
    ['$HOME *.c >out', ['$HOME', '*.c', '>out']],
    ['"$(id)"', ['$(id)']],
  ])('%s', (item, words) => expect(splitWords(item)).toEqual(words))

  test('an open quote is refused', () => {
    expect(splitWords('"open')).toBeUndefined()
    expect(splitWords("'open")).toBeUndefined()
  })
})
