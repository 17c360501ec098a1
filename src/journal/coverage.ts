/**
 * Spec coverage: which documented answers, headers and rules of the spec a suite's traffic exercised, read from a
 * world's journal. The same traffic gives the same report in every host (the journal is the same in each).
 * @see ../shared/spec/pet-store-service.md "Endpoints", "Authentication", "Errors", "Limits", "Versioning"
 */
import { DOCUMENTED_STATUSES } from '../spec.js'
import type { JournalEntry } from './journal.js'

export interface CoverageItem {
  readonly id: string
  /** What it is, in words. */
  readonly what: string
  /** How many answers of the journal exercised it. */
  readonly requests: number
}

export interface SpecCoverage {
  /** Items exercised at least once, of `total`. */
  readonly covered: number
  readonly total: number
  /** `covered / total`, from 0 to 1. */
  readonly ratio: number
  readonly responses: readonly CoverageItem[]
  readonly headers: readonly CoverageItem[]
  readonly rules: readonly CoverageItem[]
  /** The ids never exercised, for assertion messages. */
  readonly missing: readonly string[]
}

/** The facts of one answer the rules are read from. */
interface Answer {
  readonly entry: JournalEntry
  readonly message: string
}

const problemsOf = (message: string, prefix: string): string[] =>
  message.startsWith(prefix)
    ? message
        .slice(prefix.length)
        .split('; ')
        .map((problem) => problem.split(' ')[0] ?? '')
    : []
const invalidField = (field: string) => (answer: Answer) =>
  answer.entry.code === 'invalid_body' && problemsOf(answer.message, 'Invalid NewPet: ').includes(field)
const invalidQuery = (parameter: string) => (answer: Answer) =>
  answer.entry.code === 'invalid_query_parameter' && problemsOf(answer.message, 'Invalid query: ').includes(parameter)
/**
 * A 429 whose Retry-After is at most a minute is the minute window's, a longer one the day's. Read from the answer
 * itself, not from the clock: an `X-Mock-Scenario` answer comes from a world with a clock of its own.
 */
function windowOf({ entry }: Answer): 'minute' | 'day' | undefined {
  if (entry.code !== 'rate_limited') return undefined
  const { retryAfter, retryAt } = entry.rateLimit
  const seconds = retryAfter ?? (retryAt === undefined ? undefined : (retryAt - entry.at) / 1000)
  return seconds === undefined ? undefined : seconds <= 60 ? 'minute' : 'day'
}

const RULES: readonly { id: string; what: string; seen: (answer: Answer) => boolean }[] = [
  { id: 'auth.missing-key', what: '401 for a request without Authorization', seen: (a) => a.message.startsWith('Missing API key') },
  {
    id: 'auth.malformed',
    what: '401 for an Authorization that is not "Bearer <key>"',
    seen: (a) => a.message.startsWith('Malformed Authorization'),
  },
  { id: 'auth.unknown-key', what: '401 for a key the store does not know', seen: (a) => a.message.startsWith('Invalid API key') },
  { id: 'rate.minute-window', what: "429 when the minute's requests are used up", seen: (a) => windowOf(a) === 'minute' },
  { id: 'rate.day-window', what: "429 when the day's requests are used up", seen: (a) => windowOf(a) === 'day' },
  { id: 'rate.ban', what: '429 key_temporarily_banned after early retries', seen: (a) => a.entry.code === 'key_temporarily_banned' },
  { id: 'list.limit', what: 'GET /pets: limit outside 1..100', seen: invalidQuery('limit') },
  { id: 'list.status', what: 'GET /pets: an unknown status', seen: invalidQuery('status') },
  { id: 'create.body', what: 'POST /pets without a body', seen: (a) => a.message.startsWith('Request body is required') },
  { id: 'create.json', what: 'POST /pets with a body that is not JSON', seen: (a) => a.entry.code === 'invalid_json' },
  { id: 'create.media-type', what: 'POST /pets that is not application/json', seen: (a) => a.entry.code === 'unsupported_media_type' },
  { id: 'create.name', what: 'POST /pets: name missing or invalid', seen: invalidField('name') },
  { id: 'create.categoryId', what: 'POST /pets: categoryId missing or invalid', seen: invalidField('categoryId') },
  { id: 'create.status', what: 'POST /pets: an unknown status', seen: invalidField('status') },
  { id: 'lifecycle.sunset', what: 'GET /pets/{petId} after the sunset: 410', seen: (a) => a.entry.status === 410 },
]

const HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after']

function messageOf(entry: JournalEntry): string {
  if (entry.status < 400) return ''
  try {
    const body = JSON.parse(entry.responseBody) as { message?: unknown }
    return typeof body.message === 'string' ? body.message : ''
  } catch {
    return ''
  }
}

/**
 * The spec coverage of a journal's entries.
 *
 * @example
 * specCoverage(petStore.journal.all()).missing // ['createPet 400', 'rate.ban', …]
 */
export function specCoverage(entries: Iterable<JournalEntry>): SpecCoverage {
  const responses = new Map<string, number>()
  for (const [operation, statuses] of Object.entries(DOCUMENTED_STATUSES)) {
    for (const status of statuses) responses.set(`${operation} ${status}`, 0)
  }
  const headers = new Map(HEADERS.map((name) => [name, 0]))
  const rules = new Map(RULES.map((rule) => [rule.id, 0]))
  const add = (counts: Map<string, number>, id: string) => {
    const count = counts.get(id)
    if (count !== undefined) counts.set(id, count + 1)
  }
  for (const entry of entries) {
    add(responses, `${entry.operation} ${entry.status}`)
    for (const name of Object.keys(entry.responseHeaders)) add(headers, name)
    const answer = { entry, message: messageOf(entry) }
    for (const rule of RULES) if (rule.seen(answer)) add(rules, rule.id)
  }
  const items = (counts: Map<string, number>, what: (id: string) => string): CoverageItem[] =>
    [...counts].map(([id, requests]) => ({ id, what: what(id), requests }))
  const all = {
    responses: items(responses, (id) => `${id.replace(' ', ' answered ')}`),
    headers: items(headers, (name) => `the ${name} response header`),
    rules: items(rules, (id) => RULES.find((rule) => rule.id === id)?.what ?? id),
  }
  const every = [...all.responses, ...all.headers, ...all.rules]
  const covered = every.filter((item) => item.requests > 0).length
  const missing = every.filter((item) => item.requests === 0).map((item) => item.id)
  return { covered, total: every.length, ratio: covered / every.length, ...all, missing }
}
