// The execute request's checks with Piston's 400 texts (api/src/api/v2.js get_job) and ours.
import { describe, expect, it } from 'vitest'
import { thrownAppError } from '../testing/evaluation.ts'
import { parseExecuteRequest } from './schemas.ts'

const ok = { language: 'python', version: '*', files: [{ content: 'print(1)' }] }
const message = (body: unknown) => thrownAppError(() => parseExecuteRequest(body)).detail

describe('parseExecuteRequest', () => {
  it('accepts what clients send (aiopyston: name "" and every limit; piston-client: no name)', () => {
    const r = parseExecuteRequest({
      ...ok,
      files: [{ name: '', content: 'x' }],
      stdin: '',
      args: ['1', '2', '3'],
      compile_timeout: 10000,
      run_timeout: 3000,
      compile_memory_limit: -1,
      run_memory_limit: -1,
      unknown_field: true,
    })
    expect(r.files[0].name).toBeUndefined()
    expect(r).toMatchObject({ run_memory_limit: -1, compile_timeout: 10000 })
  })

  it.each([
    [{ ...ok, language: undefined }, 'language is required as a string'],
    [{ ...ok, language: 5 }, 'language is required as a string'],
    [{ ...ok, language: '' }, 'language is required as a string'],
    [{ ...ok, version: undefined }, 'version is required as a string'],
    [{ ...ok, version: 3.1 }, 'version is required as a string'],
    [{ ...ok, files: 'print(1)' }, 'files is required as an array'],
    [{ ...ok, files: undefined }, 'files is required as an array'],
    [{ ...ok, files: [{ content: 'x' }, { content: 1 }] }, 'files[1].content is required as a string'],
    [{ ...ok, files: [null] }, 'files[0].content is required as a string'],
    [{ ...ok, run_timeout: '3000' }, 'If specified, run_timeout must be a number'],
    [{ ...ok, compile_memory_limit: 'big' }, 'If specified, compile_memory_limit must be a number'],
    // the order Piston checks in: language before files before limits
    [{ files: 5, run_timeout: 'x' }, 'language is required as a string'],
    [{ ...ok, files: [{ content: 2, name: '../x' }] }, 'files[0].content is required as a string'],
  ])('%j → %s', (body, text) => expect(message(body)).toBe(text))

  it.each(['../etc/passwd', 'a/b', '..', '.hidden', 'a\\b', 'x\0y', 'n'.repeat(256), 'a..b', 'x$(id).py', 'ü.py'])('refuses the file name %j', (name) => {
    expect(message({ ...ok, files: [{ name, content: 'x' }] })).toMatch(/^files\[0\]\.name must be a plain file name/)
  })

  it.each(['main.py', 'my file.py', 'Main.java', 'a-b_c+d=e@f,g.txt', 'n'.repeat(255)])('accepts the file name %j', (name) => {
    expect(parseExecuteRequest({ ...ok, files: [{ name, content: 'x' }] }).files[0].name).toBe(name)
  })

  it('refuses an unknown encoding (Piston would read it as utf8)', () => {
    expect(message({ ...ok, files: [{ content: 'x', encoding: 'utf-8' }] })).toBe('files[0].encoding must be one of utf8, base64, hex')
  })

  it('refuses stdin and args of the wrong type', () => {
    expect(message({ ...ok, stdin: 5 })).toBe('If specified, stdin must be a string')
    expect(message({ ...ok, args: [1] })).toBe('If specified, args must be an array of strings')
  })

  it('refuses a body that is not an object', () => {
    expect(message([ok])).toBe('the body must be a JSON object')
  })
})
