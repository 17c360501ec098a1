/**
 * Regression (docs/spec-decisions.md row 60): 20 journal reads at once held 4.8 GB. The reads under way now share one
 * budget (`adminReadMaxBytes`, 1 MiB each): past it a read is answered 503 `too_many_admin_reads` with `Retry-After`,
 * and a client that takes nothing of its read for `requestTimeoutMs` is cut off, which gives its share back. Here the
 * budget is one read, held by a client that never reads a page far larger than loopback's socket buffers.
 */
import { connect, type Socket } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { READ_SHARE_BYTES } from '../../src/server/admin/admin-reads.js'
import { auth, closeServers, eventually, startServer } from './support.js'

const SESSION = { 'x-mock-session': 'budget' }

let url = ''
/** The server's side of each connection it accepted. */
const accepted: Socket[] = []
const sockets = new Set<Socket>()

/**
 * A client that asks for a page of the journal and never reads a byte of the answer; resolves with both sides once the
 * server has read the request (the admin app is loaded in `beforeAll`, so it takes its share as it reads it).
 */
async function stalledRead(): Promise<{ client: Socket; serverSide: Socket }> {
  const { hostname, port } = new URL(url)
  const client = connect({ host: hostname, port: Number(port) })
  sockets.add(client)
  client.on('error', () => undefined)
  client.pause()
  client.write(`GET /__mock/requests?limit=1000 HTTP/1.1\r\nHost: ${hostname}:${port}\r\nX-Mock-Session: budget\r\n\r\n`)
  await new Promise((resolve) => client.once('connect', resolve))
  const serverSide = await eventually(async () => accepted.find((side) => side.remotePort === client.localPort && side.bytesRead > 0))
  return { client, serverSide }
}

const pageStatus = async (): Promise<number> => {
  const response = await fetch(`${url}/__mock/requests?limit=1`, { headers: SESSION })
  await response.arrayBuffer()
  return response.status
}

beforeAll(async () => {
  const started = await startServer({ adminReadMaxBytes: READ_SHARE_BYTES, requestTimeoutMs: 2_000 })
  url = started.url
  started.server.server.on('connection', (socket: Socket) => accepted.push(socket))
  // 500 entries of 64 KiB bodies of NUL bytes: a page of 1,000 is several MiB, far more than the sockets' buffers take.
  const body = new Uint8Array(64 * 1024)
  for (let i = 0; i < 500; i++) {
    const response = await fetch(`${url}/v1/pets`, {
      method: 'POST',
      headers: auth('test-enterprise', { 'content-type': 'application/json', ...SESSION }),
      body,
    })
    await response.arrayBuffer()
  }
  // The admin app is loaded on its first call: loaded now, a read takes its share as soon as the server reads it.
  expect(await pageStatus()).toBe(200)
})

afterEach(() => {
  for (const socket of sockets) socket.destroy()
  sockets.clear()
})

afterAll(closeServers)

describe('the admin read budget', () => {
  it('answers a read past the budget 503 too_many_admin_reads, with Retry-After and the Error body', async () => {
    await stalledRead()
    const refused = await fetch(`${url}/__mock/requests?limit=1`, { headers: SESSION })
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('1')
    const body = (await refused.json()) as { code: string; status: number; message: string }
    expect(body).toMatchObject({ code: 'too_many_admin_reads', status: 503 })
    expect(body.message).toMatch(/retry/)
  })

  it('admits reads again once the client holding the budget hangs up', async () => {
    const { client } = await stalledRead()
    expect(await pageStatus()).toBe(503)
    client.destroy()
    expect(await eventually(async () => ((await pageStatus()) === 200 ? true : undefined))).toBe(true)
  })

  it('cuts off a client that takes nothing of its read for requestTimeoutMs (the server destroys its socket), and gives its share back', async () => {
    const { serverSide } = await stalledRead()
    expect(await pageStatus()).toBe(503)
    expect(await eventually(async () => (serverSide.destroyed ? true : undefined))).toBe(true)
    expect(await eventually(async () => ((await pageStatus()) === 200 ? true : undefined))).toBe(true)
  })
})
