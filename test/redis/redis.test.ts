/**
 * `--redis URL` (docs/replicas.md): server processes of the built CLI pointed at one Redis behave as one server.
 * One private redis-server (no persistence, loopback) and two replicas, A and B, for the whole file; each
 * test works in its own X-Mock-Session, so the tests do not see each other's pets, counters or clock. The
 * tests that kill a replica or Redis start their own.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { auth, type Cli, ensureBuilt, eventually, killClis, runCli, sleep } from '../http/support.js'
import { freePort, killReplica, type PrivateRedis, startRedis, startReplica, startReplicas, stopRedises } from './redis-support.js'

let redis: PrivateRedis
let A: string
let B: string
let dir: string

beforeAll(async () => {
  await ensureBuilt()
  redis = await startRedis()
  const [a, b] = await startReplicas(2, redis.url)
  A = (a as Cli).url
  B = (b as Cli).url
  dir = await mkdtemp(join(tmpdir(), 'petstore-redis-'))
})

afterAll(async () => {
  await killClis()
  await stopRedises()
  if (dir) await rm(dir, { recursive: true, force: true })
})

const FROZEN = '2026-06-01T12:00:10Z'
const FROZEN_ISO = '2026-06-01T12:00:10.000Z'

interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  readonly body: unknown
}

/** Sends one request to `url` in `session` and reads its whole body. */
async function send(
  url: string,
  path: string,
  { session, key = 'test-pro', method = 'GET', body }: { session: string; key?: string | null; method?: string; body?: unknown },
): Promise<Answer> {
  const headers: Record<string, string> = { 'x-mock-session': session }
  if (key !== null) headers['authorization'] = `Bearer ${key}`
  if (body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(`${url}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  })
  const text = await response.text()
  let parsed: unknown
  try {
    parsed = text === '' ? undefined : JSON.parse(text)
  } catch {
    parsed = text
  }
  return { status: response.status, headers: response.headers, text, body: parsed }
}

const createPet = (url: string, session: string, pet: object = { name: 'Rex', categoryId: 3, status: 'pending' }) =>
  send(url, '/v1/pets', { session, method: 'POST', body: pet })

interface ClockView {
  now: string
  frozen: boolean
  offsetMs: number
}

const clockOf = async (url: string, session: string): Promise<ClockView> =>
  (await send(url, '/__mock/clock', { session, key: null })).body as ClockView

async function setClock(url: string, session: string, change: object): Promise<ClockView> {
  const answer = await send(url, '/__mock/clock', { session, key: null, method: 'POST', body: change })
  expect(answer.status, answer.text).toBe(200)
  return answer.body as ClockView
}

/** Waits until `url` shows the clock of `session` at `iso`, frozen (`eventually`'s ceiling: pub/sub takes milliseconds). */
async function clockFollows(url: string, session: string, iso: string): Promise<void> {
  let last: ClockView | undefined
  await eventually(async () => {
    last = await clockOf(url, session)
    return last.now === iso && last.frozen ? true : undefined
  }).catch((error: unknown) => {
    throw new Error(`${url} did not show the clock of session ${session} at ${iso}; it shows ${JSON.stringify(last)} (${String(error)})`)
  })
}

const idOf = (answer: Answer): number => (answer.body as { id: number }).id
const codeOf = (answer: Answer): string | undefined => (answer.body as { code?: string } | undefined)?.code

describe('one world across replicas', () => {
  it('serves a pet created on replica A from replica B by id', async () => {
    const created = await createPet(A, 'create')
    expect(created.status, created.text).toBe(201)
    expect(created.body).toEqual({ id: 51, name: 'Rex', categoryId: 3, status: 'pending' })
    const location = created.headers.get('location')
    expect(location).toBe('/v1/pets/51')
    const read = await send(B, location as string, { session: 'create' })
    expect(read.status).toBe(200)
    expect(read.text).toBe(created.text)
  })

  it("lists a pet created on replica A in replica B's listing", async () => {
    const created = await createPet(A, 'create-listed')
    const listed = await send(B, '/v1/pets?limit=100', { session: 'create-listed' })
    expect(listed.status).toBe(200)
    expect((listed.body as { id: number }[]).at(-1)).toEqual(created.body)
    expect(listed.body).toHaveLength(51)
  })

  it('never gives an id twice when both replicas create in turn: 20 creates, ids 51 to 70 in order', async () => {
    const ids: number[] = []
    for (let i = 0; i < 20; i++) {
      const created = await createPet(i % 2 === 0 ? A : B, 'ids', { name: `Pet ${i}`, categoryId: 1 })
      expect(created.status, created.text).toBe(201)
      expect(created.headers.get('location')).toBe(`/v1/pets/${idOf(created)}`)
      ids.push(idOf(created))
    }
    expect(ids).toEqual(Array.from({ length: 20 }, (_, i) => 51 + i))
  })

  it('never gives an id twice when both replicas create at the same time: 40 concurrent creates, ids 51 to 90', async () => {
    const created = await Promise.all(
      Array.from({ length: 40 }, (_, i) => createPet(i % 2 === 0 ? A : B, 'concurrent-ids', { name: `Pet ${i}`, categoryId: 1 })),
    )
    expect(created.map((answer) => answer.status)).toEqual(Array(40).fill(201))
    const ids = created.map(idOf).sort((x, y) => x - y)
    expect(ids).toEqual(Array.from({ length: 40 }, (_, i) => 51 + i))
    // Each pet is stored whole, under its own id, on both replicas.
    const listed = await send(B, '/v1/pets?limit=100', { session: 'concurrent-ids' })
    expect((listed.body as { id: number }[]).map((pet) => pet.id)).toEqual(Array.from({ length: 90 }, (_, i) => i + 1))
    for (const answer of created.slice(0, 5))
      expect((await send(A, `/v1/pets/${idOf(answer)}`, { session: 'concurrent-ids' })).text).toBe(answer.text)
  })
})

describe('rate limits across replicas', () => {
  it('gives a Free key exactly 60 requests a minute across both replicas: 100 concurrent requests, 60 are 200', async () => {
    await setClock(A, 'quota', { set: FROZEN })
    await clockFollows(B, 'quota', FROZEN_ISO)
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => send(i % 2 === 0 ? A : B, '/v1/pets?limit=1', { session: 'quota', key: 'test-free' })),
    )
    const ok = answers.filter((answer) => answer.status === 200)
    const limited = answers.filter((answer) => answer.status === 429)
    expect(ok).toHaveLength(60)
    expect(limited).toHaveLength(40)
    const remaining = ok.map((answer) => Number(answer.headers.get('x-ratelimit-remaining'))).sort((x, y) => y - x)
    expect(remaining).toEqual(Array.from({ length: 60 }, (_, i) => 59 - i))
    for (const answer of limited) {
      expect(answer.headers.get('retry-after'), answer.text).toMatch(/^\d+$/)
      expect(answer.headers.get('x-ratelimit-remaining')).toBe('0')
    }
    // As on one server: the first 429 and four early retries are rate_limited, the fifth early retry earns the ban.
    const codes = limited.map(codeOf)
    expect(codes.filter((code) => code === 'rate_limited')).toHaveLength(5)
    expect(codes.filter((code) => code === 'key_temporarily_banned')).toHaveLength(35)
    for (const answer of limited.filter((each) => codeOf(each) === 'rate_limited')) expect(answer.headers.get('retry-after')).toBe('50')
  })

  it('holds a ban earned through both replicas on both, past the end of the minute', async () => {
    await setClock(A, 'ban', { set: FROZEN })
    await clockFollows(B, 'ban', FROZEN_ISO)
    const minute = await Promise.all(Array.from({ length: 60 }, () => send(A, '/v1/pets?limit=1', { session: 'ban', key: 'test-free' })))
    expect(minute.map((answer) => answer.status)).toEqual(Array(60).fill(200))
    const first = await send(B, '/v1/pets', { session: 'ban', key: 'test-free' })
    expect(first.status).toBe(429)
    expect(codeOf(first)).toBe('rate_limited')
    expect(first.headers.get('retry-after')).toBe('50')
    // Five retries before Retry-After has passed, alternating replicas: the fifth bans the key.
    const retries: (string | undefined)[] = []
    for (const url of [A, B, A, B, A]) retries.push(codeOf(await send(url, '/v1/pets', { session: 'ban', key: 'test-free' })))
    expect(retries).toEqual(['rate_limited', 'rate_limited', 'rate_limited', 'rate_limited', 'key_temporarily_banned'])
    for (const url of [B, A]) {
      const banned = await send(url, '/v1/pets', { session: 'ban', key: 'test-free' })
      expect(banned.status).toBe(429)
      expect(codeOf(banned)).toBe('key_temporarily_banned')
      expect(banned.headers.get('retry-after')).toBe('900')
    }
    // The next minute frees a limited key, not a banned one (the ban lasts 15 minutes).
    await setClock(A, 'ban', { advanceSeconds: 120 })
    await clockFollows(B, 'ban', '2026-06-01T12:02:10.000Z')
    const later = await send(B, '/v1/pets', { session: 'ban', key: 'test-free' })
    expect(codeOf(later)).toBe('key_temporarily_banned')
    expect(later.headers.get('retry-after')).toBe('780')
    // Other keys are not banned.
    expect((await send(B, '/v1/pets', { session: 'ban', key: 'test-pro' })).status).toBe(200)
  })

  it('refuses on B a key banned on A by POST /__mock/keys/:key, and counts from a minute used up there', async () => {
    await setClock(A, 'set-key', { set: FROZEN })
    await clockFollows(B, 'set-key', FROZEN_ISO)
    const banned = await send(A, '/__mock/keys/test-pro', { session: 'set-key', key: null, method: 'POST', body: { bannedForSeconds: 60 } })
    expect(banned.status, banned.text).toBe(200)
    const onB = await send(B, '/v1/pets', { session: 'set-key', key: 'test-pro' })
    expect([onB.status, codeOf(onB), onB.headers.get('retry-after')]).toEqual([429, 'key_temporarily_banned', '60'])
    const used = await send(B, '/__mock/keys/test-free', { session: 'set-key', key: null, method: 'POST', body: { minuteUsed: 58 } })
    expect(used.status, used.text).toBe(200)
    expect((await send(A, '/v1/pets', { session: 'set-key', key: 'test-free' })).headers.get('x-ratelimit-remaining')).toBe('1')
  })

  it("puts a timeline stage's keys.start in the shared counters: quota-exhaustion's used-up minute on both replicas", async () => {
    const switched = await send(A, '/__mock/scenario', { session: 'stage', key: null, method: 'PUT', body: { name: 'quota-exhaustion' } })
    expect(switched.status, switched.text).toBe(200)
    await clockFollows(B, 'stage', '2026-06-01T12:00:30.000Z')
    expect((await send(B, '/v1/pets', { session: 'stage', key: 'test-pro' })).status).toBe(200)
    // The stage "quota-gone" (scenarios/quota-exhaustion.json) starts 2 minutes in: every key's minute used up.
    await setClock(A, 'stage', { advanceSeconds: 120 })
    await clockFollows(B, 'stage', '2026-06-01T12:02:30.000Z')
    for (const url of [B, A]) {
      const limited = await send(url, '/v1/pets', { session: 'stage', key: 'test-pro' })
      expect([limited.status, codeOf(limited)], url).toEqual([429, 'rate_limited'])
    }
  })

  it('counts the first request a replica answers in a session another replica started at that session’s clock', async () => {
    await setClock(A, 'late-join', { set: FROZEN })
    for (let i = 0; i < 3; i++) expect((await send(A, '/v1/pets', { session: 'late-join', key: 'test-free' })).status).toBe(200)
    // B has not seen the session yet: this request creates its world there.
    const first = await send(B, '/v1/pets', { session: 'late-join', key: 'test-free' })
    expect(first.status).toBe(200)
    expect(first.headers.get('x-ratelimit-reset')).toBe(String(Date.parse('2026-06-01T12:01:00Z') / 1000))
    expect(first.headers.get('x-ratelimit-remaining')).toBe('56')
  })
})

describe('clock, scenario and reset followed by every replica', () => {
  it('shows on A a clock advanced on B', async () => {
    await setClock(A, 'clock', { set: FROZEN })
    await clockFollows(B, 'clock', FROZEN_ISO)
    const advanced = await setClock(B, 'clock', { advanceSeconds: 90 })
    expect(advanced.now).toBe('2026-06-01T12:01:40.000Z')
    await clockFollows(A, 'clock', '2026-06-01T12:01:40.000Z')
  })

  it('returns both replicas to real time when one is told { real: true }', async () => {
    await setClock(A, 'real-time', { set: FROZEN })
    await clockFollows(B, 'real-time', FROZEN_ISO)
    const before = Date.now()
    await setClock(B, 'real-time', { real: true })
    // Real time on A: running, and read between the moment the test told B and the moment A's answer came.
    await eventually(async () => {
      const clock = await clockOf(A, 'real-time')
      const now = Date.parse(clock.now)
      return !clock.frozen && now >= before && now <= Date.now() ? true : undefined
    })
  })

  it('runs a session clock at --clock-speed on every replica, each near the moment Redis keeps', { retry: 2 }, async () => {
    const fast = await startReplicas(2, redis.url, ['--clock-speed', '60'])
    try {
      const [one, two] = fast.map((replica) => replica.url) as [string, string]
      const setAt = Date.now()
      await setClock(one, 'fast', { set: FROZEN, running: true })
      // Until the switch reaches B, B's session clock is on real time (not frozen either): wait for the set moment.
      const nearSet = (clock: ClockView) => Math.abs(Date.parse(clock.now) - Date.parse(FROZEN)) < 24 * 3_600_000
      await eventually(async () => (nearSet(await clockOf(two, 'fast')) ? true : undefined))
      // B starts its clock when the switch reaches it, so it may run behind A by as much real time as that took (at
      // most the time until B was seen to have it): a second or more on a busy machine.
      const reachedMs = Date.now() - setAt
      // Read on both at once, twice, 500 ms of real time apart: each moved a minute a real second (at least 27 s).
      const readBoth = async () => {
        const before = Date.now()
        const clocks = await Promise.all([clockOf(one, 'fast'), clockOf(two, 'fast')])
        return { times: clocks.map((clock) => Date.parse(clock.now)), spanMs: Date.now() - before }
      }
      const first = await readBoth()
      await sleep(500)
      const second = await readBoth()
      for (const i of [0, 1]) expect((second.times[i] as number) - (first.times[i] as number)).toBeGreaterThanOrEqual(500 * 60 * 0.9)
      // Redis keeps the moment, not the pace (docs/replicas.md): the follower is behind by the pub/sub delay at that
      // pace (a few virtual seconds), beside what the reads' own real time is worth.
      const apart = Math.abs((second.times[0] as number) - (second.times[1] as number))
      expect(apart).toBeLessThanOrEqual((second.spanMs + reachedMs + 1_000) * 60)
    } finally {
      await Promise.all(fast.map(killReplica))
    }
  })

  it('applies a scenario switched on A to the API of B', async () => {
    expect((await send(B, '/v1/pets', { session: 'scenario', key: 'test-free' })).status).toBe(200)
    const switched = await send(A, '/__mock/scenario', { session: 'scenario', key: null, method: 'PUT', body: { name: 'rate-limited' } })
    expect(switched.status, switched.text).toBe(200)
    // The scenario starts its clock at 12:00:30, frozen, with every key's minute used up.
    await clockFollows(B, 'scenario', '2026-06-01T12:00:30.000Z')
    const listing = (await send(B, '/__mock/scenarios', { session: 'scenario', key: null })).body as { name: string; current: boolean }[]
    expect(listing.find((scenario) => scenario.current)?.name).toBe('rate-limited')
    const limited = await send(B, '/v1/pets', { session: 'scenario', key: 'test-free' })
    expect(limited.status, limited.text).toBe(429)
    expect(codeOf(limited)).toBe('rate_limited')
    expect(limited.headers.get('retry-after')).toBe('30')
    expect(limited.headers.get('x-ratelimit-limit')).toBe('60')
    const enterprise = await send(B, '/v1/pets', { session: 'scenario', key: 'test-enterprise' })
    expect(enterprise.status).toBe(429)
    expect(enterprise.headers.get('x-ratelimit-limit')).toBe('5000')
  })

  it('brings back the seeded 50 pets on A after a reset on B', async () => {
    const created = await createPet(A, 'reset')
    expect(idOf(created)).toBe(51)
    expect((await send(B, '/v1/pets/51', { session: 'reset' })).status).toBe(200)
    const reset = await send(B, '/__mock/reset', { session: 'reset', key: null, method: 'POST' })
    expect(reset.status, reset.text).toBe(204)
    expect((await send(A, '/v1/pets/51', { session: 'reset' })).status).toBe(404)
    const listed = await send(A, '/v1/pets?limit=100', { session: 'reset' })
    expect((listed.body as { id: number }[]).map((pet) => pet.id)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
    // Ids start again after the seeded ones.
    expect(idOf(await createPet(A, 'reset'))).toBe(51)
  })

  it('forgets on both replicas the counters a reset on one forgot', async () => {
    await setClock(A, 'reset-counters', { set: FROZEN })
    await clockFollows(B, 'reset-counters', FROZEN_ISO)
    for (let i = 0; i < 5; i++) await send(A, '/v1/pets', { session: 'reset-counters', key: 'test-free' })
    expect((await send(B, '/v1/pets', { session: 'reset-counters', key: 'test-free' })).headers.get('x-ratelimit-remaining')).toBe('54')
    expect((await send(A, '/__mock/reset', { session: 'reset-counters', key: null, method: 'POST' })).status).toBe(204)
    // A reset of the default scenario returns the clock to real time: the counters start afresh in the current minute.
    const after = await send(B, '/v1/pets', { session: 'reset-counters', key: 'test-free' })
    expect(after.headers.get('x-ratelimit-remaining')).toBe('59')
  })
})

describe('sessions across replicas', () => {
  const onlyIn = (session: string) => createPet(A, session, { name: `Only in ${session}`, categoryId: 9 })

  it('shares one world per X-Mock-Session name across replicas', async () => {
    const created = await onlyIn('session-a')
    expect(idOf(created)).toBe(51)
    expect((await send(B, '/v1/pets/51', { session: 'session-a' })).text).toBe(created.text)
  })

  it('keeps the pets of two X-Mock-Session names apart on every replica', async () => {
    await onlyIn('apart-a')
    expect((await send(B, '/v1/pets/51', { session: 'apart-b' })).status).toBe(404)
    expect((await send(A, '/v1/pets/51', { session: 'apart-b' })).status).toBe(404)
    expect((await send(B, '/v1/pets?limit=100', { session: 'apart-b' })).body).toHaveLength(50)
  })

  it('keeps the rate counters of two X-Mock-Session names apart across replicas', async () => {
    await setClock(B, 'count-a', { set: FROZEN })
    await clockFollows(A, 'count-a', FROZEN_ISO)
    await setClock(B, 'count-b', { set: FROZEN })
    await clockFollows(A, 'count-b', FROZEN_ISO)
    for (let i = 0; i < 3; i++) await send(A, '/v1/pets', { session: 'count-a', key: 'test-free' })
    expect((await send(B, '/v1/pets', { session: 'count-a', key: 'test-free' })).headers.get('x-ratelimit-remaining')).toBe('56')
    expect((await send(B, '/v1/pets', { session: 'count-b', key: 'test-free' })).headers.get('x-ratelimit-remaining')).toBe('59')
  })

  it('shares the default session (no X-Mock-Session) across replicas', async () => {
    const created = await fetch(`${A}/v1/pets`, {
      method: 'POST',
      headers: auth('test-pro', { 'content-type': 'application/json' }),
      body: JSON.stringify({ name: 'Default', categoryId: 1 }),
    })
    expect(created.status).toBe(201)
    const text = await created.text()
    const location = created.headers.get('location') as string
    const read = await fetch(`${B}${location}`, { headers: auth('test-pro') })
    expect(read.status).toBe(200)
    expect(await read.text()).toBe(text)
  })
})

/** An open `GET /__mock/events` stream and the events parsed so far (the parser of events.test.ts, shortened). */
async function openEvents(url: string, session: string) {
  const controller = new AbortController()
  const response = await fetch(`${url}/__mock/events`, {
    headers: { accept: 'text/event-stream', 'x-mock-session': session },
    signal: controller.signal,
  })
  expect(response.status).toBe(200)
  const events: { event: string; data: string; id: string | undefined }[] = []
  void (async () => {
    const reader = (response.body as ReadableStream<Uint8Array>).getReader()
    const decoder = new TextDecoder()
    let buffer = ''
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        buffer += decoder.decode(value, { stream: true })
        for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          let event = 'message'
          let id: string | undefined
          const data: string[] = []
          for (const line of block.split('\n')) {
            if (line.startsWith('event: ')) event = line.slice(7)
            else if (line.startsWith('data: ')) data.push(line.slice(6))
            else if (line.startsWith('id: ')) id = line.slice(4)
          }
          if (data.length > 0) events.push({ event, data: data.join('\n'), id })
        }
      }
    } catch {
      // Aborted by close().
    }
  })()
  const requests = () =>
    events
      .filter((event) => event.event === 'request')
      .map((event) => JSON.parse(event.data) as { path: string; query: string; status: number })
  return {
    events,
    requests,
    async waitFor(predicate: (request: { path: string; query: string; status: number }) => boolean) {
      return eventually(async () => requests().find(predicate)).catch((error: unknown) => {
        throw new Error(`No matching request event (${String(error)}). Received: ${events.map((e) => `${e.event} ${e.data}`).join(' | ')}`)
      })
    },
    close: () => controller.abort(),
  }
}

describe('the event stream across replicas', () => {
  /**
   * Opens A's stream of `session`, then sends B a list (limit=3) and a 404, then A a list (limit=4), each answered as
   * expected; the caller closes the stream.
   */
  async function eventsOfBothReplicas(session: string) {
    const stream = await openEvents(A, session)
    try {
      await eventually(async () => (stream.events.some((event) => event.event === 'hello') ? true : undefined))
      expect((await send(B, '/v1/pets?limit=3', { session })).status).toBe(200)
      expect((await send(B, '/v1/pets/999', { session })).status).toBe(404)
      expect((await send(A, '/v1/pets?limit=4', { session })).status).toBe(200)
    } catch (error) {
      stream.close()
      throw error
    }
    return stream
  }

  it('shows on A the requests sent to B, once each', async () => {
    const stream = await eventsOfBothReplicas('events')
    try {
      const fromB = await stream.waitFor((request) => request.path === '/v1/pets' && String(request.query).includes('limit=3'))
      expect(fromB.status).toBe(200)
      expect((await stream.waitFor((request) => request.path === '/v1/pets/999')).status).toBe(404)
      await stream.waitFor((request) => String(request.query).includes('limit=4'))
      await sleep(300)
      expect(stream.requests().filter((request) => String(request.query).includes('limit=3'))).toHaveLength(1)
    } finally {
      stream.close()
    }
  })

  it('shows on A its own requests once', async () => {
    const stream = await eventsOfBothReplicas('events-own')
    try {
      await stream.waitFor((request) => String(request.query).includes('limit=4'))
      await sleep(300)
      expect(stream.requests().filter((request) => String(request.query).includes('limit=4'))).toHaveLength(1)
    } finally {
      stream.close()
    }
  })

  // docs/replicas.md: the stream numbers this replica's journal only; another replica's requests come without an id,
  // so Last-Event-ID always names an entry of this replica's journal (an id from B could skip or repeat A's).
  /** The request events A's stream of `session` shows for three requests to A (limit=1..3) and three to B (limit=11..13). */
  async function requestEventsOfBoth(session: string) {
    const stream = await openEvents(A, session)
    try {
      await eventually(async () => (stream.events.some((event) => event.event === 'hello') ? true : undefined))
      for (let i = 1; i <= 3; i++) {
        await send(A, `/v1/pets?limit=${i}`, { session })
        await send(B, `/v1/pets?limit=${10 + i}`, { session })
      }
      await eventually(async () => (stream.requests().length >= 6 ? true : undefined))
      return stream.events.filter((event) => event.event === 'request')
    } finally {
      stream.close()
    }
  }

  it("numbers A's own request events", async () => {
    const requests = await requestEventsOfBoth('event-ids')
    expect(requests.filter((event) => event.id !== undefined).map((event) => JSON.parse(event.data).query)).toEqual([
      'limit=1',
      'limit=2',
      'limit=3',
    ])
  })

  it("sends B's request events without an id", async () => {
    const requests = await requestEventsOfBoth('event-ids-of-b')
    expect(requests.filter((event) => event.id === undefined).map((event) => JSON.parse(event.data).query)).toEqual([
      'limit=11',
      'limit=12',
      'limit=13',
    ])
  })

  it('keeps the events of replicas on another database of the same Redis apart', async () => {
    // Two deployments on one Redis server, databases 1 and 2: each its own world.
    const [one, two] = await Promise.all([startReplica(`${redis.url}/1`), startReplica(`${redis.url}/2`)])
    const stream = await openEvents((one as Cli).url, 'apart')
    try {
      await eventually(async () => (stream.events.some((event) => event.event === 'hello') ? true : undefined))
      const created = await createPet((two as Cli).url, 'apart')
      expect(created.status).toBe(201)
      expect((await send((one as Cli).url, '/v1/pets/51', { session: 'apart' })).status).toBe(404)
      await sleep(500)
      expect(stream.requests().filter((request) => request.path === '/v1/pets')).toEqual([])
    } finally {
      stream.close()
      await killReplica(one as Cli)
      await killReplica(two as Cli)
    }
  })
})

describe('a replica killed', () => {
  /**
   * Starts replicas C and D; in `session`, at a frozen time, creates a pet on C and sends it 10 requests of test-free,
   * then kills C with SIGKILL. D is left running.
   */
  async function killOneOfTwo(session: string) {
    const [c, d] = (await startReplicas(2, redis.url)) as [Cli, Cli]
    await setClock(c.url, session, { set: FROZEN })
    await clockFollows(d.url, session, FROZEN_ISO)
    const created = await createPet(c.url, session)
    expect(created.status).toBe(201)
    for (let i = 0; i < 10; i++) await send(c.url, '/v1/pets', { session, key: 'test-free' })
    await killReplica(c)
    return { c, d, created }
  }

  it('leaves the other replica answering with the same pets, the same counters', async () => {
    const { c, d, created } = await killOneOfTwo('kill')
    expect(c.child.signalCode).toBe('SIGKILL')
    expect((await send(d.url, `/v1/pets/${idOf(created)}`, { session: 'kill' })).text).toBe(created.text)
    const onD = await send(d.url, '/v1/pets', { session: 'kill', key: 'test-free' })
    expect(onD.headers.get('x-ratelimit-remaining')).toBe('49')
    await killReplica(d)
  })

  it('shows a replica started afterwards the same pets, clock, counters', async () => {
    const { d, created } = await killOneOfTwo('kill-then-start')
    // One more request through the survivor: the new replica counts it with C's.
    await send(d.url, '/v1/pets', { session: 'kill-then-start', key: 'test-free' })
    const e = await startReplica(redis.url)
    expect((await send(e.url, `/v1/pets/${idOf(created)}`, { session: 'kill-then-start' })).text).toBe(created.text)
    await clockFollows(e.url, 'kill-then-start', FROZEN_ISO)
    const onE = await send(e.url, '/v1/pets', { session: 'kill-then-start', key: 'test-free' })
    expect(onE.headers.get('x-ratelimit-remaining')).toBe('48')
    const listed = await send(e.url, '/v1/pets?limit=100', { session: 'kill-then-start' })
    expect(listed.body).toHaveLength(51)
    expect(idOf(await createPet(e.url, 'kill-then-start'))).toBe(52)
    await killReplica(d)
    await killReplica(e)
  })
})

describe('Redis lost while running', () => {
  // Its own Redis and replica: the tests below run in order, each from where the one before left off.
  let own: PrivateRedis
  let replica: Cli
  let url: string

  beforeAll(async () => {
    own = await startRedis()
    replica = await startReplica(own.url)
    url = replica.url
    expect((await send(url, '/v1/pets', { session: 'lost' })).status).toBe(200)
    expect((await createPet(url, 'lost')).status).toBe(201)
    const health = (await fetch(`${url}/__mock/health`).then((response) => response.json())) as { status: string }
    expect(health.status).toBe('ok')
    await own.kill()
  })

  afterAll(async () => {
    if (replica) await killReplica(replica)
  })

  const alive = () => {
    expect(replica.child.exitCode, replica.stderr()).toBeNull()
    expect(replica.child.signalCode).toBeNull()
  }

  it('answers an API request with a 503 store_unavailable Error that carries Retry-After', async () => {
    const down = await eventually(async () => {
      const answer = await send(url, '/v1/pets', { session: 'lost' })
      return answer.status === 503 ? answer : undefined
    })
    expect(Object.keys(down.body as object).sort()).toEqual(['code', 'message', 'status'])
    expect(down.body).toMatchObject({ code: 'store_unavailable', status: 503 })
    expect((down.body as { message: string }).message).toMatch(/\S/)
    expect(down.headers.get('retry-after')).toBe('1')
    expect(down.headers.get('content-type')).toMatch(/^application\/json/)
    // A create fails whole; a request without a valid key needs no store.
    expect((await createPet(url, 'lost')).status).toBe(503)
    expect((await send(url, '/v1/pets', { session: 'lost', key: 'not-a-key' })).status).toBe(401)
    alive()
  })

  it('reports "degraded" with the reason in GET /__mock/health', async () => {
    const health = (await fetch(`${url}/__mock/health`).then((response) => response.json())) as { status: string; reason?: string }
    expect(health.status).toBe('degraded')
    expect(health.reason).toMatch(/Redis/)
    expect(health.reason).toContain(`127.0.0.1:${own.port}`)
  })

  it('answers 503 to the first request of a session never seen before', async () => {
    expect((await send(url, '/v1/pets', { session: 'lost-new' })).status).toBe(503)
  })

  it('keeps running after the first request of a session never seen before', async () => {
    await send(url, '/v1/pets', { session: 'lost-newer' })
    await sleep(300)
    alive()
    expect((await send(url, '/v1/pets', { session: 'lost' })).status).toBe(503)
  })

  it('answers the admin API 503 store_unavailable, changing nothing, while Redis is gone', async () => {
    const reset = await send(url, '/__mock/reset', { session: 'lost', key: null, method: 'POST' })
    const scenario = await send(url, '/__mock/scenario', { session: 'lost', key: null, method: 'PUT', body: { name: 'rate-limited' } })
    const clock = await send(url, '/__mock/clock', { session: 'lost', key: null, method: 'POST', body: { set: FROZEN } })
    const state = await send(url, '/__mock/state', { session: 'lost', key: null })
    const statuses = { reset: reset.status, scenario: scenario.status, clock: clock.status, state: state.status }
    const codes = { reset: codeOf(reset), scenario: codeOf(scenario), clock: codeOf(clock), state: codeOf(state) }
    const listing = (await send(url, '/__mock/scenarios', { session: 'lost', key: null })).body as { name: string; current: boolean }[]
    const view = await clockOf(url, 'lost')
    expect({ statuses, codes, scenario: listing.find((each) => each.current)?.name, frozen: view.frozen }).toEqual({
      statuses: { reset: 503, scenario: 503, clock: 503, state: 503 },
      codes: { reset: 'store_unavailable', scenario: 'store_unavailable', clock: 'store_unavailable', state: 'store_unavailable' },
      scenario: 'default',
      frozen: false,
    })
    alive()
  })

  // Redis restarted once, by whichever of the tests below runs first.
  let back: Promise<void> | undefined
  const redisBack = () => {
    back ??= own.restart()
    return back
  }

  it('answers again once Redis is back', async () => {
    await redisBack()
    // The replica reconnects by itself (its retries are at most 2 s apart): nothing here tells it to.
    await eventually(async () => {
      const answer = await send(url, '/v1/pets?limit=100', { session: 'lost' })
      return answer.status === 200 ? true : undefined
    })
    alive()
    expect(replica.stderr()).not.toMatch(/Request failed/)
  })

  it('reports "ok" in GET /__mock/health once Redis is back', async () => {
    await redisBack()
    await eventually(async () => {
      const health = (await fetch(`${url}/__mock/health`).then((response) => response.json())) as { status: string }
      return health.status === 'ok' ? true : undefined
    })
  })

  it("answers a session whose state Redis lost (it keeps nothing: --save '') without a 5xx", async () => {
    // What happens: the session is not seeded again; it is empty and its ids start again at 1.
    const listed = await send(url, '/v1/pets?limit=100', { session: 'lost' })
    expect(listed.status).toBe(200)
    const created = await createPet(url, 'lost')
    expect(created.status).toBe(201)
    console.info(
      `[redis.test] after Redis came back empty, session "lost" lists ${(listed.body as unknown[]).length} pets and gives the next pet id ${idOf(created)}.`,
    )
  })

  it('seeds a session first used after Redis came back with the 50 pets, from its first request', async () => {
    const first = await send(url, '/v1/pets?limit=100', { session: 'lost-after' })
    expect(first.status).toBe(200)
    expect(first.body).toHaveLength(50)
  })

  it('seeds a session first used while Redis was gone once Redis is back', async () => {
    const listed = await send(url, '/v1/pets?limit=100', { session: 'lost-new' })
    expect(listed.status).toBe(200)
    expect(listed.body).toHaveLength(50)
  })
})

// Side by side: most of each test is a start that waits out the connect timeout (5 s) of an unreachable Redis.
describe.concurrent('starting with --redis', () => {
  it('exits 2 when Redis is unreachable, naming the URL with the fix', async () => {
    const port = await freePort()
    // It gives up by itself, rather than retrying until runCli's ceiling kills it.
    const result = await runCli(['--port', '0', '--redis', `redis://127.0.0.1:${port}`])
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain(`redis://127.0.0.1:${port}`)
    expect(result.stderr).toMatch(/redis-server|--redis|PETSTORE_REDIS\b/)
    expect(result.stdout).not.toContain('listening on')
  })

  // An unreachable URL: the exit 2 naming it shows which URL the server read.
  it('reads the URL from PETSTORE_REDIS', async () => {
    const port = await freePort()
    const fromEnv = await runCli(['--port', '0'], { PETSTORE_REDIS: `redis://127.0.0.1:${port}` })
    expect(fromEnv.code, fromEnv.stderr).toBe(2)
    expect(fromEnv.stderr).toContain(`redis://127.0.0.1:${port}`)
  })

  it('still reads the old name PETSTORE_REDIS_URL, with a one-line warning', async () => {
    const port = await freePort()
    const fromEnv = await runCli(['--port', '0'], { PETSTORE_REDIS_URL: `redis://127.0.0.1:${port}` })
    expect(fromEnv.code, fromEnv.stderr).toBe(2)
    expect(fromEnv.stderr).toContain(`redis://127.0.0.1:${port}`)
    expect(fromEnv.stderr).toContain('PETSTORE_REDIS_URL is the old name of PETSTORE_REDIS')
  })

  it('reads the URL from the config key redis', async () => {
    const port = await freePort()
    const file = join(dir, 'redis-config.json')
    await writeFile(file, JSON.stringify({ redis: `redis://127.0.0.1:${port}` }))
    const fromFile = await runCli(['--config', file, '--port', '0'])
    expect(fromFile.code, fromFile.stderr).toBe(2)
    expect(fromFile.stderr).toContain(`redis://127.0.0.1:${port}`)
  })

  it('never prints the password of the URL', async () => {
    const result = await runCli(['--port', '0', '--redis', 'redis://u:secret@127.0.0.1:1'])
    expect(result.code).toBe(2)
    expect(`${result.stdout}${result.stderr}`).not.toContain('secret')
    expect(result.stderr).toContain('127.0.0.1:1')
  })

  it('refuses --redis with --state-file (exit 2)', async () => {
    const result = await runCli(['--port', '0', '--redis', redis.url, '--state-file', join(dir, 'state.json')])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--state-file')
    expect(result.stdout).not.toContain('listening on')
  })

  it('refuses a --redis value that is not a Redis URL, without echoing its password (exit 2)', async () => {
    const result = await runCli(['--port', '0', '--redis', 'http://u:secret@127.0.0.1:6379'])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/redis:\/\//)
    expect(result.stderr).not.toContain('secret')
  })

  it('names the shared world in its banner', async () => {
    const replica = await startReplica(redis.url)
    expect(replica.stdout()).toContain(`Shared world: every session lives in Redis at redis://127.0.0.1:${redis.port}`)
    await killReplica(replica)
  })
})
