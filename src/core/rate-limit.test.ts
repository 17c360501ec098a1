import { describe, expect, it } from 'vitest'
import { createClock } from '../clock.js'
import { resolveKeys } from '../keys.js'
import type { QuotaDecision } from './api.js'
import { createRateLimiter, DEFAULT_RATE_LIMIT_OPTIONS, intText } from './rate-limit.js'
import type { ApiKey } from './types.js'

const keys = resolveKeys([
  { key: 'free', plan: 'free' },
  { key: 'pro', plan: 'pro' },
  { key: 'custom', plan: 'enterprise', limits: { perMinute: 3, perDay: 5 } },
  { key: 'enterprise', plan: 'enterprise' },
])
const key = (name: string) => keys.get(name) as ApiKey
const NOON = Date.parse('2026-06-01T12:00:00Z')
const NEXT_MINUTE = NOON / 1000 + 60
const MIDNIGHT = Date.parse('2026-06-02T00:00:00Z') / 1000

function setup(options = DEFAULT_RATE_LIMIT_OPTIONS) {
  const clock = createClock()
  clock.set(NOON)
  const limiter = createRateLimiter({ now: clock.now, options })
  const send = (name: string, times = 1): QuotaDecision => {
    let decision: QuotaDecision | undefined
    for (let i = 0; i < times; i++) decision = limiter.consume(key(name))
    return decision as QuotaDecision
  }
  return { clock, limiter, send }
}

describe('createRateLimiter', () => {
  it("writes each answer its own key's rate-limit headers, for keys of different plans taking turns across minutes", () => {
    // Free 60/min and Pro 300/min (spec "Limits"); the custom key's day (5) binds once it has fewer left than its minute.
    const { clock, send } = setup()
    const expected = { free: 60, pro: 300 } as const
    for (let minute = 0; minute < 3; minute++) {
      const reset = String(NEXT_MINUTE + 60 * minute)
      for (let i = 1; i <= 2; i++) {
        for (const name of ['free', 'pro'] as const) {
          expect(send(name).headers, `${name} minute ${minute} request ${i}`).toEqual({
            'x-ratelimit-limit': String(expected[name]),
            'x-ratelimit-remaining': String(expected[name] - i),
            'x-ratelimit-reset': reset,
          })
        }
      }
      clock.advance(60_000)
    }
    expect(send('custom').headers).toEqual({
      'x-ratelimit-limit': '3',
      'x-ratelimit-remaining': '2',
      'x-ratelimit-reset': String(NEXT_MINUTE + 180),
    })
    send('custom', 2)
    clock.advance(60_000)
    expect(send('custom').headers).toEqual({
      'x-ratelimit-limit': '5',
      'x-ratelimit-remaining': '1',
      'x-ratelimit-reset': String(MIDNIGHT),
    })
  })

  it('reports the minute window on the first request of a Free key', () => {
    const { send } = setup()
    expect(send('free')).toEqual({
      ok: true,
      headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': String(NEXT_MINUTE) },
    })
  })

  it('allows 60 requests of a Free key in a minute', () => {
    const { send } = setup()
    send('free')
    expect(send('free', 59)).toMatchObject({ ok: true, headers: { 'x-ratelimit-remaining': '0' } })
  })

  it('answers the 61st request in a minute with 429: Remaining 0, Retry-After until the minute ends', () => {
    const { clock, send } = setup()
    send('free', 60)
    clock.advance(15_500)
    expect(send('free')).toMatchObject({
      ok: false,
      code: 'rate_limited',
      headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NEXT_MINUTE), 'retry-after': '45' },
    })
  })

  it('still limits at 59.999 s, with Retry-After rounded up to 1', () => {
    const { clock, send } = setup()
    send('free', 60)
    clock.advance(59_999)
    expect(send('free')).toMatchObject({ ok: false, headers: { 'retry-after': '1' } })
  })

  it('opens a new window at exactly 60 s', () => {
    const { clock, send } = setup()
    send('free', 60)
    clock.advance(60_000)
    expect(send('free')).toMatchObject({
      ok: true,
      headers: { 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': String(NEXT_MINUTE + 60) },
    })
  })

  it('does not count a request answered 429', () => {
    const { clock, limiter, send } = setup()
    send('free', 60)
    send('free', 3)
    expect(limiter.counters('free')).toMatchObject({ minuteCount: 60, dayCount: 60 })
    clock.advance(60_000)
    expect(send('free')).toMatchObject({ ok: true, headers: { 'x-ratelimit-remaining': '59' } })
  })

  it('reports the day window once it has fewer requests remaining than the minute', () => {
    const { limiter, send } = setup()
    limiter.setCounters('free', { ...dayUsed(950) })
    expect(send('free')).toMatchObject({
      ok: true,
      headers: { 'x-ratelimit-limit': '1000', 'x-ratelimit-remaining': '49', 'x-ratelimit-reset': String(MIDNIGHT) },
    })
  })

  it('reports the minute window on a tie, since it resets first', () => {
    const { limiter, send } = setup()
    limiter.setCounters('free', { ...dayUsed(939) }) // after this request: minute 59 left, day 60 left
    expect(send('free')).toMatchObject({ headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59' } })
    limiter.setCounters('free', { ...dayUsed(940) }) // after this request: both 59 left
    expect(send('free')).toMatchObject({ headers: { 'x-ratelimit-limit': '60' } })
  })

  it('answers the 1,001st request of a day with the daily figures, resetting at the next UTC midnight', () => {
    const { limiter, send } = setup()
    limiter.setCounters('free', { ...dayUsed(1000) })
    expect(send('free')).toMatchObject({
      ok: false,
      code: 'rate_limited',
      headers: {
        'x-ratelimit-limit': '1000',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(MIDNIGHT),
        'retry-after': String(MIDNIGHT - NOON / 1000),
      },
    })
  })

  it('starts a new day at UTC midnight', () => {
    const { clock, limiter, send } = setup()
    limiter.setCounters('free', { ...dayUsed(1000) })
    clock.set(MIDNIGHT * 1000)
    expect(send('free')).toMatchObject({ ok: true, headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59' } })
  })

  it('bans a key on its 5th request before Retry-After has passed, for 15 minutes', () => {
    const { clock, send } = setup()
    send('free', 60)
    expect(send('free')).toMatchObject({ code: 'rate_limited' }) // Retry-After: 60
    for (let i = 1; i <= 4; i++) {
      clock.advance(1_000)
      expect(send('free')).toMatchObject({ code: 'rate_limited' })
    }
    clock.advance(1_000)
    expect(send('free')).toMatchObject({
      ok: false,
      code: 'key_temporarily_banned',
      headers: { 'retry-after': '900', 'x-ratelimit-remaining': '0' },
    })
  })

  it('answers a banned key with the ban time left, whatever its windows say', () => {
    const { clock, send } = setup()
    send('free', 60)
    send('free', 6) // the 6th 429 is the 5th early retry: banned at 12:00:00
    clock.advance(120_000) // the minute window is long fresh
    expect(send('free')).toMatchObject({ code: 'key_temporarily_banned', headers: { 'retry-after': '780' } })
  })

  it('ends the ban after 15 minutes', () => {
    const { clock, send } = setup()
    send('free', 66)
    clock.advance(15 * 60_000 - 1)
    expect(send('free')).toMatchObject({ code: 'key_temporarily_banned', headers: { 'retry-after': '1' } })
    clock.advance(1)
    expect(send('free')).toMatchObject({ ok: true })
  })

  it('does not ban a client that waits for Retry-After between 429s', () => {
    const { clock, send } = setup()
    for (let minute = 0; minute < 10; minute++) {
      send('free', 60)
      expect(send('free')).toMatchObject({ code: 'rate_limited' })
      clock.advance(60_000)
    }
    expect(send('free')).toMatchObject({ ok: true })
  })

  it('takes the ban thresholds from its options', () => {
    const { send } = setup({ ...DEFAULT_RATE_LIMIT_OPTIONS, banAfterEarlyRetries: 1, banDurationMs: 30_000 })
    send('free', 61)
    expect(send('free')).toMatchObject({ code: 'key_temporarily_banned', headers: { 'retry-after': '30' } })
  })

  it('applies Enterprise custom limits per key', () => {
    const { clock, send } = setup()
    expect(send('custom', 3)).toMatchObject({ ok: true, headers: { 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': '0' } })
    expect(send('custom')).toMatchObject({ ok: false, headers: { 'x-ratelimit-limit': '3' } })
    clock.advance(60_000)
    expect(send('custom', 2)).toMatchObject({ ok: true, headers: { 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '0' } })
    expect(send('custom')).toMatchObject({ ok: false, headers: { 'x-ratelimit-limit': '5', 'x-ratelimit-reset': String(MIDNIGHT) } })
    expect(send('enterprise')).toMatchObject({ ok: true, headers: { 'x-ratelimit-limit': '5000' } })
  })

  it('keeps separate counters per key', () => {
    const { send } = setup()
    send('free', 60)
    expect(send('pro')).toMatchObject({ ok: true, headers: { 'x-ratelimit-remaining': '299' } })
  })

  it('reports the Free minute window, uncounted, for requests without a valid key', () => {
    const { limiter } = setup()
    expect(limiter.unauthenticated()).toEqual({
      'x-ratelimit-limit': '60',
      'x-ratelimit-remaining': '60',
      'x-ratelimit-reset': String(NEXT_MINUTE),
    })
    const omit = createRateLimiter({ now: () => NOON, options: { ...DEFAULT_RATE_LIMIT_OPTIONS, unauthenticatedHeaders: 'omit' } })
    expect(omit.unauthenticated()).toEqual({})
  })

  it('writes Retry-After as an HTTP-date when asked', () => {
    const { send } = setup({ ...DEFAULT_RATE_LIMIT_OPTIONS, retryAfterFormat: 'http-date' })
    send('free', 60)
    expect(send('free')).toMatchObject({ headers: { 'retry-after': 'Mon, 01 Jun 2026 12:01:00 GMT' } })
  })

  it("clears a key's counters, its ban included, on reset", () => {
    const { limiter, send } = setup()
    send('free', 66)
    limiter.reset()
    expect(send('free')).toMatchObject({ ok: true, headers: { 'x-ratelimit-remaining': '59' } })
  })
})

function dayUsed(dayCount: number) {
  return {
    minuteStart: NOON,
    minuteCount: 0,
    dayStart: Date.parse('2026-06-01T00:00:00Z'),
    dayCount,
    retryAt: 0,
    earlyRetries: 0,
    bannedUntil: 0,
  }
}

describe('intText', () => {
  it('writes every whole number as String does, past 2^31, up to 2^53', () => {
    const values = [0, 7, 999_999_999, 1e9, 1e9 + 1, 2 ** 31, 999_999_999_999, 1e12, 1e15 - 1, 9_007_199_000_000_000 - 1]
    values.push(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER - 1, -5, -(2 ** 40), 2 ** 53, 1e21, 1.5e9 + 0.5)
    values.push(5_000_001_000, 7_000_000_001, 123_456_789_012, 1_000_100_000, 999_999_999_999, 4_020_003_004)
    // Just below a multiple of 10^9 near 2^53, where dividing by 10^9 rounds up to the next whole number.
    for (let k = 9_007_190; k <= 9_007_199; k++) values.push(k * 1e9 - 1, k * 1e9)
    for (const value of values) expect(intText(value)).toBe(String(value))
  })
})
