/**
 * Regression (docs/spec-decisions.md row 56): an event stream whose client never reads was "cut off" with `end()`,
 * which queued behind the unread data: the socket stayed open holding it all, the slot was freed, and a new stream was
 * accepted (RSS from 83 MB to 2.26 GB). Now the server destroys the socket of a stream once `MAX_PENDING_BYTES` wait
 * for it, then frees the slot.
 */
import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_EVENT_STREAMS, MAX_PENDING_BYTES } from '../../src/server/admin/event-stream.js'
import { closeServers, eventually, sleep, startServer } from './support.js'

let url = ''
/** The server's side of each connection it accepted. */
const accepted: Socket[] = []
const clients: Socket[] = []

/** A raw client of `GET /__mock/events` in `session`, paused: it never reads what the server sends. */
async function stalledStream(session: string): Promise<{ client: Socket; serverSide: Socket }> {
  const { hostname, port } = new URL(url)
  const client = connect({ host: hostname, port: Number(port) })
  clients.push(client)
  client.on('error', () => undefined)
  client.pause()
  client.write(`GET /__mock/events HTTP/1.1\r\nHost: ${hostname}:${port}\r\nX-Mock-Session: ${session}\r\n\r\n`)
  await new Promise((resolve) => client.once('connect', resolve))
  const serverSide = await eventually(async () => accepted.find((side) => side.remotePort === client.localPort && side.bytesRead > 0))
  return { client, serverSide }
}

/**
 * Requests in `session` with a 12 KiB query each (every `request` event carries it), 16 at a time, each waiting
 * `pauseMs` after its answer, until `done()` or `max` requests: a stream's share of `request` events (1,000 a second
 * alone, 50 with 100 streams open) goes far past what loopback's buffers and `MAX_PENDING_BYTES` take.
 */
async function flood(session: string, done: () => boolean, max: number, pauseMs = 0): Promise<number> {
  const query = `q=${'x'.repeat(12 * 1024)}`
  let sent = 0
  const client = async () => {
    while (!done() && sent < max) {
      sent += 1
      const response = await fetch(`${url}/v1/pets?${query}`, { headers: { 'x-mock-session': session } })
      await response.arrayBuffer()
      if (pauseMs > 0) await sleep(pauseMs)
    }
  }
  await Promise.all(Array.from({ length: 16 }, client))
  return sent
}

const streamStatus = async (session: string): Promise<number> => {
  const controller = new AbortController()
  const response = await fetch(`${url}/__mock/events`, { headers: { 'x-mock-session': session }, signal: controller.signal })
  controller.abort()
  return response.status
}

beforeAll(async () => {
  const started = await startServer({})
  url = started.url
  started.server.server.on('connection', (socket: Socket) => accepted.push(socket))
})

afterAll(async () => {
  for (const client of clients) client.destroy()
  await closeServers()
})

describe('an event stream whose client stopped reading', () => {
  let stalled: { client: Socket; serverSide: Socket }

  it(`has its socket destroyed by the server once ${MAX_PENDING_BYTES / 1024 / 1024} MiB wait for it`, async () => {
    stalled = await stalledStream('flooded')
    const sent = await flood('flooded', () => stalled.serverSide.destroyed, 3_000)
    expect(sent).toBeLessThan(3_000)
    expect(stalled.serverSide.destroyed).toBe(true)
  })

  it('leaves its slot to a new stream: with the other slots taken, a new one is accepted after the cut', async () => {
    // All slots but one held by streams of a quiet session, and the last by a stalled stream of a flooded one.
    for (let i = 0; i < MAX_EVENT_STREAMS - 1; i++) await stalledStream('quiet')
    const last = await stalledStream('flooded-again')
    expect(await streamStatus('quiet')).toBe(503)
    // At most 800 requests a second: the stream's share is 50 events a second whatever the rate.
    await flood('flooded-again', () => last.serverSide.destroyed, 20_000, 20)
    expect(await eventually(async () => ((await streamStatus('quiet')) === 200 ? true : undefined))).toBe(true)
  })
})
