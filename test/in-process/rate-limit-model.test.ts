/**
 * Model-based test of rate limits and bans (spec "Limits"; docs/spec-decisions.md rows 22-31): random sequences of
 * requests and clock moves, each response checked against a small reference model that recomputes everything from a log
 * of accepted request times instead of counters.
 */
import fc from 'fast-check'
import { expect, it } from 'vitest'
import { createPetStore } from '../../src/index.js'

const MINUTE = 60_000
const DAY = 86_400_000
const LIMITS = { perMinute: 4, perDay: 11 }
const BAN_AFTER = 3
const BAN_MS = 150_000

interface Expected {
  status: number
  code?: string
  limit: number
  remaining: number
  reset: number
  retryAfter?: number
}

function createModel() {
  const accepted: number[] = []
  let retryAt = 0
  let early = 0
  let bannedUntil = 0
  const inWindow = (t: number, size: number) => accepted.filter((a) => Math.floor(a / size) === Math.floor(t / size)).length
  return (t: number): Expected => {
    const minuteUsed = inWindow(t, MINUTE)
    const dayUsed = inWindow(t, DAY)
    const minuteEnd = (Math.floor(t / MINUTE) + 1) * MINUTE
    const dayEnd = (Math.floor(t / DAY) + 1) * DAY
    const report = (m: number, d: number) =>
      LIMITS.perDay - d < LIMITS.perMinute - m
        ? { limit: LIMITS.perDay, remaining: LIMITS.perDay - d, reset: dayEnd / 1000 }
        : { limit: LIMITS.perMinute, remaining: LIMITS.perMinute - m, reset: minuteEnd / 1000 }
    if (t < bannedUntil) {
      return {
        status: 429,
        code: 'key_temporarily_banned',
        ...report(minuteUsed, dayUsed),
        remaining: 0,
        reset: Math.ceil(bannedUntil / 1000),
        retryAfter: Math.max(1, Math.ceil((bannedUntil - t) / 1000)),
      }
    }
    if (minuteUsed >= LIMITS.perMinute || dayUsed >= LIMITS.perDay) {
      const daily = dayUsed >= LIMITS.perDay
      const resetAt = daily ? dayEnd : minuteEnd
      if (t < retryAt) {
        early += 1
        if (early === BAN_AFTER) {
          bannedUntil = t + BAN_MS
          retryAt = 0
          early = 0
          return {
            status: 429,
            code: 'key_temporarily_banned',
            limit: daily ? LIMITS.perDay : LIMITS.perMinute,
            remaining: 0,
            reset: Math.ceil(bannedUntil / 1000),
            retryAfter: BAN_MS / 1000,
          }
        }
      } else {
        early = 0
      }
      retryAt = resetAt
      return {
        status: 429,
        code: 'rate_limited',
        limit: daily ? LIMITS.perDay : LIMITS.perMinute,
        remaining: 0,
        reset: resetAt / 1000,
        retryAfter: Math.max(1, Math.ceil((resetAt - t) / 1000)),
      }
    }
    accepted.push(t)
    retryAt = 0
    early = 0
    return { status: 200, ...report(minuteUsed + 1, dayUsed + 1) }
  }
}

type Command = { kind: 'request' } | { kind: 'advance'; ms: number }

const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: 'request' as const }) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 3_000 }).map((ms) => ({ kind: 'advance' as const, ms })) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 2 * MINUTE }).map((ms) => ({ kind: 'advance' as const, ms })) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 2 * DAY }).map((ms) => ({ kind: 'advance' as const, ms })) },
)

it('answers every request of a random sequence as the reference model does', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 0, max: 4 * DAY }),
      fc.array(command, { minLength: 1, maxLength: 120 }),
      async (startOffset, commands) => {
        const start = Date.parse('2026-03-01T00:00:00Z') + startOffset
        const petStore = createPetStore({
          pets: 3,
          clock: start,
          keys: [{ key: 'k', plan: 'enterprise', limits: LIMITS }],
          rateLimit: { banAfterEarlyRetries: BAN_AFTER, banDurationSeconds: BAN_MS / 1000 },
        })
        const model = createModel()
        for (const step of commands) {
          if (step.kind === 'advance') {
            petStore.clock.advance(step.ms)
            continue
          }
          const expected = model(petStore.clock.now())
          const response = await petStore.fetch('/v1/pets?limit=1', { headers: { authorization: 'Bearer k' } })
          const body = (await response.json()) as { code?: string }
          const actual: Expected = {
            status: response.status,
            limit: Number(response.headers.get('x-ratelimit-limit')),
            remaining: Number(response.headers.get('x-ratelimit-remaining')),
            reset: Number(response.headers.get('x-ratelimit-reset')),
          }
          if (response.status !== 200) actual.code = body.code as string
          if (response.headers.has('retry-after')) actual.retryAfter = Number(response.headers.get('retry-after'))
          expect(actual).toEqual(expected)
        }
      },
    ),
    { numRuns: 150 },
  )
})
