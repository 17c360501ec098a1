/**
 * Regression (docs/spec-decisions.md row 56): the event stream's replay after `Last-Event-ID` (or `?after=`) was built
 * whole, up to 1,000 entries of any size, and said nothing of what it left out. Now it is written entry by entry, stops
 * at 1,000 entries or 1 MiB, and tells the rest as a `gap` event ({ after, before }) for the client to read from
 * `GET /__mock/requests?after=`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeServers, startServer } from './support.js'

let url = ''
/** How many requests each session had before its stream opened. */
const sent: Record<string, number> = { large: 200, many: 1_100 }

interface Frame {
  event: string
  id: string | undefined
  data: string
}

/** Sends `count` requests in `session`, each with a query of `queryBytes` (every `request` event carries it). */
async function send(session: string, count: number, queryBytes: number): Promise<void> {
  const query = `q=${'x'.repeat(queryBytes)}`
  let sent = 0
  const client = async () => {
    while (sent < count) {
      sent += 1
      await (await fetch(`${url}/v1/pets?${query}`, { headers: { 'x-mock-session': session } })).arrayBuffer()
    }
  }
  await Promise.all(Array.from({ length: 8 }, client))
}

/**
 * Reads `GET /__mock/events` after `lastEventId`, then sends one more request in the session: its live event, which
 * the stream holds back until the replay is written, ends the reading. Returns the replay's frames (the gap included)
 * and the bytes of its request frames.
 */
async function replayOf(session: string, lastEventId: string): Promise<{ frames: Frame[]; requestBytes: number }> {
  const controller = new AbortController()
  const response = await fetch(`${url}/__mock/events`, {
    headers: { 'x-mock-session': session, 'last-event-id': lastEventId },
    signal: controller.signal,
  })
  await send(session, 1, 10)
  const reader = (response.body as ReadableStream<Uint8Array>).getReader()
  const decoder = new TextDecoder()
  const frames: Frame[] = []
  let requestBytes = 0
  let buffer = ''
  for (let live = false; !live; ) {
    const { done, value } = await reader.read()
    if (done) break
    buffer += decoder.decode(value, { stream: true })
    for (let end = buffer.indexOf('\n\n'); end !== -1 && !live; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end + 2)
      buffer = buffer.slice(end + 2)
      const field = (name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(block)?.[1]
      const event = field('event')
      if (event === undefined) continue
      const data = field('data') ?? ''
      // The request sent after the stream opened is numbered past every one the replay may hold.
      live = event === 'request' && (JSON.parse(data) as { seq: number }).seq > (sent[session] ?? 0)
      if (live) break
      frames.push({ event, id: field('id'), data })
      if (event === 'request') requestBytes += Buffer.byteLength(block)
    }
  }
  controller.abort()
  return { frames, requestBytes }
}

beforeAll(async () => {
  ;({ url } = await startServer({ journalLimit: 2_000 }))
  await send('large', 200, 12 * 1024)
  await send('many', 1_100, 10)
})

afterAll(closeServers)

describe('the replay after Last-Event-ID', () => {
  it('writes at most 1 MiB of entries, then a gap naming the ones it left out', async () => {
    const { frames, requestBytes } = await replayOf('large', '0')
    const replayed = frames.filter((frame) => frame.event === 'request').map((frame) => Number(frame.id))
    expect(requestBytes).toBeLessThanOrEqual(1024 * 1024)
    expect(replayed).toEqual(Array.from({ length: replayed.length }, (_, i) => i + 1))
    const gap = frames.find((frame) => frame.event === 'gap')
    expect(JSON.parse(gap?.data ?? '{}')).toEqual({ after: replayed.at(-1), before: 201 })
  })

  it('writes at most 1,000 entries, then a gap naming the ones it left out', async () => {
    const { frames } = await replayOf('many', '50')
    const replayed = frames.filter((frame) => frame.event === 'request').map((frame) => Number(frame.id))
    expect(replayed).toEqual(Array.from({ length: 1_000 }, (_, i) => i + 51))
    const gap = frames.find((frame) => frame.event === 'gap')
    expect(JSON.parse(gap?.data ?? '{}')).toEqual({ after: 1_050, before: 1_101 })
  })
})
