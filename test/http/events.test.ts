/**
 * `GET /__mock/events` of the standalone server over loopback (started in this process): the server-sent events the control
 * panel follows, read here with fetch and a small SSE parser, as any client reads them.
 */
import { readFile } from 'node:fs/promises'
import { request as httpRequest } from 'node:http'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { auth, closeServers, ensureBuilt, eventually, ROOT, sleep, startServer } from './support.js'

beforeAll(ensureBuilt)

const FROZEN = '2026-06-01T12:00:30Z'

interface SseEvent {
  readonly event: string
  readonly data: string
  readonly id: string | undefined
}

/** An open event stream: its response, the events parsed so far, and a way to wait for one. */
interface Stream {
  readonly response: Response
  readonly events: SseEvent[]
  /** The `retry:` values sent, and how many comment lines (pings) came. */
  readonly retries: number[]
  /** Resolves when the server ended the stream. */
  readonly ended: Promise<void>
  /** The first event (already received or coming) that matches, or throws after `eventually`'s ceiling. */
  next(predicate: (event: SseEvent) => boolean): Promise<SseEvent>
  /** The events of one type, their data parsed. */
  of<T = unknown>(type: string): T[]
  close(): void
}

const open = new Set<Stream>()

/** Parses the blocks of an SSE body (https://html.spec.whatwg.org/multipage/server-sent-events.html). */
function parseBlock(block: string, stream: { events: SseEvent[]; retries: number[] }): void {
  let event = 'message'
  let id: string | undefined
  const data: string[] = []
  for (const line of block.split(/\r\n|\r|\n/)) {
    if (line === '' || line.startsWith(':')) continue
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'event') event = value
    else if (field === 'data') data.push(value)
    else if (field === 'id') id = value
    else if (field === 'retry' && /^\d+$/.test(value)) stream.retries.push(Number(value))
  }
  if (data.length > 0) stream.events.push({ event, data: data.join('\n'), id })
}

/** Opens `GET path` as an event stream; it is closed after each test. */
async function openStream(url: string, path = '/__mock/events', headers: Record<string, string> = {}): Promise<Stream> {
  const controller = new AbortController()
  const response = await fetch(`${url}${path}`, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal })
  const events: SseEvent[] = []
  const retries: number[] = []
  const ended = (async () => {
    if (!response.ok || !response.body) return
    const reader = response.body.getReader()
    const decoder = new TextDecoder()
    let buffer = ''
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        buffer += decoder.decode(value, { stream: true })
        for (let end = buffer.search(/\r?\n\r?\n/); end !== -1; end = buffer.search(/\r?\n\r?\n/)) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '')
          parseBlock(block, { events, retries })
        }
      }
    } catch {
      // Aborted by close().
    }
  })()
  const stream: Stream = {
    response,
    events,
    retries,
    ended,
    next: (predicate) =>
      eventually(async () => events.find(predicate)).catch((error: unknown) => {
        throw new Error(`No matching event (${String(error)}). Received: ${events.map((e) => `${e.event} ${e.data}`).join(' | ')}`)
      }),
    of: <T>(type: string) => events.filter((event) => event.event === type).map((event) => JSON.parse(event.data) as T),
    close() {
      open.delete(stream)
      controller.abort()
    },
  }
  open.add(stream)
  return stream
}

afterEach(() => {
  for (const stream of [...open]) stream.close()
})

const withSession = (name: string, headers: Record<string, string> = {}) => ({ 'x-mock-session': name, ...headers })

async function freeze(url: string, session: string, iso = FROZEN): Promise<void> {
  const response = await fetch(`${url}/__mock/clock`, { method: 'POST', headers: withSession(session), body: JSON.stringify({ set: iso }) })
  expect(response.status).toBe(200)
}

const api = (url: string, path: string, session: string, key = 'test-pro') =>
  fetch(`${url}${path}`, { headers: auth(key, withSession(session)) }).then(async (response) => {
    await response.arrayBuffer()
    return response
  })

interface RequestData {
  seq: number
  method: string
  path: string
  query: string
  status: number
  key: string | undefined
  plan: string | undefined
}

interface KeyData {
  key: string
  plan: string
  perMinute: number
  perDay: number
  minuteRemaining: number
  dayRemaining: number
  bannedUntil: string | null
}

/** A request over node:http, which (unlike fetch) sends the Host header it is given. */
function rawGet(url: string, path: string, headers: Record<string, string>): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { headers }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }))
    })
    req.setTimeout(20_000, () => req.destroy(new Error('no answer within 20 s')))
    req.on('error', reject)
    req.end()
  })
}

async function expectError(response: Response, status: number, code: string): Promise<{ code: string; message: string; status: number }> {
  const text = await response.text()
  expect(response.status, text).toBe(status)
  expect(response.headers.get('content-type')).toMatch(/^application\/json/)
  const body = JSON.parse(text) as { code: string; message: string; status: number }
  expect(body).toEqual({ code, message: expect.any(String), status })
  return body
}

describe('GET /__mock/events', () => {
  let url: string
  beforeAll(async () => {
    url = (await startServer()).url
  })
  afterAll(closeServers)

  it('answers as an event stream that opens with a retry interval, then a hello naming session, scenario, clock', async () => {
    await freeze(url, 'hello-1')
    const stream = await openStream(url, '/__mock/events', withSession('hello-1'))
    expect(stream.response.status).toBe(200)
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/)
    expect(stream.response.headers.get('cache-control')).toBe('no-store')
    const hello = await stream.next((event) => event.event === 'hello')
    expect(stream.events[0]).toBe(hello)
    expect(stream.retries[0]).toBeGreaterThan(0)
    expect(JSON.parse(hello.data)).toEqual({
      session: 'hello-1',
      scenario: 'default',
      clock: { now: '2026-06-01T12:00:30.000Z', frozen: true, offsetMs: 0, speed: 1 },
    })
  })

  it('says hello from the default session without X-Mock-Session', async () => {
    const stream = await openStream(url)
    const hello = JSON.parse((await stream.next((event) => event.event === 'hello')).data) as { session: string; scenario: string }
    expect(hello).toMatchObject({ session: 'default', scenario: 'default' })
  })

  it('sends each API request as a request event, with its sequence number as id', async () => {
    const stream = await openStream(url, '/__mock/events', withSession('req-1'))
    await stream.next((event) => event.event === 'hello')
    expect((await api(url, '/v1/pets?limit=3', 'req-1')).status).toBe(200)
    expect((await api(url, '/v1/pets/999999', 'req-1')).status).toBe(404)
    const second = await stream.next((event) => event.event === 'request' && (JSON.parse(event.data) as RequestData).seq === 2)
    const requests = stream.of<RequestData>('request')
    expect(requests.map((r) => [r.seq, r.method, r.path, r.query, r.status, r.key, r.plan])).toEqual([
      [1, 'GET', '/v1/pets', 'limit=3', 200, 'pro …-pro', 'pro'],
      [2, 'GET', '/v1/pets/999999', '', 404, 'pro …-pro', 'pro'],
    ])
    expect(stream.events.filter((event) => event.event === 'request').map((event) => event.id)).toEqual(['1', '2'])
    expect(second.id).toBe('2')
    // The summary carries no headers, no bodies, and never the key.
    const fields = Object.keys(JSON.parse(second.data) as object)
    for (const field of ['body', 'bodyText', 'requestHeaders', 'responseHeaders', 'responseBody']) expect(fields).not.toContain(field)
    expect(second.data).not.toContain('test-pro')
  })

  it("shows a session's stream only its own session's requests", async () => {
    const mine = await openStream(url, '/__mock/events', withSession('iso-a'))
    await mine.next((event) => event.event === 'hello')
    expect((await api(url, '/v1/pets/2', 'iso-b')).status).toBe(200)
    expect((await api(url, '/v1/pets/3', 'default')).status).toBe(200)
    expect((await api(url, '/v1/pets/4', 'iso-a')).status).toBe(200)
    // The server writes events in the order it answers: another session's, had it leaked, would come before this one.
    await mine.next((event) => event.event === 'request')
    expect(mine.of<RequestData>('request').map((r) => r.path)).toEqual(['/v1/pets/4'])
  })

  it('takes ?session= as X-Mock-Session', async () => {
    const stream = await openStream(url, '/__mock/events?session=by-query')
    const hello = JSON.parse((await stream.next((event) => event.event === 'hello')).data) as { session: string }
    expect(hello.session).toBe('by-query')
    expect((await api(url, '/v1/pets/5', 'other-than-query')).status).toBe(200)
    expect((await api(url, '/v1/pets/6', 'by-query')).status).toBe(200)
    // In the order answered: the other session's request, had it leaked, would come first.
    await stream.next((event) => event.event === 'request')
    expect(stream.of<RequestData>('request').map((r) => [r.seq, r.path])).toEqual([[1, '/v1/pets/6']])
  })

  it('sends clock after POST /__mock/clock', async () => {
    const stream = await openStream(url, '/__mock/events', withSession('clock-1'))
    await stream.next((event) => event.event === 'hello')
    await freeze(url, 'clock-1', '2027-02-03T04:05:06Z')
    const clock = await stream.next((event) => event.event === 'clock')
    expect(JSON.parse(clock.data)).toEqual({ now: '2027-02-03T04:05:06.000Z', frozen: true, offsetMs: 0, speed: 1 })
    const advanced = await fetch(`${url}/__mock/clock`, {
      method: 'POST',
      headers: withSession('clock-1'),
      body: JSON.stringify({ advanceSeconds: 60 }),
    })
    expect(advanced.status).toBe(200)
    await stream.next((event) => event.event === 'clock' && event.data.includes('2027-02-03T04:06:06.000Z'))
  })

  it('sends scenario after PUT /__mock/scenario', async () => {
    const stream = await openStream(url, '/__mock/events', withSession('scen-1'))
    await stream.next((event) => event.event === 'hello')
    const response = await fetch(`${url}/__mock/scenario`, {
      method: 'PUT',
      headers: withSession('scen-1'),
      body: JSON.stringify({ name: 'empty-store' }),
    })
    expect(response.status).toBe(200)
    const scenario = await stream.next((event) => event.event === 'scenario')
    expect(JSON.parse(scenario.data)).toEqual({ scenario: 'empty-store' })
  })

  it('sends reset after POST /__mock/reset', async () => {
    const stream = await openStream(url, '/__mock/events', withSession('reset-1'))
    await stream.next((event) => event.event === 'hello')
    expect((await fetch(`${url}/__mock/reset`, { method: 'POST', headers: withSession('reset-1') })).status).toBe(204)
    const reset = await stream.next((event) => event.event === 'reset')
    expect(JSON.parse(reset.data)).toEqual({ scenario: 'default' })
    expect(stream.of('scenario')).toEqual([])
  })

  it('sends cleared after DELETE /__mock/requests, so a panel drops the entries it shows', async () => {
    const stream = await openStream(url, '/__mock/events', withSession('clear-1'))
    await stream.next((event) => event.event === 'hello')
    expect((await fetch(`${url}/__mock/requests`, { method: 'DELETE', headers: withSession('clear-1') })).status).toBe(204)
    const cleared = await stream.next((event) => event.event === 'cleared')
    expect(JSON.parse(cleared.data)).toEqual({ scenario: 'default' })
    expect(stream.of('reset')).toEqual([])
  })

  it('sends the quota of the keys used, coalesced, after requests', async () => {
    await freeze(url, 'quota-1')
    const stream = await openStream(url, '/__mock/events', withSession('quota-1'))
    await stream.next((event) => event.event === 'hello')
    const answers = await Promise.all(Array.from({ length: 20 }, () => api(url, '/v1/pets?limit=1', 'quota-1', 'test-business')))
    expect(answers.every((answer) => answer.status === 200)).toBe(true)
    const last = await stream.next((event) => {
      if (event.event !== 'quota') return false
      const business = (JSON.parse(event.data) as KeyData[]).find((key) => key.key === 'test-business')
      return business?.minuteRemaining === 980
    })
    const keys = JSON.parse(last.data) as KeyData[]
    expect(keys.map((key) => [key.key, key.plan, key.perMinute, key.perDay])).toEqual([
      ['test-free', 'free', 60, 1000],
      ['test-pro', 'pro', 300, 10000],
      ['test-business', 'business', 1000, 100000],
      ['test-enterprise', 'enterprise', 5000, 1000000],
    ])
    expect(keys.find((key) => key.key === 'test-business')).toMatchObject({ dayRemaining: 99980, bannedUntil: null })
    expect(keys.find((key) => key.key === 'test-free')).toMatchObject({ minuteRemaining: 60, dayRemaining: 1000 })
    // 20 requests at once: their quota goes out coalesced, not once per request. How many go out depends on how the
    // requests fall into the coalescing windows, which a busy machine spreads: only fewer than the requests is certain.
    expect(stream.of('request')).toHaveLength(20)
    expect(stream.of('quota').length).toBeLessThan(20)
  })

  it('replays the entries after Last-Event-ID to a reconnecting client, then goes on live', async () => {
    for (const id of [1, 2, 3, 4]) expect((await api(url, `/v1/pets/${id}`, 'replay-1')).status).toBe(200)
    const stream = await openStream(url, '/__mock/events', withSession('replay-1', { 'last-event-id': '2' }))
    await stream.next((event) => event.event === 'request' && event.id === '4')
    expect(stream.events.map((event) => [event.event, event.id])).toEqual([
      ['hello', undefined],
      ['request', '3'],
      ['request', '4'],
    ])
    expect(stream.of<RequestData>('request').map((r) => r.path)).toEqual(['/v1/pets/3', '/v1/pets/4'])
    expect((await api(url, '/v1/pets/5', 'replay-1')).status).toBe(200)
    await stream.next((event) => event.event === 'request' && event.id === '5')
    expect(stream.events.filter((event) => event.event === 'request').map((event) => event.id)).toEqual(['3', '4', '5'])
  })

  it('replays after ?after= like Last-Event-ID', async () => {
    for (const id of [1, 2, 3]) expect((await api(url, `/v1/pets/${id}`, 'replay-2')).status).toBe(200)
    const stream = await openStream(url, '/__mock/events?session=replay-2&after=1')
    await stream.next((event) => event.event === 'request' && event.id === '3')
    expect(stream.events.filter((event) => event.event === 'request').map((event) => event.id)).toEqual(['2', '3'])
  })

  it('replays nothing without Last-Event-ID', async () => {
    expect((await api(url, '/v1/pets/1', 'replay-3')).status).toBe(200)
    const stream = await openStream(url, '/__mock/events', withSession('replay-3'))
    await stream.next((event) => event.event === 'hello')
    // A replay comes before anything new: once a request made now is seen, nothing older came with it.
    expect((await api(url, '/v1/pets/2', 'replay-3')).status).toBe(200)
    await stream.next((event) => event.event === 'request')
    expect(stream.of<RequestData>('request').map((r) => r.path)).toEqual(['/v1/pets/2'])
  })

  it.each(['/__mock/events', '/__mock/ui'])('refuses a foreign Host with 403 admin_forbidden on %s', async (path) => {
    const port = new URL(url).port
    const answer = await rawGet(url, path, { host: `evil.test:${port}` })
    expect(answer.status, path).toBe(403)
    expect(answer.type).toMatch(/^application\/json/)
    expect(JSON.parse(answer.body)).toEqual({ code: 'admin_forbidden', message: expect.stringContaining('evil.test'), status: 403 })
  })

  it('refuses a foreign Host without a port with 403 on /__mock/events', async () => {
    const plain = await rawGet(url, '/__mock/events', { host: 'evil.test' })
    expect(plain.status).toBe(403)
  })

  it.each(['/__mock/events', '/__mock/ui'])('refuses a foreign Origin with 403 admin_forbidden on %s', async (path) => {
    const body = await expectError(await fetch(`${url}${path}`, { headers: { origin: 'https://evil.test' } }), 403, 'admin_forbidden')
    expect(body.message).toContain('evil.test')
  })

  it('serves /__mock/ui to a page of its own origin', async () => {
    const response = await fetch(`${url}/__mock/ui`, { headers: { origin: url } })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/html/)
  })
})

describe('GET /__mock/events: limits', () => {
  afterEach(closeServers)

  /** A server with the 100 event streams it takes open, each answered 200. */
  async function withHundredStreams() {
    const { url } = await startServer()
    const streams = await Promise.all(
      Array.from({ length: 100 }, (_, i) => openStream(url, '/__mock/events', withSession(`many-${i % 5}`))),
    )
    expect(streams.map((stream) => stream.response.status)).toEqual(Array(100).fill(200))
    return { url, streams }
  }

  it('answers the 101st stream 503 too_many_event_streams with Retry-After', async () => {
    const { url } = await withHundredStreams()
    const refused = await fetch(`${url}/__mock/events`)
    const retryAfter = refused.headers.get('retry-after')
    const body = await expectError(refused, 503, 'too_many_event_streams')
    expect(body.message).toContain('100')
    expect(retryAfter).toMatch(/^[1-9]\d*$/)
  })

  it('still serves the API, the rest of the admin API too, with 100 streams open', async () => {
    const { url } = await withHundredStreams()
    expect((await api(url, '/v1/pets/1', 'default')).status).toBe(200)
    expect((await fetch(`${url}/__mock/health`)).status).toBe(200)
  })

  it('takes a new stream once the 100 open ones close', async () => {
    const { url, streams } = await withHundredStreams()
    for (const stream of streams) stream.close()
    const again = await eventually(async () => {
      const response = await fetch(`${url}/__mock/events`)
      if (response.status === 200) return response
      await response.body?.cancel()
      return undefined
    })
    expect(again.headers.get('content-type')).toMatch(/^text\/event-stream/)
    await again.body?.cancel()
  })

  it('does not leave a stream silent when its session is evicted (--max-sessions): it ends, or follows the session', async () => {
    const { url } = await startServer({ maxSessions: 1 })
    const stream = await openStream(url, '/__mock/events?session=evicted-a')
    await stream.next((event) => event.event === 'hello')
    // One live session at most: using another evicts evicted-a; using evicted-a again makes it anew.
    expect((await api(url, '/v1/pets/1', 'evicted-b')).status).toBe(200)
    expect((await api(url, '/v1/pets/2', 'evicted-a')).status).toBe(200)
    const journal = (await (await fetch(`${url}/__mock/requests?session=evicted-a`)).json()) as RequestData[]
    expect(journal.map((entry) => entry.path)).toEqual(['/v1/pets/2'])
    const outcome = await Promise.race([
      stream.ended.then(() => 'ended'),
      stream.next((event) => event.event === 'request').then(() => 'followed'),
    ]).catch(() => 'silent')
    expect(outcome).not.toBe('silent')
  })

  // The CLI closes the server on SIGTERM (test/cli/cli.test.ts); here, closing it must not wait on open streams.
  it('ends open streams when the server stops, so that close() finishes', async () => {
    const { server, url } = await startServer()
    const stream = await openStream(url)
    await stream.next((event) => event.event === 'hello')
    // A stream the server did not end would hold it open for good: the ceiling only makes that failure say so.
    const result = await Promise.race([
      Promise.all([stream.ended, server.close()]).then(() => 'closed' as const),
      sleep(30_000).then(() => 'still open 30 s after close()' as const),
    ])
    expect(result).toBe('closed')
  })
})

describe('GET /__mock/ui and /__mock/events with --admin-token', () => {
  let url: string
  beforeAll(async () => {
    url = (await startServer({ adminToken: 'panel-s3cret' })).url
  })
  afterAll(closeServers)

  it('serves the panel page without the token', async () => {
    const response = await fetch(`${url}/__mock/ui`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/html/)
    expect(await response.text()).toContain('/__mock/ui/panel/ui-main.js')
  })

  it("serves the panel's script without the token", async () => {
    // The file the page loads, as `npm run build` wrote it (ensureBuilt above ran the build).
    const built = await readFile(join(ROOT, 'dist', 'src', 'panel', 'ui-main.js'), 'utf8')
    const response = await fetch(`${url}/__mock/ui/panel/ui-main.js`)
    const text = await response.text()
    expect(response.status, text).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/javascript/)
    expect(text).toBe(built)
    expect(text).toContain('mountPanel')
  })

  it('needs the token for /__mock/events: 401 admin_unauthorized without it, the stream with it', async () => {
    const without = await fetch(`${url}/__mock/events`)
    expect(without.headers.get('www-authenticate')).toBe('Bearer')
    await expectError(without, 401, 'admin_unauthorized')
    await expectError(await fetch(`${url}/__mock/events`, { headers: auth('wrong-token') }), 401, 'admin_unauthorized')
    const stream = await openStream(url, '/__mock/events', auth('panel-s3cret'))
    expect(stream.response.status).toBe(200)
    await stream.next((event) => event.event === 'hello')
  })

  it('keeps the rest of the admin API behind the token', async () => {
    await expectError(await fetch(`${url}/__mock/keys`), 401, 'admin_unauthorized')
    await expectError(await fetch(`${url}/__mock/requests.har`), 401, 'admin_unauthorized')
  })
})
