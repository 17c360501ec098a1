/**
 * A key's counters set by hand, as a scenario's `keys.start` states them (docs/scenarios.md): a window used up, a ban.
 * `POST /__mock/keys/:key` and the MCP tools `exhaust_quota` and `ban_key` share it; unlike a scenario's start, what
 * the body leaves out keeps the key's current use, so a ban does not hand back a used-up minute.
 * @see ../shared/spec/pet-store-service.md "Rate limits by plan", "Exceeding the limit"
 */
import type { KeyCounters, QuotaStore } from '../core/rate-limit.js'
import type { ApiKey } from '../core/types.js'
import { DAY_MS, MINUTE_MS } from '../spec.js'
import { misuse } from './options.js'

/** The fields of a scenario's `keys.start` entry. */
export interface KeyStartInput {
  readonly minuteUsed?: number | 'all' | undefined
  readonly dayUsed?: number | 'all' | undefined
  readonly bannedForSeconds?: number | undefined
}

const count = (value: unknown, name: string, limit: number): number | undefined => {
  if (value === undefined) return undefined
  if (value === 'all') return limit
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
    misuse(`"${name}" must be a whole number of requests or "all", got ${JSON.stringify(value)}.`)
  return value
}

/**
 * Sets `name`'s counters at `now`; throws a misuse naming the fix for an unknown key or a bad field. Returns a shared
 * store's write (`QuotaStore.setCounters`): await it before saying the key is set.
 *
 * @example
 * startKey(world.keys, world.rateLimiter, world.clock.now(), 'test-free', { minuteUsed: 'all' })
 */
export function startKey(
  keys: ReadonlyMap<string, ApiKey>,
  limiter: QuotaStore,
  now: number,
  name: string,
  start: KeyStartInput,
): Promise<unknown> | undefined {
  const key = keys.get(name)
  if (key === undefined) misuse(`No key ${JSON.stringify(name)} in this world. Known keys: ${[...keys.keys()].join(', ')}.`)
  const extra = Object.keys(start).filter((field) => !['minuteUsed', 'dayUsed', 'bannedForSeconds'].includes(field))
  if (extra.length > 0) misuse(`Unknown field "${extra[0]}": send minuteUsed, dayUsed (a number or "all") and/or bannedForSeconds.`)
  const ban = start.bannedForSeconds
  if (ban !== undefined && (typeof ban !== 'number' || !Number.isFinite(ban) || ban < 0 || ban > 366 * 86_400))
    misuse(`"bannedForSeconds" must be a number of seconds from 0 (lifts a ban) to a year, got ${JSON.stringify(ban)}.`)
  return limiter.setCounters(key.key, keyCounters(key, start, now, limiter.counters(key.key)))
}

/**
 * The counters `key` takes at `now` from a `keys.start` entry: what it leaves out is `current`'s use of this minute and
 * day and its ban (none when there is no `current`: a scenario's start begins from nothing).
 *
 * @example
 * limiter.setCounters(key.key, keyCounters(key, { minuteUsed: 'all' }, clock.now()))
 */
export function keyCounters(key: ApiKey, start: KeyStartInput, now: number, current?: KeyCounters): KeyCounters {
  const ban = start.bannedForSeconds
  const minuteStart = now - (now % MINUTE_MS)
  const dayStart = now - (now % DAY_MS)
  const minuteNow = current !== undefined && current.minuteStart === minuteStart ? current.minuteCount : 0
  const dayNow = current !== undefined && current.dayStart === dayStart ? current.dayCount : 0
  const minuteCount = count(start.minuteUsed, 'minuteUsed', key.limits.perMinute) ?? minuteNow
  const dayCount = count(start.dayUsed, 'dayUsed', key.limits.perDay) ?? dayNow
  return {
    minuteStart,
    minuteCount,
    dayStart,
    // A request of this minute is one of today's too.
    dayCount: Math.max(dayCount, minuteCount),
    retryAt: 0,
    earlyRetries: 0,
    bannedUntil: ban === undefined ? (current?.bannedUntil ?? 0) : ban === 0 ? 0 : now + ban * 1000,
  }
}
