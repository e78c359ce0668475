// Which address a per-address limit counts: the peer, or behind trusted proxies the nearest address of
// X-Forwarded-For that no trusted hop wrote — never what a client wrote to the left of it.
import { describe, expect, it } from 'vitest'
import { clientAddress } from './client-address.ts'

const proxies = new Set(['127.0.0.1', '10.0.0.5'])

describe('clientAddress', () => {
  it('a direct client is its peer address, whatever X-Forwarded-For it sends', () => {
    expect(clientAddress('203.0.113.7', '198.51.100.1', proxies)).toBe('203.0.113.7')
    expect(clientAddress('203.0.113.7', undefined, proxies)).toBe('203.0.113.7')
  })

  it('through a trusted proxy: the address the proxy appended', () => {
    expect(clientAddress('127.0.0.1', '203.0.113.7', proxies)).toBe('203.0.113.7')
    expect(clientAddress('127.0.0.1', '203.0.113.8', proxies)).toBe('203.0.113.8')
  })

  it('a client forging entries to the left is counted by the address the proxy saw', () => {
    expect(clientAddress('127.0.0.1', '1.2.3.4, 5.6.7.8, 203.0.113.7', proxies)).toBe('203.0.113.7')
  })

  it('through two trusted proxies: the first untrusted address from the right', () => {
    expect(clientAddress('127.0.0.1', '203.0.113.7, 10.0.0.5', proxies)).toBe('203.0.113.7')
  })

  it('junk in the header stops at the last address a trusted hop vouched for', () => {
    expect(clientAddress('127.0.0.1', 'evil, 10.0.0.5', proxies)).toBe('10.0.0.5')
    expect(clientAddress('127.0.0.1', 'not-an-address', proxies)).toBe('127.0.0.1')
  })

  it('no trusted proxies: X-Forwarded-For is never read', () => {
    expect(clientAddress('127.0.0.1', '203.0.113.7', new Set())).toBe('127.0.0.1')
  })

  it('no socket: unknown', () => {
    expect(clientAddress(undefined, '203.0.113.7', proxies)).toBe('unknown')
  })
})
