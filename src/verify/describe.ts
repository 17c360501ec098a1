/**
 * Reading answers into the words of the report: an Error body or not, Pets, the rate-limit headers, a page of
 * pets measured against the side's own data (so a target with other pets reads the same as the mock).
 */
import { issueText } from '../core/issues.js'
import { PetSchema } from '../schemas.js'
import { DAY_MS, PAGE_SIZE } from '../spec.js'
import type { Exchange } from './types.js'

/** An int64 id that no pet has, in practice. */
export const UNUSED_ID = '9223372036854775807'

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** What is wrong with an error answer's body, or `undefined` for the spec's Error with `status` equal to the HTTP status. */
export function errorBodyProblem(exchange: Exchange): string | undefined {
  const body = exchange.json
  if (body === undefined) return exchange.text.trim() === '' ? 'no body' : 'the body is not JSON'
  if (!isObject(body)) return 'the body is not a JSON object'
  const missing = [
    typeof body.code === 'string' ? '' : 'code',
    typeof body.message === 'string' ? '' : 'message',
    typeof body.status === 'bigint' || typeof body.status === 'number' ? '' : 'status',
  ].filter(Boolean)
  if (missing.length > 0) return `no ${missing.join(', ')} (Error needs a string code and message, an integer status)`
  if (String(body.status) !== String(exchange.status)) return `"status": ${String(body.status)} in a ${exchange.status} answer`
  return undefined
}

/** The body as an array, when it is one. */
export function petsOf(exchange: Exchange): unknown[] | undefined {
  return Array.isArray(exchange.json) ? exchange.json : undefined
}

/** What keeps `value` from being a Pet, or `undefined`. */
export function petProblem(value: unknown): string | undefined {
  const result = PetSchema.safeParse(value)
  if (result.success) return undefined
  const issue = result.error.issues[0]
  return issue ? issueText(issue, 'the value') : 'not a Pet'
}

/** The first item of a Pets array that is not a Pet, as "item 3: categoryId is required". */
export function petsProblem(pets: readonly unknown[]): string | undefined {
  for (const [index, pet] of pets.entries()) {
    const problem = petProblem(pet)
    if (problem !== undefined) return `item ${index + 1} is not a Pet (${problem})`
  }
  return undefined
}

/** Status and the kind of body, in a few words: `400 Error`, `200, Pets`, `404 (not an Error body: no body)`. */
export function brief(exchange: Exchange): string {
  if (exchange.status === 0) return `no answer: ${exchange.error ?? 'unknown error'}`
  if (exchange.method === 'HEAD') return `${exchange.status}`
  if (exchange.status >= 400) {
    const problem = errorBodyProblem(exchange)
    return problem === undefined ? `${exchange.status} Error` : `${exchange.status} (not an Error body: ${problem})`
  }
  const pets = petsOf(exchange)
  if (pets) return `${exchange.status}, ${pets.length === 0 ? 'no pets' : 'Pets'}`
  if (exchange.json !== undefined && petProblem(exchange.json) === undefined) return `${exchange.status}, a Pet`
  return exchange.text.trim() === '' ? `${exchange.status}, no body` : `${exchange.status}, another body`
}

/** How many pets a page holds, read against the side's own data: the first reading whose limit explains it. */
export function pageOf(count: number, total: number, readings: readonly (readonly [string, number])[]): string {
  if (count === 0) return 'no pets'
  for (const [label, limit] of readings) if (count === Math.min(limit, total)) return label
  return count > PAGE_SIZE.max ? `${count} pets, over the maximum ${PAGE_SIZE.max}` : `${count} pets`
}

/** A list answer: `200, <page>`, or what it was instead. */
export function listSummary(exchange: Exchange, total: number, readings: readonly (readonly [string, number])[]): string {
  const pets = exchange.status === 200 ? petsOf(exchange) : undefined
  return pets ? `200, ${pageOf(pets.length, total, readings)}` : brief(exchange)
}

export interface RateHeaders {
  readonly limit: number | undefined
  readonly remaining: number | undefined
  /** Unix seconds. */
  readonly reset: number | undefined
  /** What is missing or wrong, empty when all three are fine. */
  readonly problems: readonly string[]
}

const INTEGER = /^\d+$/

/** The three `X-RateLimit-*` headers, checked: integers, and `Reset` a Unix time in seconds near the answer's time. */
export function rateHeadersOf(exchange: Exchange): RateHeaders {
  const now = exchange.at
  const problems: string[] = []
  const read = (name: string): number | undefined => {
    const value = exchange.headers[`x-ratelimit-${name.toLowerCase()}`]
    if (value === undefined) problems.push(`no X-RateLimit-${name}`)
    else if (!INTEGER.test(value.trim())) problems.push(`X-RateLimit-${name} ${JSON.stringify(value)} is not an integer`)
    else return Number(value)
    return undefined
  }
  const limit = read('Limit')
  const remaining = read('Remaining')
  const reset = read('Reset')
  if (reset !== undefined && (reset * 1000 < now - 120_000 || reset * 1000 > now + 2 * DAY_MS)) {
    problems.push(`X-RateLimit-Reset ${reset} is not a Unix time in seconds near now${reset > 1e11 ? ' (milliseconds?)' : ''}`)
  }
  return { limit, remaining, reset, problems }
}

/** Which `X-RateLimit-*` headers an answer carries, whatever their values. */
export function rateHeaderNames(exchange: Exchange): string {
  const names = ['Limit', 'Remaining', 'Reset'].filter((name) => exchange.headers[`x-ratelimit-${name.toLowerCase()}`] !== undefined)
  if (names.length === 0) return 'no X-RateLimit headers'
  return names.length === 3 ? 'X-RateLimit-Limit, -Remaining and -Reset' : `only X-RateLimit-${names.join(', -')}`
}

/** `Retry-After` in ms from `now`: delta-seconds or an HTTP-date (RFC 9110); `undefined` when missing or unreadable. */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  const text = value?.trim()
  if (!text) return undefined
  if (INTEGER.test(text)) return Number(text) * 1000
  const date = Date.parse(text)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

const HTTP_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/

/** The format of a `Retry-After` value (RFC 9110 allows delta-seconds or an HTTP-date). */
export function retryAfterFormat(value: string | undefined): string {
  if (value === undefined) return 'no Retry-After'
  if (INTEGER.test(value.trim())) return 'Retry-After in delta-seconds'
  if (HTTP_DATE.test(value.trim())) return 'Retry-After as an HTTP-date'
  return `an unreadable Retry-After ${JSON.stringify(value.slice(0, 40))}`
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** A header naming a path under the base address, with the base written `{base}` (and an absolute URL marked). */
export function underBase(value: string | undefined, basePath: string): string {
  if (value === undefined) return 'none'
  const path = new RegExp(`(^|<)(https?://[^/>\\s]+)?${escapeRegExp(basePath)}/`, 'g')
  return value.replace(path, (_match, open: string, origin: string | undefined) => `${open}${origin ? '(absolute) ' : ''}{base}/`)
}
