/**
 * Why an answer is what it is: the rule that decided it and the facts it read. The core names the rule where it decides
 * (`meta.rule`); the facts come from what the answer itself carries (its headers, plan, scenario, stage, fault), so the
 * journal, the `X-Mock-Reason` header, traces and metrics all read one account (docs/explain.md).
 */

/** Each rule: what it says, where the spec or the mock's decisions state it. */
export const RULES = {
  ok: { says: 'answered as the spec defines the operation', source: 'spec' },
  'auth.missing': { says: 'no Authorization header', source: 'spec: Authentication' },
  'auth.malformed': { says: 'the Authorization header is not "Bearer <API_KEY>"', source: 'spec: Authentication' },
  'auth.unknown-key': { says: 'the key is not one of this world', source: 'spec: Authentication' },
  'rate.minute-window': { says: "the key used up its plan's requests of this UTC minute", source: 'decision 22' },
  'rate.day-window': { says: "the key used up its plan's requests of this UTC day", source: 'decision 22' },
  'rate.ban': { says: 'the key is banned for retrying before Retry-After had passed', source: 'decision 30' },
  'lifecycle.after-sunset': { says: 'GET /pets/{petId} is answered 410 from its Sunset on', source: 'decision 32' },
  'validation.limit': { says: 'limit is not an integer from 1 to 100 (or given twice)', source: 'decision 7' },
  'validation.status': { says: 'status is not available, pending or sold (or given twice)', source: 'decision 7' },
  'validation.json': { says: 'the body is not valid JSON', source: 'spec: Error handling' },
  'validation.body': { says: 'the body is not a valid NewPet', source: 'decision 4' },
  'validation.media-type': { says: 'the body is not application/json (UTF-8, uncompressed)', source: 'decision 17' },
  'validation.body-too-large': { says: 'the body is larger than the limit', source: 'decision 34' },
  'route.not-found': { says: 'no operation at this path', source: 'decision 9' },
  'route.method-not-allowed': { says: 'the path has no operation for this method', source: 'decision 9' },
  'data.pet-not-found': { says: 'no pet has this id', source: 'decision 16' },
  'data.id-space-exhausted': { says: 'no int64 id is left for a new pet', source: 'decision 48' },
  'spec.not-defined': { says: 'the spec lists the operation but does not define it', source: 'decision 8' },
  'scenario.fault': { says: "a fault of the scenario's faults (or its timeline stage's) fired", source: 'decision 39' },
  'scenario.unknown': { says: 'X-Mock-Scenario names no scenario', source: 'decision 40' },
  'store.unavailable': { says: 'the shared store (Redis) is unreachable', source: 'decision 57' },
  'state.unavailable': { says: 'the state file could not be written, so the change would not survive a restart', source: 'decision 65' },
  'proxy.upstream': { says: 'relayed to the --proxy upstream, which answered', source: 'decision 53' },
} as const satisfies Record<string, { says: string; source: string }>

export type RuleId = keyof typeof RULES

/** What an answer carries that a reason reads: the journal's entries and the core's responses both have it. */
export interface Answered {
  readonly status: number
  /** The response headers (lower-case names). */
  readonly headers: Readonly<Record<string, string>>
  readonly rule?: RuleId | undefined
  readonly plan?: string | undefined
  readonly keyHint?: string | undefined
  readonly scenario?: string | undefined
  readonly stage?: string | undefined
  readonly fault?: string | undefined
  readonly faultRule?: number | undefined
}

/** The facts of a reason: only those that bear on its rule. */
export type ReasonFacts = Readonly<Record<string, string | number>>

export interface Reason {
  readonly rule: RuleId
  readonly facts: ReasonFacts
  /** One sentence: "429 rate.minute-window: key …free on plan free used 60 of 60 in the minute window that resets at …". */
  readonly text: string
}

/** A header's unsigned decimal integer (`^[0-9]+$`), read without a regular expression: it runs on every traced answer. */
const numeric = (text: string | undefined): number | undefined => {
  if (text === undefined || text.length === 0) return undefined
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 48 || code > 57) return undefined
  }
  return Number(text)
}

/** The window the `X-RateLimit-*` headers report, written into `facts`: its limit, how much is used, when it resets. */
function addWindowFacts(facts: Record<string, string | number>, headers: Answered['headers'], isoOf: (seconds: number) => string): void {
  const limit = numeric(headers['x-ratelimit-limit'])
  const remaining = numeric(headers['x-ratelimit-remaining'])
  const reset = numeric(headers['x-ratelimit-reset'])
  if (limit !== undefined) facts.limit = limit
  if (limit !== undefined && remaining !== undefined) facts.used = limit - remaining
  if (reset !== undefined) facts.resetsAt = isoOf(reset)
  const retryAfter = headers['retry-after']
  if (retryAfter !== undefined) facts.retryAfter = retryAfter
}

/** The rule of an answer the core did not name: a 2xx is `ok`, anything else came from a fault or the proxy. */
export function ruleOf(answered: Pick<Answered, 'rule' | 'status'>): RuleId {
  if (answered.rule !== undefined) return answered.rule
  return answered.status >= 200 && answered.status < 300 ? 'ok' : 'scenario.fault'
}

/** Unix seconds (an `X-RateLimit-Reset`) as ISO 8601. A caller answering many requests passes one that remembers the last. */
const isoOfSeconds = (seconds: number): string => new Date(seconds * 1000).toISOString()

/** Each rule's decision number, when its source is one of docs/spec-decisions.md's rows. */
const DECISION_OF = new Map<RuleId, string>(
  Object.entries(RULES).flatMap(([rule, { source }]) => (source.startsWith('decision ') ? [[rule as RuleId, source.slice(9)]] : [])),
)

/**
 * The rule of an answer and the facts that bear on it, without the sentence: what a span's attributes read on every
 * traced request (src/world/tracing.ts), written into one object of facts.
 */
export function reasonFacts(answered: Answered, isoOf: (seconds: number) => string = isoOfSeconds): Omit<Reason, 'text'> {
  const rule = ruleOf(answered)
  const { headers } = answered
  const facts: Record<string, string | number> = {}
  if (answered.plan !== undefined) facts.plan = answered.plan
  if (answered.keyHint !== undefined) facts.key = answered.keyHint
  const rate = rule === 'rate.minute-window' || rule === 'rate.day-window'
  if (rate || rule === 'rate.ban' || (rule === 'ok' && headers['x-ratelimit-limit'] !== undefined)) addWindowFacts(facts, headers, isoOf)
  if (rate) facts.window = rule === 'rate.day-window' ? 'day' : 'minute'
  if (answered.scenario !== undefined && answered.scenario !== 'default') facts.scenario = answered.scenario
  if (answered.stage !== undefined) facts.stage = answered.stage
  if (answered.fault !== undefined) facts.fault = answered.fault
  if (answered.faultRule !== undefined) facts.faultRule = answered.faultRule
  const decision = DECISION_OF.get(rule)
  if (decision !== undefined) facts.decision = decision
  return { rule, facts }
}

/**
 * The reason of an answer: its rule, the facts that bear on it, and the sentence that says it.
 *
 * @example
 * reasonOf({ status: 429, rule: 'rate.minute-window', plan: 'free', keyHint: '…free', headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1780315260' } })
 * // { rule: 'rate.minute-window', facts: { plan: 'free', key: '…free', limit: 60, used: 60, resetsAt: '2026-06-01T12:01:00.000Z', … }, text: '…' }
 */
export function reasonOf(answered: Answered, isoOf: (seconds: number) => string = isoOfSeconds): Reason {
  const { rule, facts } = reasonFacts(answered, isoOf)
  return { rule, facts, text: textOf(answered.status, rule, facts) }
}

function textOf(status: number, rule: RuleId, facts: ReasonFacts): string {
  const key = facts.key === undefined ? '' : ` key ${facts.key} on plan ${facts.plan}`
  if (rule === 'rate.minute-window' || rule === 'rate.day-window')
    return `${status} ${rule}:${key} used ${facts.used} of ${facts.limit} in the ${facts.window} window that resets at ${facts.resetsAt}`
  if (rule === 'scenario.fault')
    return `${status} ${rule}: ${facts.fault ?? 'a fault'} from rule ${facts.faultRule ?? '?'} of scenario ${facts.scenario ?? 'default'}${facts.stage === undefined ? '' : `, stage ${facts.stage}`}`
  return `${status} ${rule}:${key === '' ? '' : `${key},`} ${RULES[rule].says}`
}

/**
 * The `X-Mock-Reason` header's value: the rule, then `; name=value` for each fact (values with a space, `;` or `"`
 * quoted as in RFC 9110's quoted-string), in the order of `facts`.
 *
 * @example
 * reasonHeader(reasonOf(answered)) // 'rate.minute-window; plan=free; key="…free"; limit=60; used=60; resetsAt="2026-06-01T12:01:00.000Z"; window=minute; decision=22'
 */
export function reasonHeader(reason: Reason): string {
  const token = /^[A-Za-z0-9.!#$%&'*+^_`|~-]+$/
  // A header value is Latin-1 bytes: the key hint's ellipsis is written as three dots, anything else beyond ASCII as "?".
  const ascii = (v: string) => v.replace(/\u2026/g, '...').replace(/[^\x20-\x7e]/g, '?')
  const value = (v: string | number) => {
    const text = ascii(String(v))
    return token.test(text) ? text : `"${text.replace(/["\\]/g, '\\$&')}"`
  }
  return [reason.rule, ...Object.entries(reason.facts).map(([name, v]) => `${name}=${value(v)}`)].join('; ')
}
