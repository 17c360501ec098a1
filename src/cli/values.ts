/**
 * How an option's text becomes its value (the checks an option's `read` uses, each throwing `UsageError` naming where
 * the text came from), and the words of the command line's messages: a list, a likely meant name.
 */
import { PetStoreMockError } from '../core/errors.js'

/** Checks an option's text (from the flag or its environment variable) and converts it; throws UsageError naming `label`. */
export type ReadValue<T> = (text: string, label: string) => T

// The rule for "Did you mean …?" is the same for every name a person may mistype (src/core/spelling.ts).
export { likelyMeant } from '../core/spelling.js'

/** A mistake in the command line: printed as one line without a stack, exit code 2. */
export class UsageError extends PetStoreMockError {
  override readonly name = 'UsageError'
  readonly code = 'usage'
}

/** "a, b and c". */
export const listed = (words: readonly string[], last: 'and' | 'or') =>
  words.length < 2 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} ${last} ${words.at(-1)}`

/**
 * A whole number in [min, max], for an option's `read`.
 *
 * @example
 * const port = { value: 'N', help: 'Port to listen on', read: wholeNumber(0, 65535) }
 */
export function wholeNumber(min: number, max: number): ReadValue<number> {
  return (text, label) => {
    if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max)
      throw new UsageError(`${label} must be a whole number from ${min} to ${max}, got ${JSON.stringify(text)}.`)
    return Number(text)
  }
}

/**
 * One of the given words, for an option's `read`.
 *
 * @example
 * const log = { value: 'FORMAT', help: 'Request log', read: oneOf(['pretty', 'json', 'silent'] as const) }
 */
export function oneOf<const W extends string>(words: readonly W[]): ReadValue<W> {
  const allowed = listed(words, 'or')
  return (text, label) => {
    if (!(words as readonly string[]).includes(text)) throw new UsageError(`${label} must be ${allowed}, got ${JSON.stringify(text)}.`)
    return text as W
  }
}

/** A switch's variable: 1, 0, true or false, in any case. */
export function readSwitch(text: string, label: string): boolean {
  if (!/^(1|0|true|false)$/i.test(text)) throw new UsageError(`${label} must be 1, 0, true or false, got ${JSON.stringify(text)}.`)
  return /^(1|true)$/i.test(text)
}

/** The server's own values. */
export function readRedis(text: string, label: string): string {
  if (!/^rediss?:\/\/[^/]/.test(text))
    throw new UsageError(
      `${label} must be a Redis URL such as redis://127.0.0.1:6379, got ${JSON.stringify(text.replace(/:[^:@/]*@/, ':***@'))}.`,
    )
  return text
}

export function readLatency(text: string, label: string): number | { min: number; max: number } {
  const match = /^(\d+)(?:-(\d+))?$/.exec(text)
  if (!match || (match[2] !== undefined && Number(match[2]) < Number(match[1])))
    throw new UsageError(`${label} must be milliseconds (200) or a range (100-500), got ${JSON.stringify(text)}.`)
  return match[2] === undefined ? Number(match[1]) : { min: Number(match[1]), max: Number(match[2]) }
}

/** The clock's speed: a positive number, at most a virtual day a real second (beyond, a window passes between two requests). */
export function readClockSpeed(text: string, label: string): number {
  const speed = Number(text)
  if (!/^\d+(?:\.\d+)?$/.test(text) || speed <= 0 || speed > 86_400)
    throw new UsageError(
      `${label} must be a number above 0 and up to 86400 (60: one real second is one virtual minute), got ${JSON.stringify(text)}.`,
    )
  return speed
}

export function readOrigins(text: string, label: string): '*' | string[] {
  const origins = text
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean)
  for (const origin of origins) {
    if (origin !== '*' && !/^https?:\/\/[^/]+$/.test(origin))
      throw new UsageError(`${label} takes origins like http://localhost:5173 (no path), got ${JSON.stringify(origin)}.`)
  }
  return origins.includes('*') ? '*' : origins
}

export function readProxy(text: string, label: string): string {
  if (!/^https?:\/\/[^/]/.test(text))
    throw new UsageError(`${label} must be an http(s) base address such as https://staging.example/v1, got ${JSON.stringify(text)}.`)
  return text
}

export const readMediaTypeStatus = (text: string, label: string) => Number(oneOf(['400', '415'])(text, label)) as 400 | 415
