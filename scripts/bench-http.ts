// The benchmarks' HTTP client: fetch (undici), or node:http with a keep-alive agent (--client http),
// the leaner of the two: on this 2-core VM fetch spends ~1 ms more of a loopback round trip than
// node:http (0.57 vs 1.57 ms p50 against a bare node server), time that is the client's, not the
// server's. The subset of fetch the benchmarks use: method, headers, a string or URLSearchParams body;
// status, json(), text().
import { Agent, request } from 'node:http'

export type BenchClient = 'fetch' | 'http'
export interface BenchInit {
  method?: string
  headers?: Record<string, string>
  body?: string | URLSearchParams
}
export interface BenchResponse {
  status: number
  json(): Promise<unknown>
  text(): Promise<string>
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 })

function viaHttp(url: string, init: BenchInit = {}): Promise<BenchResponse> {
  const form = init.body instanceof URLSearchParams
  const body = init.body === undefined ? undefined : String(init.body)
  const headers: Record<string, string> = {
    ...(form && { 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' }),
    ...init.headers,
    ...(body !== undefined && { 'content-length': String(Buffer.byteLength(body)) }),
  }
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers, agent }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('error', reject)
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        resolve({ status: res.statusCode ?? 0, text: async () => text, json: async () => JSON.parse(text) })
      })
    })
    req.on('error', reject)
    req.end(body)
  })
}

let client: BenchClient = 'fetch'
/** Which client benchFetch uses from now on. */
export function useBenchClient(which: BenchClient): void {
  if (which !== 'fetch' && which !== 'http') throw new Error(`--client: fetch or http, not ${which}`)
  client = which
}
export const benchClient = (): BenchClient => client

export function benchFetch(url: string, init?: BenchInit): Promise<BenchResponse> {
  return client === 'http' ? viaHttp(url, init) : (fetch(url, init) as Promise<BenchResponse>)
}

/** Closes the keep-alive sockets (a process that ends with them open waits for their timeout). */
export const closeBenchClient = (): void => agent.destroy()
