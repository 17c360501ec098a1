/**
 * The request journal of one world: the last N exchanges it answered, newest last, for tests that
 * assert what a client sent and for the retry audit.
 */
import { parseJsonReadable, utf8Length } from './json.js'
import type { ApiRequest, ApiResponse, Plan } from './types.js'

/** One answered request. */
export interface JournalEntry {
  /** Sequence number in this world, from 1. */
  readonly seq: number
  /** When it was answered, on the world's clock (ms since the epoch). */
  readonly at: number
  /** The same moment as an ISO 8601 string. */
  readonly time: string
  readonly method: string
  readonly path: string
  readonly query: string
  /** The key's plan and last 4 characters (`pro …-pro`), never the whole key; `undefined` without a valid key. */
  readonly key: string | undefined
  readonly plan: Plan | undefined
  readonly operation: string | undefined
  readonly bodySize: number
  /** The request body parsed as JSON (integers beyond 2^53 as exact `bigint`s), or `undefined` when there was none or it was not JSON. */
  readonly body: unknown
  readonly status: number
  /** The `X-RateLimit-*` and `Retry-After` headers sent, as numbers where they are numbers. */
  readonly rateLimit: { limit?: number; remaining?: number; reset?: number; retryAfter?: number; retryAt?: number }
  /** The error `code` of a non-2xx answer. */
  readonly code: string | undefined
  /** The scenario that applied, if any. */
  readonly scenario: string | undefined
  /** The fault a scenario injected, if any (e.g. `latency`, `network-error`, `status-503`). */
  readonly fault: string | undefined
  /** The order in which requests reached this world (1, 2, …); answers may be recorded in another order. */
  readonly arrival: number
  /**
   * The arrival number of the first request that came in after the host handed this answer to the
   * client, or `undefined` when the host did not say. Requests that arrived earlier were in flight:
   * the client could not have seen this answer yet.
   */
  readonly delivered: number | undefined
}

/** Filters of `find`: each given field must match. */
export interface JournalFilter {
  method?: string
  /** A path, or a RegExp tested against it. */
  path?: string | RegExp
  status?: number
  plan?: Plan
  operation?: string
  code?: string
}

export interface Journal {
  all(): JournalEntry[]
  find(filter?: JournalFilter): JournalEntry[]
  clear(): void
  /** Resolves with the first entry (already recorded or coming) that matches, or rejects after `timeout` ms (default 5,000). */
  waitFor(predicate: (entry: JournalEntry) => boolean, options?: { timeout?: number }): Promise<JournalEntry>
  /** How many entries it keeps. */
  readonly limit: number
}

export interface JournalRecorder extends Journal {
  record(
    request: ApiRequest,
    response: ApiResponse,
    extra: { arrival: number; scenario?: string | undefined; fault?: string | undefined },
  ): void
  /** The host handed `response` to the client when `nextArrival` was the next arrival number. */
  delivered(response: ApiResponse, nextArrival: number): void
}

const numberOr = (value: string | undefined): number | undefined => {
  if (value === undefined) return undefined
  const n = Number(value)
  return Number.isFinite(n) ? n : undefined
}

/** When a `Retry-After` (seconds or an HTTP-date) lets the client retry, in ms since the epoch. */
function retryAt(at: number, header: string | undefined): number | undefined {
  if (header === undefined) return undefined
  const seconds = numberOr(header)
  if (seconds !== undefined) return at + seconds * 1000
  const date = Date.parse(header)
  return Number.isFinite(date) ? date : undefined
}

function parseBody(text: string | undefined): unknown {
  if (text === undefined || text === '') return undefined
  const parsed = parseJsonReadable(text)
  return parsed.ok ? parsed.value : undefined
}

function errorCode(response: ApiResponse): string | undefined {
  if (response.status < 400) return undefined
  const match = /^\{"code":"([a-z_]+)"/.exec(response.body)
  return match?.[1]
}

function matchesFilter(entry: JournalEntry, filter: JournalFilter): boolean {
  if (filter.method !== undefined && entry.method !== filter.method.toUpperCase()) return false
  if (filter.path !== undefined && (typeof filter.path === 'string' ? entry.path !== filter.path : !filter.path.test(entry.path)))
    return false
  if (filter.status !== undefined && entry.status !== filter.status) return false
  if (filter.plan !== undefined && entry.plan !== filter.plan) return false
  if (filter.operation !== undefined && entry.operation !== filter.operation) return false
  if (filter.code !== undefined && entry.code !== filter.code) return false
  return true
}

/** What the journal keeps of one exchange: only what an entry needs (a whole request keeps every header, a response its body). */
interface Raw {
  seq: number
  at: number
  method: string
  path: string
  query: string
  body: string | undefined
  status: number
  headers: Readonly<Record<string, string>>
  meta: ApiResponse['meta']
  code: string | undefined
  scenario: string | undefined
  fault: string | undefined
  arrival: number
  delivered: number | undefined
  entry?: JournalEntry | undefined
}

/** The entry of a recorded exchange, built on first read and kept. */
function toEntry(raw: Raw): JournalEntry {
  if (raw.entry) return raw.entry
  const { meta } = raw
  const h = raw.headers
  const entry: JournalEntry = {
    seq: raw.seq,
    at: raw.at,
    time: new Date(raw.at).toISOString(),
    method: raw.method,
    path: raw.path,
    query: raw.query,
    key: meta?.plan === undefined ? undefined : `${meta.plan} ${meta.keyHint ?? ''}`.trim(),
    plan: meta?.plan,
    operation: meta?.operation,
    bodySize: raw.body === undefined ? 0 : utf8Length(raw.body),
    body: parseBody(raw.body),
    status: raw.status,
    rateLimit: Object.fromEntries(
      Object.entries({
        limit: numberOr(h['x-ratelimit-limit']),
        remaining: numberOr(h['x-ratelimit-remaining']),
        reset: numberOr(h['x-ratelimit-reset']),
        retryAfter: numberOr(h['retry-after']),
        retryAt: retryAt(raw.at, h['retry-after']),
      }).filter(([, value]) => value !== undefined),
    ),
    code: raw.code,
    scenario: raw.scenario,
    fault: raw.fault,
    arrival: raw.arrival,
    delivered: raw.delivered,
  }
  raw.entry = entry
  return entry
}

/** The first entry, recorded or coming, that matches; rejects after `timeout` ms. */
function waitForEntry(
  recorded: () => JournalEntry[],
  waiters: Set<(entry: JournalEntry) => void>,
  predicate: (entry: JournalEntry) => boolean,
  timeout: number,
  count: () => number,
): Promise<JournalEntry> {
  const found = recorded().find(predicate)
  if (found) return Promise.resolve(found)
  return new Promise((resolve, reject) => {
    const waiter = (entry: JournalEntry) => {
      if (!predicate(entry)) return
      waiters.delete(waiter)
      clearTimeout(timer)
      resolve(entry)
    }
    const timer = setTimeout(() => {
      waiters.delete(waiter)
      reject(new Error(`[petstore-mock] journal.waitFor() timed out after ${timeout} ms: no request matched. Recorded: ${count()} so far.`))
    }, timeout)
    waiters.add(waiter)
  })
}

/**
 * Creates a bounded journal. Entries are built lazily from the raw exchange, so recording costs
 * little on the hot path.
 *
 * @example
 * const journal = createJournal({ limit: 1000, now: clock.now })
 * journal.find({ method: 'POST', status: 201 })
 */
export function createJournal({ limit, now }: { limit: number; now: () => number }): JournalRecorder {
  if (!Number.isInteger(limit) || limit < 0)
    throw new TypeError(`[petstore-mock] journal limit must be a whole number, got ${String(limit)}.`)
  /**
   * Answers not yet handed to the client, by response object. A Map (not a WeakMap, slower to
   * write) from which delivery removes them; capped for hosts that never report delivery.
   */
  const undelivered = new Map<ApiResponse, Raw>()
  const undeliveredCap = Math.max(limit, 1_000)
  let ring: Raw[] = []
  let start = 0
  let seq = 0
  const waiters = new Set<(entry: JournalEntry) => void>()

  const all = (): JournalEntry[] => {
    const out: JournalEntry[] = []
    for (let i = 0; i < ring.length; i++) out.push(toEntry(ring[(start + i) % ring.length] as Raw))
    return out
  }

  return {
    limit,
    record(request, response, extra) {
      seq += 1
      if (limit === 0 && waiters.size === 0) return
      const raw: Raw = {
        seq,
        at: now(),
        method: request.method,
        path: request.path,
        query: request.query,
        body: request.body,
        status: response.status,
        headers: response.headers,
        meta: response.meta,
        code: errorCode(response),
        scenario: extra.scenario,
        fault: extra.fault,
        arrival: extra.arrival,
        delivered: undefined,
      }
      undelivered.set(response, raw)
      if (undelivered.size > undeliveredCap) undelivered.delete(undelivered.keys().next().value as ApiResponse)
      if (limit > 0) {
        if (ring.length < limit) ring.push(raw)
        else {
          ring[start] = raw
          start = (start + 1) % limit
        }
      }
      if (waiters.size > 0) {
        const entry = toEntry(raw)
        for (const waiter of [...waiters]) waiter(entry)
      }
    },
    delivered(response, nextArrival) {
      const raw = undelivered.get(response)
      if (!raw) return
      undelivered.delete(response)
      raw.delivered = nextArrival
      raw.entry = undefined
    },
    all,
    find: (filter = {}) => all().filter((entry) => matchesFilter(entry, filter)),
    clear() {
      ring = []
      start = 0
    },
    waitFor: (predicate, options = {}) => waitForEntry(all, waiters, predicate, options.timeout ?? 5_000, () => seq),
  }
}
