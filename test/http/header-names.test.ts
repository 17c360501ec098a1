/**
 * Over HTTP, as in-process (test/in-process/header-names.test.ts): a header named `__proto__` is in the journal
 * entry and the HAR like any other. node leaves it out of `req.headers` and keeps it in `rawHeaders`; the server reads
 * it from there, for GETs (no body) and POSTs alike.
 */
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeServers, startServer } from './support.js'

let url: string
beforeAll(async () => {
  url = (await startServer()).url
})
afterAll(closeServers)

interface Entry {
  seq: number
  method: string
  requestHeaders: Record<string, string>
}

/**
 * Sends one request over a raw socket: Fetch clients (undici) drop a header named `__proto__` before it leaves.
 * Returns the status line.
 */
function sendRaw(method: string, session: string, body = ''): Promise<string> {
  const { hostname, port } = new URL(url)
  const lines = [
    `${method} /v1/pets?limit=1 HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    'Authorization: Bearer test-pro',
    `X-Mock-Session: ${session}`,
    '__proto__: first',
    '__PROTO__: second',
    'constructor: c',
    'Connection: close',
    ...(body ? ['Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`] : []),
  ]
  return new Promise((resolve, reject) => {
    let answer = ''
    const socket = connect(Number(port), hostname, () => socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`))
    socket.setEncoding('utf8')
    socket.setTimeout(5_000, () => socket.destroy(new Error('no answer in 5 s')))
    socket.on('data', (chunk: string) => {
      answer += chunk
    })
    socket.on('end', () => resolve(answer.split('\r\n')[0] ?? ''))
    socket.on('error', reject)
  })
}

async function sentThenRead(method: string, session: string, body = ''): Promise<Entry> {
  expect(await sendRaw(method, session, body)).toMatch(/^HTTP\/1\.1 20[01] /)
  const list = (await (await fetch(`${url}/__mock/requests?limit=1`, { headers: { 'x-mock-session': session } })).json()) as Entry[]
  const seq = list.at(-1)?.seq
  expect(seq).toEqual(expect.any(Number))
  return (await (await fetch(`${url}/__mock/requests/${seq}`, { headers: { 'x-mock-session': session } })).json()) as Entry
}

describe('a header named __proto__ over HTTP', () => {
  it('is in the journal entry of a GET, both lines joined as node joins repeated headers', async () => {
    const entry = await sentThenRead('GET', 'proto-get')
    expect(entry.method).toBe('GET')
    expect(Object.hasOwn(entry.requestHeaders, '__proto__')).toBe(true)
    expect(Object.getOwnPropertyDescriptor(entry.requestHeaders, '__proto__')?.value).toBe('first, second')
    expect(Object.getOwnPropertyDescriptor(entry.requestHeaders, 'constructor')?.value).toBe('c')
    expect(entry.requestHeaders.authorization).not.toContain('test-pro')
  })

  it('is in the journal entry of a POST (a body)', async () => {
    const entry = await sentThenRead('POST', 'proto-post', '{"name":"Rex","categoryId":1}')
    expect(entry.method).toBe('POST')
    expect(Object.getOwnPropertyDescriptor(entry.requestHeaders, '__proto__')?.value).toBe('first, second')
  })

  it('is in the HAR', async () => {
    await sentThenRead('POST', 'proto-har', '{"name":"Rex","categoryId":1}')
    const har = (await (await fetch(`${url}/__mock/requests.har`, { headers: { 'x-mock-session': 'proto-har' } })).json()) as {
      log: { entries: { request: { headers: { name: string; value: string }[] } }[] }
    }
    const sent = har.log.entries.at(-1)?.request.headers ?? []
    expect(sent.filter((header) => header.name === '__proto__')).toEqual([{ name: '__proto__', value: 'first, second' }])
  })
})
