/**
 * `--proxy` never lets a path out of its base (docs/spec-decisions.md row 53a): the upstream URL is built from the
 * normalised path (RFC 3986 section 5.2.4), and a path whose normalised form leaves the base is answered as the mock
 * answers that path, never sent. Requests go out over a raw node:http client, since fetch would normalise the path
 * itself; the upstream on 127.0.0.1 records every path it receives.
 */
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { closeServers, startServer } from './support.js'

let upstream: Server
let mock = ''
/** Every path the upstream received. */
const received: string[] = []

beforeAll(async () => {
  upstream = createServer((req, res) => {
    received.push(req.url ?? '')
    req.resume()
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"from":"upstream"}')
  })
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  const target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/real/v1`
  mock = (await startServer({ proxy: target })).url
})
afterAll(async () => {
  await closeServers()
  upstream.closeAllConnections()
  await new Promise((resolve) => upstream.close(resolve))
})

/** GET `path` exactly as written (no client-side normalisation); status and body. */
function rawGet(path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(mock)
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, headers: { authorization: 'Bearer test-pro' } }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject).end()
  })
}

/** The path's answer through the proxy, and what the upstream received meanwhile. */
async function sent(path: string): Promise<{ status: number; body: string; received: string[] }> {
  received.length = 0
  const answer = await rawGet(path)
  return { ...answer, received: [...received] }
}

it.each(['/v1/../../x', '/v1/%2e%2e/%2e%2e/x', '/v1/pets/1/../../../x'])('never sends %s to the upstream', async (path) => {
  expect((await sent(path)).received).toEqual([])
})

it.each(['/v1/../../x', '/v1/%2e%2e/%2e%2e/x', '/v1/pets/1/../../../x'])('answers %s as the mock answers /x', async (path) => {
  const mocked = await rawGet('/x')
  expect(mocked.status).toBe(404)
  const { status, body } = await sent(path)
  expect({ status, body }).toEqual(mocked)
})

it('never sends a dot segment hidden behind encoded slashes', async () => {
  const { status, received } = await sent('/v1/..%2F..%2Fx')
  expect(received).toEqual([])
  expect(status).toBe(404)
})

it('never sends a path that leaves the base through backslashes', async () => {
  const { status, received } = await sent('/v1/..\\..\\x')
  expect(received).toEqual([])
  expect(status).toBe(404)
})

it('sends a path with dot segments that stays under the base in its normalised form', async () => {
  const { status, received } = await sent('/v1/owners/%2e/../store/orders?limit=2')
  expect(status).toBe(200)
  expect(received).toEqual(['/real/v1/store/orders?limit=2'])
})
