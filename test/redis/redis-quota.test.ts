/**
 * The rate-limit rules run twice: in memory (`countRequest`, src/core/rate-limit.ts) and as the Lua script every
 * replica shares (`CONSUME`, src/server/redis/scripts.ts). Same sequences of requests and clock moves in, same
 * decisions and counters out, or this fails naming the first step where they part.
 */
import fc from 'fast-check'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { countRequest, DEFAULT_RATE_LIMIT_OPTIONS, type KeyCounters, roll } from '../../src/core/rate-limit.js'
import { connectRedis, type RedisLink } from '../../src/server/redis/link.js'
import { consumeReplyOf } from '../../src/server/redis/store.js'
import { type PrivateRedis, startRedis, stopRedises } from './redis-support.js'

let redis: PrivateRedis
let link: RedisLink

beforeAll(async () => {
  redis = await startRedis()
  link = await connectRedis(redis.url)
})

afterAll(async () => {
  await link?.close()
  await stopRedises()
})

const limits = { perMinute: 3, perDay: 7 }
const options = { ...DEFAULT_RATE_LIMIT_OPTIONS, banAfterEarlyRetries: 2, banDurationMs: 90_000 }

it('decides every request of a random sequence as the in-memory limiter does, counters included', async () => {
  let run = 0
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.constantFrom(0, 0, 0, 1_000, 20_000, 61_000, 3_600_000, 86_400_000), { minLength: 1, maxLength: 40 }),
      async (steps) => {
        run += 1
        const key = `k${run}`
        let at = Date.parse('2026-06-01T23:58:30Z')
        const memory: KeyCounters = {
          minuteStart: 0,
          minuteCount: 0,
          dayStart: 0,
          dayCount: 0,
          retryAt: 0,
          earlyRetries: 0,
          bannedUntil: 0,
        }
        for (const [i, step] of steps.entries()) {
          at += step
          const expected = countRequest(limits, roll(memory, at), at, options)
          const args = [
            key,
            String(limits.perMinute),
            String(limits.perDay),
            String(at),
            String(options.banAfterEarlyRetries),
            String(options.banDurationMs),
          ]
          const got = consumeReplyOf((await link.run('CONSUME', ['quota-test:rl'], args)) as string[])
          expect({ step: i, ...got }).toEqual({ step: i, outcome: expected, counters: { ...memory } })
        }
      },
    ),
    { numRuns: 60 },
  )
  expect(run).toBeGreaterThanOrEqual(60)
}, 60_000)
