/**
 * Lossless JSON for int64 fields: request bodies are parsed with every integer-valued number as a
 * `bigint` (plain `JSON.parse` rounds 9223372036854775807 to 9223372036854775808), and responses
 * are written by hand so `bigint`s print as their exact digits.
 */
import { parse } from 'lossless-json'
import type { PetRecord } from '../schemas.js'
import type { PetEntry } from './types.js'

export type JsonParseResult = { ok: true; value: unknown } | { ok: false; message: string }

const NUMBER = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/
/** Exponents beyond this make any non-zero integer far larger than int64. */
const MAX_EXPONENT = 40

/**
 * The exact integer a JSON number literal denotes (`1`, `1.0`, `1e3`, `9223372036854775807`),
 * or a `number` when it has a fractional part (`1.5`), so schema checks can tell the two apart.
 */
export function toExactNumber(raw: string): bigint | number {
  const match = NUMBER.exec(raw)
  if (!match) return Number(raw)
  const [, sign = '', whole = '', fraction = '', exponentText = '0'] = match
  let digits = (whole + fraction).replace(/^0+(?=\d)/, '')
  let exponent = Number(exponentText) - fraction.length
  if (/^0+$/.test(digits)) return 0n
  if (exponent < 0) {
    const dropped = digits.slice(exponent)
    if (!/^0*$/.test(dropped)) return Number(raw)
    digits = digits.slice(0, exponent) || '0'
    exponent = 0
  }
  if (exponent > MAX_EXPONENT) {
    // Integer-valued but astronomically large: any value past int64 fails the same range check.
    exponent = MAX_EXPONENT
  }
  return BigInt(`${sign}${digits}${'0'.repeat(exponent)}`)
}

/**
 * Parses JSON text for people to read (the journal): numbers are plain numbers, except integers
 * beyond 2^53, which stay exact as `bigint`.
 */
export function parseJsonReadable(text: string): JsonParseResult {
  try {
    return {
      ok: true,
      value: parse(text, null, (raw) => {
        const value = toExactNumber(raw)
        return typeof value === 'bigint' && value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
          ? Number(value)
          : value
      }),
    }
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) }
  }
}

const BIGINT_MARK = '\u0000int64:'

/** `JSON.stringify` that writes `bigint`s as exact JSON numbers. */
export function stringifyJson(value: unknown, space?: number): string {
  const text = JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? `${BIGINT_MARK}${item}` : item), space)
  return text.replace(/"\\u0000int64:(-?\d+)"/g, '$1')
}

/** Parses JSON text; integer-valued numbers come back as `bigint`, fractions as `number`. */
export function parseJson(text: string): JsonParseResult {
  try {
    return { ok: true, value: parse(text, null, toExactNumber) }
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) }
  }
}

/** The Pet's JSON text, fields in the spec's order, int64 values exact. */
export function serializePet(pet: PetRecord): string {
  const status = pet.status === undefined ? '' : `,"status":${JSON.stringify(pet.status)}`
  return `{"id":${pet.id},"name":${JSON.stringify(pet.name)},"categoryId":${pet.categoryId}${status}}`
}

/** A page of pets as JSON text: the entries' texts in an array. */
export function serializePage(entries: readonly PetEntry[]): string {
  let body = '['
  for (let i = 0; i < entries.length; i++) body += (i === 0 ? '' : ',') + (entries[i] as PetEntry).json
  return `${body}]`
}

/** The UTF-8 length of a string in bytes, without encoding it. */
export function utf8Length(text: string): number {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) bytes += 1
    else if (code < 0x800) bytes += 2
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      // A surrogate pair is one 4-byte code point.
      bytes += 4
      i++
    } else bytes += 3
  }
  return bytes
}
