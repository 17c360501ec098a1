/**
 * Rate limits per key: a fixed UTC-minute window and a fixed UTC-day window, 429 with
 * `Retry-After` when either is used up, and a temporary ban for a key that keeps sending
 * before its `Retry-After` has passed.
 *
 * @see ../shared/spec/pet-store-service.md "Limits"; decisions in docs/spec-decisions.md
 */
import { BAN_DEFAULTS, DAY_MS as DAY, type Limits, MINUTE_MS as MINUTE, PLAN_LIMITS } from '../spec.js'
import type { Quota, QuotaDecision } from './api.js'
import type { ApiKey } from './types.js'

export interface RateLimitOptions {
  /** The early retry (sent before `Retry-After` has passed) that bans the key. Default 5. */
  readonly banAfterEarlyRetries: number
  /** How long a ban lasts, in ms. Default 15 minutes. */
  readonly banDurationMs: number
  /** `Retry-After` as whole seconds (default) or as an HTTP-date. */
  readonly retryAfterFormat: 'seconds' | 'http-date'
  /** What a 401 reports: the Free plan's minute window, not counted (default), or no headers. */
  readonly unauthenticatedHeaders: 'free-plan' | 'omit'
  /** The limits a 401 reports with `free-plan`. */
  readonly freePlan: Limits
}

export const DEFAULT_RATE_LIMIT_OPTIONS: RateLimitOptions = {
  banAfterEarlyRetries: BAN_DEFAULTS.afterEarlyRetries,
  banDurationMs: BAN_DEFAULTS.durationMs,
  retryAfterFormat: 'seconds',
  unauthenticatedHeaders: 'free-plan',
  freePlan: PLAN_LIMITS.free,
}

/** One key's counters, as plain data (exported in state snapshots). */
export interface KeyCounters {
  minuteStart: number
  minuteCount: number
  dayStart: number
  dayCount: number
  /** When the last 429 told the key it may retry (0: not limited). */
  retryAt: number
  /** Requests sent before `retryAt` since the last 429 of this limited period. */
  earlyRetries: number
  /** End of the key's ban (0: not banned). */
  bannedUntil: number
}

/** A quota with counters the admin side reads and sets: in memory (`RateLimiter`) or shared (`--redis`). */
export interface QuotaStore extends Quota {
  /** The counters of a key, for inspection and snapshots. */
  counters(key: string): Readonly<KeyCounters> | undefined
  /**
   * Replaces a key's counters (scenarios, timeline stages, `POST /__mock/keys/:key`, restore). A shared store returns its
   * write, awaited before saying it is done; it never rejects unhandled (a caller may drop it: the next request fails alike).
   */
  setCounters(key: string, counters: KeyCounters): Promise<unknown> | undefined
  /** Every key's counters. */
  snapshot(): Record<string, KeyCounters>
  /** Forgets every counter and ban. */
  reset(): void
}

export interface RateLimiter extends QuotaStore {
  /** Decides at once: the counters are in this process's memory. */
  consume(key: ApiKey): QuotaDecision
}

const seconds = (ms: number): string => String(Math.ceil(ms / 1000))

/** `'000'` to `'999'`: the groups of three digits `intText` writes. */
const TRIPLES: readonly string[] = Object.freeze(Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0')))

/**
 * The decimal text of a whole number, as `String` writes it. V8 writes a number past 2^31 through its general
 * floating-point printer, slower than its integer path; a custom plan's limits (an enterprise key's) are that large,
 * and every answer carries two of them. Here, the last nine digits come from a table. Not from `String` of the rest:
 * V8 keeps the text of each small number it writes in its number-to-string cache, so a count that differs on every
 * request left one string per request alive past two collections (`npm run bench -- --only=gc` shows the promotion).
 */
export function intText(value: number): string {
  if (value < 1e9 || !Number.isSafeInteger(value)) return String(value)
  // `%` is exact on whole numbers, and so is dividing out what is left (a multiple of 10^9).
  const rest = value % 1e9
  const units = rest % 1000
  const thousands = ((rest - units) / 1000) % 1000
  const millions = (rest - thousands * 1000 - units) / 1e6
  return `${(value - rest) / 1e9}${TRIPLES[millions]}${TRIPLES[thousands]}${TRIPLES[units]}`
}

/** The `X-RateLimit-*` headers of one answer: a new object each time (the core adds the answer's own headers to it). */
export type RateHeaders = (limit: number, remaining: number, resetAt: number) => Record<string, string>

/**
 * A quota's `RateHeaders`, keeping the text of the last limit and reset it wrote: a key's limit is the same on every
 * answer and its reset for a minute, so only the remaining count is written each time. One per quota.
 *
 * @example
 * const rateHeaders = createRateHeaders()
 * rateHeaders(60, 59, at) // { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59', 'x-ratelimit-reset': '…' }
 */
export function createRateHeaders(): RateHeaders {
  let limitOf = Number.NaN
  let limitText = ''
  let resetOf = Number.NaN
  let resetText = ''
  return (limit, remaining, resetAt) => {
    if (limit !== limitOf) {
      limitOf = limit
      limitText = intText(limit)
    }
    if (resetAt !== resetOf) {
      resetOf = resetAt
      resetText = seconds(resetAt)
    }
    return {
      'x-ratelimit-limit': limitText,
      'x-ratelimit-remaining': intText(Math.max(0, remaining)),
      'x-ratelimit-reset': resetText,
    }
  }
}

/** `Retry-After` for a retry allowed at `at`, asked at `from`: whole seconds (at least 1) or an HTTP-date. */
function retryAfterValue(options: RateLimitOptions, at: number, from: number): string {
  return options.retryAfterFormat === 'http-date'
    ? new Date(Math.ceil(at / 1000) * 1000).toUTCString()
    : String(Math.max(1, Math.ceil((at - from) / 1000)))
}

/** Rolls both windows of `counters` forward to `at`. */
export function roll(counters: KeyCounters, at: number): KeyCounters {
  const minuteStart = at - (((at % MINUTE) + MINUTE) % MINUTE)
  const dayStart = at - (((at % DAY) + DAY) % DAY)
  if (counters.minuteStart !== minuteStart) {
    counters.minuteStart = minuteStart
    counters.minuteCount = 0
  }
  if (counters.dayStart !== dayStart) {
    counters.dayStart = dayStart
    counters.dayCount = 0
  }
  return counters
}

/**
 * What the counters decided for one request, as plain data: the in-memory limiter and a shared one (a Lua script in
 * Redis, `--redis`) both compute it, and `decisionOf` turns it into the same headers and messages.
 */
export type QuotaOutcome =
  | { readonly type: 'ok'; readonly limit: number; readonly remaining: number; readonly resetAt: number }
  /** The key is banned (since an earlier request): `until` is when the ban ends. */
  | { readonly type: 'banned'; readonly limit: number; readonly until: number }
  /** This request earned the ban. */
  | { readonly type: 'ban'; readonly limit: number; readonly until: number }
  | { readonly type: 'limited'; readonly limit: number; readonly resetAt: number; readonly day: boolean }

/** The headers (written by the quota's `rateHeaders`) and Error body of an outcome, asked at `at`. */
export function decisionOf(
  outcome: QuotaOutcome,
  key: ApiKey,
  at: number,
  options: RateLimitOptions,
  rateHeaders: RateHeaders,
): QuotaDecision {
  switch (outcome.type) {
    case 'ok':
      return { ok: true, headers: rateHeaders(outcome.limit, outcome.remaining, outcome.resetAt) }
    case 'banned':
      return {
        ok: false,
        code: 'key_temporarily_banned',
        rule: 'rate.ban',
        message: `API key is temporarily banned for retrying before Retry-After had passed; the ban ends at ${new Date(outcome.until).toISOString()}.`,
        headers: withRetryAfter(rateHeaders(outcome.limit, 0, outcome.until), retryAfterValue(options, outcome.until, at)),
      }
    case 'ban':
      return {
        ok: false,
        code: 'key_temporarily_banned',
        rule: 'rate.ban',
        banStarted: true,
        message: `API key is temporarily banned for ${seconds(options.banDurationMs)} s: it sent ${options.banAfterEarlyRetries} requests before Retry-After had passed.`,
        headers: withRetryAfter(rateHeaders(outcome.limit, 0, outcome.until), retryAfterValue(options, outcome.until, at)),
      }
    case 'limited': {
      const retryAfter = retryAfterValue(options, outcome.resetAt, at)
      return {
        ok: false,
        code: 'rate_limited',
        rule: outcome.day ? 'rate.day-window' : 'rate.minute-window',
        message: `Rate limit exceeded: ${outcome.limit} requests per ${outcome.day ? 'day' : 'minute'} for the ${key.plan} plan. Retry after ${retryAfter}${options.retryAfterFormat === 'seconds' ? ' s' : ''}.`,
        headers: withRetryAfter(rateHeaders(outcome.limit, 0, outcome.resetAt), retryAfter),
      }
    }
  }
}

/**
 * `headers` (new for this answer) with `Retry-After` set on it. Set, not spread into a new object: a spread then a new
 * key gives each answer a hidden class of its own in V8, and a load of 429s then keeps the collector busy
 * (`npm run bench -- --only=over-limit`).
 */
function withRetryAfter(headers: Record<string, string>, retryAfter: string): Record<string, string> {
  headers['retry-after'] = retryAfter
  return headers
}

/** The window currently applying: fewer requests remaining; on a tie, the one resetting first. */
function applying(limits: Limits, counters: KeyCounters): QuotaOutcome & { type: 'ok' } {
  const minuteRemaining = limits.perMinute - counters.minuteCount
  const dayRemaining = limits.perDay - counters.dayCount
  return dayRemaining < minuteRemaining
    ? { type: 'ok', limit: limits.perDay, remaining: dayRemaining, resetAt: counters.dayStart + DAY }
    : { type: 'ok', limit: limits.perMinute, remaining: minuteRemaining, resetAt: counters.minuteStart + MINUTE }
}

/**
 * Counts one request in `counters` (rolled to `at`), changing them in place, and says what it decided.
 * `src/server/redis/scripts.ts` does the same in Lua; a test runs both on the same sequences.
 * @see ../shared/spec/pet-store-service.md "Limits", "Exceeding the limit"
 */
export function countRequest(limits: Limits, counters: KeyCounters, at: number, options: RateLimitOptions): QuotaOutcome {
  if (counters.bannedUntil > at) return { type: 'banned', limit: applying(limits, counters).limit, until: counters.bannedUntil }
  const dayUsedUp = counters.dayCount >= limits.perDay
  if (dayUsedUp || counters.minuteCount >= limits.perMinute) {
    // The binding window is the one that frees the key last: the day when it is used up.
    const limit = dayUsedUp ? limits.perDay : limits.perMinute
    const resetAt = dayUsedUp ? counters.dayStart + DAY : counters.minuteStart + MINUTE
    if (counters.retryAt > at) {
      counters.earlyRetries += 1
      if (counters.earlyRetries >= options.banAfterEarlyRetries) {
        counters.bannedUntil = at + options.banDurationMs
        counters.retryAt = 0
        counters.earlyRetries = 0
        return { type: 'ban', limit, until: counters.bannedUntil }
      }
    } else {
      counters.earlyRetries = 0
    }
    counters.retryAt = resetAt
    return { type: 'limited', limit, resetAt, day: dayUsedUp }
  }
  counters.minuteCount += 1
  counters.dayCount += 1
  counters.retryAt = 0
  counters.earlyRetries = 0
  return applying(limits, counters)
}

/**
 * Creates the rate limiter of one world. `now` is the world's clock.
 *
 * @example
 * const limiter = createRateLimiter({ now: clock.now })
 * const decision = limiter.consume(key) // { ok: true, headers: { 'x-ratelimit-limit': '60', … } }
 */
export function createRateLimiter({
  now,
  options = DEFAULT_RATE_LIMIT_OPTIONS,
}: {
  now: () => number
  options?: RateLimitOptions
}): RateLimiter {
  const state = new Map<string, KeyCounters>()
  const rateHeaders = createRateHeaders()

  /** The key's counters with both windows rolled forward to `at`. */
  const current = (key: string, at: number): KeyCounters => {
    let counters = state.get(key)
    if (!counters) {
      counters = { minuteStart: 0, minuteCount: 0, dayStart: 0, dayCount: 0, retryAt: 0, earlyRetries: 0, bannedUntil: 0 }
      state.set(key, counters)
    }
    return roll(counters, at)
  }

  const consume = (key: ApiKey): QuotaDecision => {
    const at = now()
    return decisionOf(countRequest(key.limits, current(key.key, at), at, options), key, at, options, rateHeaders)
  }

  return {
    consume,
    unauthenticated() {
      if (options.unauthenticatedHeaders === 'omit') return {}
      const at = now()
      const minuteEnd = at - (((at % MINUTE) + MINUTE) % MINUTE) + MINUTE
      return rateHeaders(options.freePlan.perMinute, options.freePlan.perMinute, minuteEnd)
    },
    counters: (key) => state.get(key),
    setCounters(key, counters) {
      state.set(key, { ...counters })
      return undefined
    },
    snapshot: () => Object.fromEntries([...state].map(([key, counters]) => [key, { ...counters }])),
    reset() {
      state.clear()
    },
  }
}
