/**
 * `--proxy` under a failing upstream (docs/spec-decisions.md row 53b): every failure is an Error body, 502
 * or 504, never a 500, during the body as before it; an upstream body is read under a size cap. The upstream is a
 * node:http server on 127.0.0.1 whose paths each misbehave one way; a stall is an answer that never finishes, and the
 * proxy's timeout is set small for it alone.
 */
import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { closeServers, eventually, startServer } from './support.js'

const CAP = 256 * 1024
let upstream: Server
let base = ''
/** The upstream's answers whose connection closed before they finished. */
const cutOff: string[] = []

/** Writes 16 KiB chunks as fast as the reader takes them, for ever. */
function endless(res: ServerResponse): void {
  const chunk = Buffer.alloc(16 * 1024, 'x')
  const more = () => {
    while (!res.destroyed && res.write(chunk)) {}
  }
  res.on('drain', more)
  more()
}

beforeAll(async () => {
  upstream = createServer((req, res) => {
    const path = req.url ?? ''
    res.on('close', () => {
      if (!res.writableFinished) cutOff.push(path)
    })
    req.resume()
    if (path.endsWith('/stall-body')) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' })
      res.write('[{"id":1')
    } else if (path.endsWith('/reset-body')) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' })
      res.write('[{"id":1', () => req.socket.destroy())
    } else if (path.endsWith('/endless')) {
      res.writeHead(200, { 'content-type': 'text/plain' })
      endless(res)
    } else if (path.endsWith('/declared-too-large')) {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(CAP + 1) })
      res.write('x')
    } else if (path.endsWith('/at-cap')) {
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.end(Buffer.alloc(CAP, 'y'))
    } else res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/real/v1`
})
afterEach(closeServers)
afterAll(async () => {
  upstream.closeAllConnections()
  await new Promise((resolve) => upstream.close(resolve))
})

const headers = { authorization: 'Bearer real-staging-key' }

/** A proxying server with a generous timeout (only the stall test sets a small one) and the small cap. */
async function throughProxy(path: string, proxyTimeoutMs = 30_000): Promise<{ status: number; body: unknown }> {
  const { url } = await startServer({ proxy: base, proxyTimeoutMs, proxyMaxBodyBytes: CAP })
  const response = await fetch(`${url}/v1${path}`, { headers })
  return { status: response.status, body: await response.json() }
}

it('answers 504 gateway_timeout when the upstream stalls in the middle of its body', async () => {
  const { status, body } = await throughProxy('/store/stall-body', 300)
  expect(status).toBe(504)
  expect(body).toEqual({ code: 'gateway_timeout', message: expect.stringContaining('did not finish its answer'), status: 504 })
})

it('answers 502 bad_gateway when the upstream resets its connection in the middle of its body', async () => {
  const { status, body } = await throughProxy('/store/reset-body')
  expect(status).toBe(502)
  expect(body).toEqual({ code: 'bad_gateway', message: expect.stringContaining('broke off its answer'), status: 502 })
})

it('answers 502 bad_gateway naming the cap when the upstream streams a body past it', async () => {
  const { status, body } = await throughProxy('/store/endless')
  expect(status).toBe(502)
  expect(body).toEqual({ code: 'bad_gateway', message: expect.stringContaining('larger than 256 KiB'), status: 502 })
})

it('closes the connection of an upstream whose body went past the cap', async () => {
  cutOff.length = 0
  // A timeout far beyond the test's ceiling: only the cap can end this exchange.
  await throughProxy('/store/endless', 600_000)
  await eventually(async () => (cutOff.includes('/real/v1/store/endless') ? true : undefined))
})

it('answers 502 bad_gateway at once when the upstream declares a Content-Length past the cap', async () => {
  const { status, body } = await throughProxy('/store/declared-too-large')
  expect(status).toBe(502)
  expect(body).toEqual({ code: 'bad_gateway', message: expect.stringContaining('proxyMaxBodyBytes'), status: 502 })
})

it('relays a body of exactly the cap whole', async () => {
  const { url } = await startServer({ proxy: base, proxyMaxBodyBytes: CAP })
  const response = await fetch(`${url}/v1/store/at-cap`, { headers })
  expect(response.status).toBe(200)
  expect((await response.text()).length).toBe(CAP)
})
