/**
 * What each rule id a client of the Pet Store API is judged on means, in one place: the report card provokes its rules
 * in worlds of its own (src/check/catalogue.ts, `petstore-mock check-client`), and the audit of a journal judges the
 * rules that any traffic can give occasion for (./client-checks.ts, the MCP `audit` tool). An id means one rule
 * wherever it is judged; `judgedBy` says where (a test holds both judges to it: ./client-checks.test.ts).
 * @see ../shared/spec/pet-store-service.md "Authentication", "Errors", "Exceeding the limit", "Versioning"
 */

export interface ClientRule {
  /** Stable within the card's version, e.g. `rate.retry-after-seconds`. */
  readonly id: string
  readonly level: 'required' | 'recommended'
  /** The rule, in one line. */
  readonly rule: string
  /** Where the rule comes from: the spec's section or an RFC; for a `recommended` rule, the advice's source. */
  readonly source: string
  /** What to change in the client when it fails, in one sentence. */
  readonly fix: string
  /** Which judges judge it: the report card (it provokes the rule), the journal's audit (it reads what happened). */
  readonly judgedBy: readonly ('card' | 'journal')[]
}

const RULES = {
  'auth.bearer': {
    level: 'required',
    rule: 'Sends Authorization: Bearer <key>, and the key in no other header, cookie or query parameter.',
    source: 'spec "Authentication"',
    fix: 'Send the key only as "Authorization: Bearer <key>".',
    judgedBy: ['card'],
  },
  'auth.no-retry-401': {
    level: 'required',
    rule: 'A 401 is surfaced, not retried.',
    source: 'spec "Authentication" and "Errors" (401)',
    fix: 'Treat 401 as final: raise it to the caller without retrying.',
    judgedBy: ['card', 'journal'],
  },
  'errors.no-retry-4xx': {
    level: 'required',
    rule: 'A 404 and a 400 are surfaced, not retried.',
    source: 'spec "Endpoints" (400, 404)',
    fix: 'Treat 400 and 404 as final: raise them without retrying.',
    judgedBy: ['card', 'journal'],
  },
  'rate.retry-after-seconds': {
    level: 'required',
    rule: 'After a 429 with Retry-After: N (seconds), the next request comes no sooner than N s later.',
    source: 'spec "Exceeding the limit" 2; RFC 9110 section 10.2.3',
    fix: 'Wait the Retry-After seconds before the next request.',
    judgedBy: ['card', 'journal'],
  },
  'rate.retry-after-date': {
    level: 'required',
    rule: 'After a 429 whose Retry-After is an HTTP-date, the next request comes no sooner than that date.',
    source: 'spec "Exceeding the limit" 2; RFC 9110 section 10.2.3 (HTTP-date)',
    fix: 'Read Retry-After as seconds or as an HTTP-date (Date.parse) and wait until then.',
    judgedBy: ['card'],
  },
  'rate.stops-before-ban': {
    level: 'required',
    rule: 'Facing 429s, the client gives up (surfaces the 429) before repeated early retries ban the key.',
    source: 'spec "Exceeding the limit" 3',
    fix: 'Cap the retries of a 429 and give up when Retry-After is longer than the caller can wait.',
    judgedBy: ['card', 'journal'],
  },
  'rate.backoff': {
    level: 'required',
    rule: 'Repeated retries after 429s wait longer each time: exponential back-off.',
    source: 'spec "Exceeding the limit" 3 ("Clients use exponential backoff")',
    fix: 'Wait base * 2^(retry - 1), and at least the Retry-After, before each retry of a 429.',
    judgedBy: ['journal'],
  },
  'retry.backoff': {
    level: 'required',
    rule: 'Retries of a 503 wait longer each time: exponential back-off (over 20 runs, the waits grow 1.05 times a retry at least).',
    source: 'spec "Exceeding the limit" 3 ("Clients use exponential backoff")',
    fix: 'Wait base * 2^(retry - 1) before each retry of a 503.',
    judgedBy: ['card'],
  },
  'retry.jitter': {
    level: 'recommended',
    rule: 'The waits before retries are random: the 20 runs of retry.backoff wait differently.',
    source:
      'advice, not the spec: AWS Architecture Blog, "Exponential Backoff And Jitter" (clients that fail together retry together without it)',
    fix: 'Draw each wait at random: between half the back-off and all of it ("equal jitter"), or between 0 and all of it ("full jitter").',
    judgedBy: ['card'],
  },
  'retry.idempotent-only': {
    level: 'required',
    rule: 'A POST that met a reset connection or a 503 is not sent again.',
    source: 'RFC 9110 section 9.2.2 (POST is not idempotent; the spec has no idempotency key)',
    fix: 'Retry only GET (and other idempotent methods); surface a failed POST.',
    judgedBy: ['card', 'journal'],
  },
  'timeout.gives-up': {
    level: 'required',
    rule: 'When no answer comes, the client gives up within its own timeout (the check waits 40 s for it).',
    source: 'spec "Errors" (the spec promises no answer time; a client must not wait forever)',
    fix: 'Give every request a timeout, and surface it to the caller when it passes.',
    judgedBy: ['card'],
  },
  'lifecycle.after-sunset': {
    level: 'required',
    rule: "After the Sunset date, GET /v1/pets/{petId}'s 410 is surfaced as an error.",
    source: 'spec "Versioning" 3; RFC 8594 (Sunset)',
    fix: 'Treat 410 as final and move to GET /v1/pets with the status filter.',
    judgedBy: ['card'],
  },
} as const satisfies Record<string, Omit<ClientRule, 'id'>>

export type ClientRuleId = keyof typeof RULES

/** Every rule, in the card's order. */
export const CLIENT_RULES: readonly ClientRule[] = Object.entries(RULES).map(([id, rule]) => ({ id, ...rule }))

/** The rule of `id`, as a judge states it (without `judgedBy`). */
export function clientRule(id: ClientRuleId): Omit<ClientRule, 'judgedBy'> {
  const { level, rule, source, fix } = RULES[id]
  return { id, level, rule, source, fix }
}
