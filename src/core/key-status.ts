/**
 * What each API key has left: the Keys table of the control panel and `GET /__mock/keys`. Read from the
 * rate limiter's counters without changing them (a window that has rolled over shows its full quota).
 */
import { DAY_MS as DAY, MINUTE_MS as MINUTE } from '../spec.js'
import type { KeyCounters } from './rate-limit.js'
import type { ApiKey, Plan } from './types.js'

export interface KeyStatus {
  /** The key as configured (the admin API already shows it in the state; the API's journal never does). */
  readonly key: string
  readonly plan: Plan
  readonly perMinute: number
  readonly perDay: number
  /** Requests left in the current UTC minute, and when that window ends (ISO 8601). */
  readonly minuteRemaining: number
  readonly minuteResetsAt: string
  /** Requests left in the current UTC day, and when that window ends (ISO 8601). */
  readonly dayRemaining: number
  readonly dayResetsAt: string
  /** When the key's temporary ban ends (ISO 8601), or `null` when it is not banned. */
  readonly bannedUntil: string | null
}

const windowStart = (at: number, size: number): number => at - (((at % size) + size) % size)

/**
 * @example
 * keyStatus({ key: 'test-free', plan: 'free', limits: { perMinute: 60, perDay: 1000 } }, limiter.counters('test-free'), clock.now())
 * // { key: 'test-free', plan: 'free', minuteRemaining: 60, … }
 */
export function keyStatus(key: ApiKey, counters: Readonly<KeyCounters> | undefined, at: number): KeyStatus {
  const minuteStart = windowStart(at, MINUTE)
  const dayStart = windowStart(at, DAY)
  const minuteUsed = counters?.minuteStart === minuteStart ? counters.minuteCount : 0
  const dayUsed = counters?.dayStart === dayStart ? counters.dayCount : 0
  const banned = counters !== undefined && counters.bannedUntil > at
  return {
    key: key.key,
    plan: key.plan,
    perMinute: key.limits.perMinute,
    perDay: key.limits.perDay,
    minuteRemaining: Math.max(0, key.limits.perMinute - minuteUsed),
    minuteResetsAt: new Date(minuteStart + MINUTE).toISOString(),
    dayRemaining: Math.max(0, key.limits.perDay - dayUsed),
    dayResetsAt: new Date(dayStart + DAY).toISOString(),
    bannedUntil: banned ? new Date(counters.bannedUntil).toISOString() : null,
  }
}
