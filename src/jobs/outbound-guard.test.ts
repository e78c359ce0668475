import { expect, test } from 'vitest'
import { isRefusedAddress, outboundGuard } from './outbound-guard.ts'

test.each([
  ['127.0.0.1', true],
  ['10.1.2.3', true],
  ['172.20.0.1', true],
  ['192.168.1.1', true],
  ['169.254.169.254', true],
  ['100.64.0.1', true],
  ['198.18.0.1', true],
  ['198.19.255.255', true],
  ['224.0.0.1', true],
  ['255.255.255.255', true],
  ['::1', true],
  ['::', true],
  ['fd00::1', true],
  ['fe80::1', true],
  ['::ffff:127.0.0.1', true],
  ['::ffff:7f00:1', true],
  ['::ffff:8.8.8.8', true],
  ['::127.0.0.1', true],
  ['64:ff9b::7f00:1', true],
  ['64:ff9b:1::a00:1', true],
  ['2002:7f00:1::1', true],
  ['ff02::1', true],
  ['not-an-address', true],
  ['8.8.8.8', false],
  ['172.32.0.1', false],
  ['198.20.0.1', false],
  ['2001:4860:4860::8888', false],
])('isRefusedAddress(%s) = %s', (ip, want) => {
  expect(isRefusedAddress(ip)).toBe(want)
})

test('checkLiteral catches every spelling of a refused literal host; names are left to the lookup', () => {
  const guard = outboundGuard()
  for (const u of ['http://2130706433/', 'http://0177.0.0.1/', 'http://0x7f.1/', 'http://[::ffff:7f00:1]/', 'http://[::1]/', 'http://[2002:a00:1::]/'])
    expect(() => guard.checkLiteral(new URL(u)), u).toThrow(/not a public address/)
  expect(() => guard.checkLiteral(new URL('http://8.8.8.8/'))).not.toThrow()
  expect(() => guard.checkLiteral(new URL('http://example.test/'))).not.toThrow()
})

test('the lookup refuses a name when any of its answers is refused', async () => {
  const guard = outboundGuard({ resolve: async () => [{ address: '8.8.8.8', family: 4 }, { address: '10.0.0.1', family: 4 }] })
  const err = await new Promise((r) => guard.lookup('mixed.test', { all: true }, (e) => r(e)))
  expect(String(err)).toMatch(/resolves to 10\.0\.0\.1/)
  const ok = await new Promise((r) => outboundGuard({ resolve: async () => [{ address: '8.8.8.8', family: 4 }] }).lookup('a.test', {}, (e, a) => r([e, a])))
  expect(ok).toEqual([null, '8.8.8.8'])
})
