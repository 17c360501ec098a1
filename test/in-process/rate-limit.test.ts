/**
 * Rate limits, bans and the clock through msw's setupServer, as an SDK test suite sees them (spec "Limits";
 * docs/spec-decisions.md rows 22-32).
 */
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createPetStore } from '../../src/index.js'

const petStore = createPetStore({ seed: 1, pets: 5 })
const server = setupServer(...petStore.handlers)
const BASE = 'https://api.petstore.test/v1'
const NOON = '2026-06-01T12:00:00Z'
const NOON_S = Date.parse(NOON) / 1000

const get = (path: string, key = 'test-free') => fetch(`${BASE}${path}`, { headers: { Authorization: `Bearer ${key}` } })
async function send(times: number, key = 'test-free'): Promise<Response> {
  let last: Response | undefined
  for (let i = 0; i < times; i++) last = await get('/pets?limit=1', key)
  return last as Response
}
async function errorCode(response: Response): Promise<string> {
  return ((await response.json()) as { code: string }).code
}

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
afterAll(() => server.close())
beforeEach(async () => {
  await petStore.reset()
  petStore.clock.set(NOON)
})

describe('rate limits in-process', () => {
  it('answers the 61st request of a Free key in a minute with a 429 carrying every rate-limit header', async () => {
    const sixtieth = await send(60)
    expect(sixtieth.status).toBe(200)
    expect(sixtieth.headers.get('x-ratelimit-remaining')).toBe('0')
    const response = await get('/pets')
    expect(response.status).toBe(429)
    expect(Object.fromEntries(response.headers)).toMatchObject({
      'content-type': 'application/json',
      'x-ratelimit-limit': '60',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(NOON_S + 60),
      'retry-after': '60',
    })
    expect(await response.json()).toEqual({ code: 'rate_limited', message: expect.stringContaining('60 requests per minute'), status: 429 })
  })

  it('answers 200 again after clock.advance(60_000)', async () => {
    await send(61)
    petStore.clock.advance(60_000)
    const response = await get('/pets')
    expect(response.status).toBe(200)
    expect(response.headers.get('x-ratelimit-remaining')).toBe('59')
  })

  it('answers the 1,001st request of a day with the daily figures', async () => {
    for (let minute = 0; minute < 17; minute++) {
      await send(minute < 16 ? 60 : 40)
      petStore.clock.advance(60_000)
    }
    const response = await get('/pets')
    const midnight = Date.parse('2026-06-02T00:00:00Z') / 1000
    expect(response.status).toBe(429)
    expect(Object.fromEntries(response.headers)).toMatchObject({
      'x-ratelimit-limit': '1000',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(midnight),
      'retry-after': String(midnight - (NOON_S + 17 * 60)),
    })
  })

  it('counts requests answered with a 4xx error (400, 404) against the minute quota', async () => {
    await get('/pets?limit=0')
    await get('/pets/999999')
    const response = await get('/pets')
    expect(response.headers.get('x-ratelimit-remaining')).toBe('57')
  })

  const withoutKey = () => fetch(`${BASE}/pets`)

  it('reports the Free minute window on the 401 to a request without a valid key', async () => {
    const response = await withoutKey()
    expect(response.status).toBe(401)
    expect(response.headers.get('x-ratelimit-limit')).toBe('60')
    expect(response.headers.get('x-ratelimit-remaining')).toBe('60')
  })

  it('does not count a request without a valid key', async () => {
    await withoutKey()
    expect((await get('/pets')).headers.get('x-ratelimit-remaining')).toBe('59')
  })

  /** Uses up the Free minute, then retries early five times: four answered rate_limited, the fifth `banned`. */
  async function retryEarlyFiveTimes() {
    await send(61)
    const early = await send(4)
    const banned = await get('/pets')
    return { early, banned }
  }

  it('bans a key that keeps retrying before Retry-After for 15 minutes', async () => {
    const { early, banned } = await retryEarlyFiveTimes()
    expect(await errorCode(early)).toBe('rate_limited')
    expect(banned.status).toBe(429)
    expect(await errorCode(banned)).toBe('key_temporarily_banned')
    expect(banned.headers.get('retry-after')).toBe('900')
    petStore.clock.advance(10 * 60_000)
    const stillBanned = await get('/pets')
    expect(await errorCode(stillBanned)).toBe('key_temporarily_banned')
    expect(stillBanned.headers.get('retry-after')).toBe('300')
  })

  it('lifts a ban 15 minutes after it began', async () => {
    await retryEarlyFiveTimes()
    petStore.clock.advance(15 * 60_000)
    expect((await get('/pets')).status).toBe(200)
  })

  it('gives exactly as many successes as remain to 100 concurrent requests', async () => {
    await send(2)
    const responses = await Promise.all(Array.from({ length: 100 }, () => get('/pets?limit=1')))
    const statuses = responses.map((response) => response.status)
    expect(statuses.filter((status) => status === 200)).toHaveLength(58)
    expect(statuses.filter((status) => status === 429)).toHaveLength(42)
  })

  it('keeps the counters of two stores apart', async () => {
    const other = createPetStore({ seed: 1, clock: NOON })
    await send(60)
    const response = await other.fetch('/v1/pets', { headers: { Authorization: 'Bearer test-free' } })
    expect(response.headers.get('x-ratelimit-remaining')).toBe('59')
  })

  describe('the deprecated getPet, a second before its sunset', () => {
    beforeEach(() => {
      petStore.clock.set('2030-12-04T23:59:59Z')
    })

    it('serves it with its Sunset header', async () => {
      const before = await get('/pets/1', 'test-pro')
      expect(before.status).toBe(200)
      expect(before.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT')
    })

    it('answers it with 410 from the sunset on, its Sunset header still sent', async () => {
      petStore.clock.advance(1_000)
      const after = await get('/pets/1', 'test-pro')
      expect(after.status).toBe(410)
      expect(after.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT')
      expect(await after.json()).toEqual({ code: 'gone', message: expect.stringContaining('GET /v1/pets'), status: 410 })
    })
  })

  it('returns the clock to real time on reset()', async () => {
    expect(petStore.clock.frozen).toBe(true)
    await petStore.reset()
    expect(petStore.clock.frozen).toBe(false)
    // Real time: read between two readings of this machine's clock.
    const before = Date.now()
    const now = petStore.clock.now()
    expect(now).toBeGreaterThanOrEqual(before)
    expect(now).toBeLessThanOrEqual(Date.now())
  })

  it('returns a clock pinned by the clock option to its moment on reset(), frozen', async () => {
    const pinned = createPetStore({ seed: 1, pets: 5, clock: NOON })
    pinned.clock.advance(90_000)
    await pinned.reset()
    expect(pinned.clock.frozen).toBe(true)
    expect(new Date(pinned.clock.now()).toISOString()).toBe('2026-06-01T12:00:00.000Z')
    pinned.clock.useRealTime()
    await pinned.useScenario('default')
    expect(new Date(pinned.clock.now()).toISOString()).toBe('2026-06-01T12:00:00.000Z')
  })
})
