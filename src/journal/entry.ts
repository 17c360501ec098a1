/**
 * A journal entry: what one answered request looks like when read, built lazily from what the
 * journal kept of it (`Raw`), and the filters of `find`.
 */
import { parseJsonReadable, utf8Length } from '../core/json.js'
import { type Reason, type RuleId, reasonOf, ruleOf } from '../core/reason.js'
import type { ApiRequest, ApiResponse, Plan } from '../core/types.js'

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
  /** The stage of the scenario's timeline that answered, if any (docs/scenarios.md, "Timelines"). */
  readonly stage: string | undefined
  /** The request body's size in bytes, as sent. */
  readonly bodySize: number
  /**
   * The request body parsed as JSON (integers beyond 2^53 as exact `bigint`s), or `undefined` when there was none or
   * it was not JSON. A body over the journal's prefix (16 KiB) is kept as its first characters only: then this is
   * that prefix as a string and `bodyTruncated` is `true`.
   */
  readonly body: unknown
  /** Whether only a prefix of the body was kept (`bodySize` is the whole body's size). */
  readonly bodyTruncated: boolean
  /** The request body as sent (its first 16 KiB when truncated), or `undefined` without one: spacing and number spelling kept. */
  readonly bodyText: string | undefined
  readonly status: number
  /** The `X-RateLimit-*` and `Retry-After` headers sent, as numbers where they are numbers. */
  readonly rateLimit: { limit?: number; remaining?: number; reset?: number; retryAfter?: number; retryAt?: number }
  /** The error `code` of a non-2xx answer. */
  readonly code: string | undefined
  /** The scenario that applied, if any. */
  readonly scenario: string | undefined
  /** The fault a scenario injected, if any (e.g. `latency`, `network-error`, `status-503`). */
  readonly fault: string | undefined
  /** The rule that decided the answer (`rate.minute-window`, `auth.missing`, `ok`, …: src/core/reason.ts). */
  readonly rule: RuleId
  /** The order in which requests reached this world (1, 2, …); answers may be recorded in another order. */
  readonly arrival: number
  /**
   * The arrival number of the first request that came in after the host handed this answer to the
   * client, or `undefined` when the host did not say. Requests that arrived earlier were in flight:
   * the client could not have seen this answer yet.
   */
  readonly delivered: number | undefined
  /**
   * How long the mock took to answer, in ms: from the request's arrival until its answer was ready, plus the
   * latency a scenario added to it (hosts wait that long before they hand the answer over).
   */
  readonly durationMs: number
  /** The latency a scenario added to the answer, in ms (0 when none); part of `durationMs`. */
  readonly delayMs: number
  /** The request's headers, lower-case names; `Authorization` and cookies redacted (the key's last 4 characters only). */
  readonly requestHeaders: Readonly<Record<string, string>>
  /** The response's headers, as sent. */
  readonly responseHeaders: Readonly<Record<string, string>>
  /** The response body as sent, or its first 16 KiB (then `responseBodyTruncated` is `true`). */
  readonly responseBody: string
  readonly responseBodyTruncated: boolean
  /** Why the answer is what it is: the rule, the facts it read and one sentence (docs/explain.md). */
  readonly reason: Reason
}

/** What an event stream or a table shows of an entry: everything but headers and bodies. */
export type JournalSummary = Omit<JournalEntry, 'body' | 'bodyText' | 'requestHeaders' | 'responseHeaders' | 'responseBody' | 'reason'>

/** Filters of `find`: each given field must match. */
export interface JournalFilter {
  method?: string
  /** A path, or a RegExp tested against it. */
  path?: string | RegExp
  status?: number
  plan?: Plan
  operation?: string
  code?: string
  /** The rule that decided the answer (`rate.ban`, …), or a family of rules ending in a dot (`rate.`). */
  rule?: string
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

/** The filters an entry's field must equal. */
const EXACT_FILTERS = ['status', 'plan', 'operation', 'code'] as const

export function matchesFilter(entry: JournalSummary, filter: JournalFilter): boolean {
  const { method, path } = filter
  if (method !== undefined && entry.method !== method.toUpperCase()) return false
  if (path !== undefined && (typeof path === 'string' ? entry.path !== path : !path.test(entry.path))) return false
  const { rule } = filter
  if (rule !== undefined && (rule.endsWith('.') ? !entry.rule.startsWith(rule) : entry.rule !== rule)) return false
  return EXACT_FILTERS.every((field) => filter[field] === undefined || entry[field] === filter[field])
}

/** What the journal keeps of one exchange: only what an entry needs (a whole request keeps every header, a response its body). */
export interface Raw {
  seq: number
  at: number
  method: string
  path: string
  query: string
  /** The body, or its first `BODY_PREFIX_CHARS` characters. */
  body: string | undefined
  /** The whole body's size in bytes when only a prefix is kept; otherwise computed from `body`. */
  bodySize: number | undefined
  status: number
  headers: Readonly<Record<string, string>>
  /** The request's headers object, as the host gave it (redacted when read). */
  requestHeaders: ApiRequest['headers']
  /** The response body, or its first `BODY_PREFIX_CHARS` characters (then `responseTruncated`). */
  responseBody: string
  responseTruncated: boolean
  durationMs: number
  delayMs: number
  meta: ApiResponse['meta']
  code: string | undefined
  scenario: string | undefined
  fault: string | undefined
  arrival: number
  delivered: number | undefined
  entry?: JournalEntry | undefined
}

/** The summary of a recorded exchange: no body parsed, no header copied (the event stream sends one per request). */
export function toSummary(raw: Raw): JournalSummary {
  const { meta } = raw
  const h = raw.headers
  return {
    seq: raw.seq,
    at: raw.at,
    time: new Date(raw.at).toISOString(),
    method: raw.method,
    path: raw.path,
    query: raw.query,
    key: meta?.plan === undefined ? undefined : `${meta.plan} ${meta.keyHint ?? ''}`.trim(),
    plan: meta?.plan,
    operation: meta?.operation,
    stage: meta?.stage,
    bodySize: raw.bodySize ?? (raw.body === undefined ? 0 : utf8Length(raw.body)),
    bodyTruncated: raw.bodySize !== undefined,
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
    rule: ruleOf({ rule: raw.meta?.rule, status: raw.status }),
    arrival: raw.arrival,
    delivered: raw.delivered,
    durationMs: raw.durationMs,
    delayMs: raw.delayMs,
    responseBodyTruncated: raw.responseTruncated,
  }
}

/** The entry of a recorded exchange, built on first read and kept. */
export function toEntry(raw: Raw): JournalEntry {
  if (raw.entry) return raw.entry
  const entry: JournalEntry = {
    ...toSummary(raw),
    body: raw.bodySize === undefined ? parseBody(raw.body) : raw.body,
    bodyText: raw.body,
    requestHeaders: redactedHeaders(raw.requestHeaders),
    responseHeaders: raw.headers,
    responseBody: raw.responseBody,
    get reason() {
      const { meta } = raw
      return reasonOf({
        status: raw.status,
        headers: raw.headers,
        rule: meta?.rule,
        plan: meta?.plan,
        keyHint: meta?.keyHint,
        scenario: raw.scenario,
        stage: meta?.stage,
        fault: raw.fault,
        faultRule: meta?.faultRule,
      })
    },
  }
  raw.entry = entry
  return entry
}

/** Headers that carry secrets: only their scheme and last 4 characters are kept. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-mock-admin-token'])

/** `Bearer test-free` -> `Bearer …free`; a cookie -> `…` and its last 4 characters. */
function redactSecret(value: string): string {
  const space = value.indexOf(' ')
  const scheme = space === -1 ? '' : `${value.slice(0, space)} `
  const secret = space === -1 ? value : value.slice(space + 1).trim()
  return `${scheme}…${secret.length > 8 ? secret.slice(-4) : ''}`
}

/** A request's headers as plain strings, with the secret ones redacted. */
function redactedHeaders(headers: ApiRequest['headers']): Record<string, string> {
  const pairs: [string, string][] = []
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    const text = typeof value === 'string' ? value : value.join(', ')
    pairs.push([name, SECRET_HEADERS.has(name) ? redactSecret(text) : text])
  }
  // `Object.fromEntries` defines each as its own property: a header named `__proto__` does not set the prototype.
  return Object.fromEntries(pairs)
}
