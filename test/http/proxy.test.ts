/**
 * `--proxy URL` / `createPetStore({ proxy })` (docs/spec-decisions.md row 53): what the mock does not define goes to a
 * real deployment and comes back as it is; what it defines stays mocked; an upstream that is down or slow gets 502 or
 * 504 with an Error body. The upstream here is a small node:http server on 127.0.0.1 that echoes what it received.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPetStore } from '../../src/index.js'
import { auth, closeServers, ensureBuilt, runCli, startServer } from './support.js'

let upstream: Server
let upstreamUrl = ''
const received: { method: string; url: string; authorization: string | undefined; body: string }[] = []

beforeAll(async () => {
  upstream = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8').on('data', (chunk: string) => {
      body += chunk
    })
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, body })
      if (req.url?.startsWith('/real/v1/slow')) return // never answers
      res.writeHead(req.url?.startsWith('/real/v1/store/orders') ? 200 : 418, { 'content-type': 'application/json', 'x-upstream': 'yes' })
      res.end(JSON.stringify([{ id: 1, from: 'upstream', method: req.method, body }]))
    })
  })
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/real/v1`
})
afterAll(async () => {
  await closeServers()
  upstream.closeAllConnections()
  await new Promise((resolve) => upstream.close(resolve))
})

const headers = { authorization: 'Bearer real-staging-key' }

describe('in-process (petStore.fetch)', () => {
  /** Lists the orders (a group the mock does not define) through a proxying petStore, with `received` emptied first. */
  async function ordersThroughProxy() {
    const petStore = createPetStore({ proxy: upstreamUrl })
    received.length = 0
    const response = await petStore.fetch('https://api.petstore.test/v1/store/orders?limit=3', { headers })
    return { petStore, response }
  }

  it('forwards the store group as it was asked: method, Authorization, query', async () => {
    await ordersThroughProxy()
    expect(received).toEqual([{ method: 'GET', url: '/real/v1/store/orders?limit=3', authorization: 'Bearer real-staging-key', body: '' }])
  })

  it("relays the upstream's answer as it is", async () => {
    const { response } = await ordersThroughProxy()
    expect(response.status).toBe(200)
    expect(response.headers.get('x-upstream')).toBe('yes')
    expect(await response.json()).toEqual([{ id: 1, from: 'upstream', method: 'GET', body: '' }])
  })

  it('journals a proxied answer', async () => {
    const { petStore } = await ordersThroughProxy()
    expect(petStore.journal.find({ path: '/v1/store/orders' })).toMatchObject([{ status: 200 }])
  })

  /** A DELETE and a PATCH the spec leaves out, then a defined GET, through a proxying petStore. */
  async function leftOutThenDefined() {
    const petStore = createPetStore({ proxy: upstreamUrl })
    received.length = 0
    const deleted = await petStore.fetch('https://api.petstore.test/v1/pets/1', { method: 'DELETE', headers })
    const patched = await petStore.fetch('https://api.petstore.test/v1/owners', { method: 'PATCH', headers, body: '{"a":1}' })
    const mocked = await petStore.fetch('https://api.petstore.test/v1/pets/1', { headers: { authorization: 'Bearer test-pro' } })
    return { deleted, patched, mocked }
  }

  it('forwards a method or path the spec leaves out, with its body', async () => {
    const { deleted, patched } = await leftOutThenDefined()
    expect(deleted.status).toBe(418)
    expect(await patched.json()).toEqual([{ id: 1, from: 'upstream', method: 'PATCH', body: '{"a":1}' }])
    expect(received.map((request) => `${request.method} ${request.url}`)).toEqual(['DELETE /real/v1/pets/1', 'PATCH /real/v1/owners'])
  })

  it('keeps the defined operations mocked', async () => {
    const { mocked } = await leftOutThenDefined()
    expect(mocked.headers.get('x-ratelimit-limit')).toBe('300')
    // The defined GET never reached the upstream.
    expect(received.map((request) => `${request.method} ${request.url}`)).toEqual(['DELETE /real/v1/pets/1', 'PATCH /real/v1/owners'])
  })

  it('answers 502 bad_gateway when the upstream is down', async () => {
    const down = createPetStore({ proxy: 'http://127.0.0.1:9/v1' })
    const refused = await down.fetch('https://api.petstore.test/v1/store/orders', { headers })
    expect(refused.status).toBe(502)
    expect(await refused.json()).toEqual({ code: 'bad_gateway', message: expect.stringContaining('127.0.0.1:9'), status: 502 })
  })

  it('answers 504 gateway_timeout when the upstream is too slow', async () => {
    const slow = createPetStore({ proxy: upstreamUrl, proxyTimeoutMs: 200 })
    const late = await slow.fetch('https://api.petstore.test/v1/slow', { headers })
    expect(late.status).toBe(504)
    expect(await late.json()).toMatchObject({ code: 'gateway_timeout', status: 504 })
  })

  it("reaches the upstream through msw's setupServer without msw answering the proxied request itself", async () => {
    const petStore = createPetStore({ proxy: upstreamUrl })
    const server = setupServer(...petStore.handlers)
    server.listen({ onUnhandledRequest: 'bypass' })
    try {
      const response = await fetch('https://api.petstore.test/v1/store/orders', { headers })
      expect(response.status).toBe(200)
      expect(await response.json()).toMatchObject([{ from: 'upstream' }])
    } finally {
      server.close()
    }
  })
})

describe('the standalone server', () => {
  it('forwards what it does not define, over HTTP', async () => {
    const { url } = await startServer({ proxy: upstreamUrl })
    const orders = await fetch(`${url}/v1/store/orders`, { headers })
    expect(orders.status).toBe(200)
    expect(await orders.json()).toMatchObject([{ from: 'upstream' }])
    expect((await fetch(`${url}/v1/pets?limit=1`, { headers: auth('test-free') })).headers.get('x-ratelimit-limit')).toBe('60')
  })

  it('refuses a --proxy that is not an http(s) address with exit code 2, naming the flag', async () => {
    await ensureBuilt()
    const result = await runCli(['--proxy', 'ftp://example/v1'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--proxy must be an http(s) base address')
  }, 90_000)
})
