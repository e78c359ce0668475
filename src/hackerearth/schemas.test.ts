import { describe, expect, test } from 'vitest'
import { parseRequest, V3Request, V4Request } from './schemas.ts'
import { thrownAppError } from '../testing/evaluation.ts'

const fails = thrownAppError

describe('V3Request', () => {
  test('numbers as strings, async as "1", unknown fields dropped', () => {
    expect(parseRequest(V3Request, { client_secret: 's', source: 'x', lang: 'C', time_limit: '2.5', memory_limit: ' 1024 ', async: '1', junk: 'y' })).toEqual({
      client_secret: 's',
      source: 'x',
      lang: 'C',
      time_limit: 2.5,
      memory_limit: 1024,
      async: 1,
    })
  })

  test('empty strings and null mean "default"', () => {
    const r = parseRequest(V3Request, { source: 'x', lang: 'C', input: '', time_limit: '', memory_limit: null, async: '', callback: '', id: null })
    expect(r).toEqual({ source: 'x', lang: 'C', async: 0, id: null })
  })

  test.each([[0], ['0'], [false], ['false'], [undefined]])('async %s is off', (v) => {
    expect(parseRequest(V3Request, { source: 'x', lang: 'C', async: v }).async).toBe(0)
  })

  test.each([[1], ['1'], [true], ['true']])('async %s is on', (v) => {
    expect(parseRequest(V3Request, { source: 'x', lang: 'C', async: v }).async).toBe(1)
  })

  test('id of any type is kept as sent', () => {
    expect(parseRequest(V3Request, { source: 'x', lang: 'C', id: 7 }).id).toBe(7)
    expect(parseRequest(V3Request, { source: 'x', lang: 'C', id: 'abc' }).id).toBe('abc')
  })

  test('missing source comes before missing lang; "" counts as missing', () => {
    expect(fails(() => parseRequest(V3Request, {})).message).toBe('ArgumentMissing: source is needed!')
    expect(fails(() => parseRequest(V3Request, { source: '', lang: 'C' })).message).toBe('ArgumentMissing: source is needed!')
    expect(fails(() => parseRequest(V3Request, { source: 'x' })).message).toBe('ArgumentMissing: lang is needed!')
  })

  test('a value that is not a number names the field', () => {
    const e = fails(() => parseRequest(V3Request, { source: 'x', lang: 'C', time_limit: 'fast' }))
    expect(e.code).toBe('InvalidArgument')
    expect(e.message).toMatch(/^InvalidArgument: time_limit/)
    expect(e.data).toEqual({ time_limit: 'fast' })
  })
})

describe('V4Request', () => {
  test('context as a string or an object, kept as sent', () => {
    expect(parseRequest(V4Request, { source: 'x', lang: 'C', context: '{"id": 1}' }).context).toBe('{"id": 1}')
    expect(parseRequest(V4Request, { source: 'x', lang: 'C', context: { id: 1 } }).context).toEqual({ id: 1 })
  })

  test('huge limits pass through (they are clamped later, not refused)', () => {
    expect(parseRequest(V4Request, { source: 'x', lang: 'C', time_limit: 99999, memory_limit: '2463232' })).toMatchObject({ time_limit: 99999, memory_limit: 2463232 })
  })

  test('a numeric source is text', () => {
    expect(parseRequest(V4Request, { source: 42, lang: 'C' }).source).toBe('42')
  })
})
