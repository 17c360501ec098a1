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
/** An integer without fraction or exponent, of at most 15 digits (exact as a `number`): the common case. */
const PLAIN_INTEGER = /^-?(?:0|[1-9]\d{0,14})$/
/**
 * One `bigint` for each small integer, shared by every pet that holds it (category ids, mostly), so a stored pet
 * holds one heap object fewer: what a create leaves behind is what the collector copies
 * (test/regressions/created-pet-heap.test.ts).
 */
const SMALL_INTEGERS: readonly bigint[] = Object.freeze(Array.from({ length: 1024 }, (_, i) => BigInt(i)))
/** Exponents beyond this make any non-zero integer far larger than int64. */
const MAX_EXPONENT = 40

/**
 * The exact integer a JSON number literal denotes (`1`, `1.0`, `1e3`, `9223372036854775807`),
 * or a `number` when it has a fractional part (`1.5`), so schema checks can tell the two apart.
 */
export function toExactNumber(raw: string): bigint | number {
  if (PLAIN_INTEGER.test(raw)) {
    // At most 15 digits: exact as a number. A small one is the shared bigint of the table.
    const value = Number(raw)
    return SMALL_INTEGERS[value] ?? BigInt(value)
  }
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

/**
 * `text.slice(start, end)` as a string of its own. V8 keeps a slice of 13 characters or more as a view of the whole
 * string it was cut from, so a pet's name cut from a 1 MiB body would keep the 1 MiB alive for as long as the pet
 * (test/regressions/journal-prefix-memory.test.ts, pet-name-slice-memory.test.ts). Joining flattens into a new string,
 * and the slice views that instead.
 */
export function detachedSlice(text: string, start: number, end: number): string {
  return end - start < 13 ? text.slice(start, end) : ` ${text.slice(start, end)}`.slice(1)
}

/**
 * A JSON text `parseJson` may leave to the engine's `JSON.parse`: one object with no nested object or array, no escape
 * (so every `"` opens or closes a string and every `"…":` is a member name) and no number with a fraction or an
 * exponent (every number is an integer literal, in JSON a digit comes right before any `.`, `e` or `E`). A create's
 * body is one: `{"name":"Rex","categoryId":3,"status":"available"}`.
 */
const FLAT_OBJECT = /^\s*\{[^{}[\]\\]*\}\s*$/
const FRACTION_OR_EXPONENT = /\d[.eE]/

/** The members of a flat object with no escape: its `:`s outside strings (every `"` opens or closes one). */
function memberCount(text: string): number {
  let members = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === 34) inString = !inString
    else if (code === 58 && !inString) members += 1
  }
  return members
}

/**
 * `parseJson`'s answer for a flat object, through `JSON.parse` (several times faster than lossless-json on a create's
 * body, docs/benchmarks.md "Builds"), or `undefined` when the text is not one it can read exactly: then lossless-json
 * reads it. Exactly the same value: every number an integer within ±2^53 becomes the same `bigint` `toExactNumber`
 * gives, and a name given twice (lossless-json's "Duplicate key", or its one value kept) is left to lossless-json,
 * found by counting the members (json.test.ts checks both parsers agree).
 */
function parseFlatObject(text: string): JsonParseResult | undefined {
  if (!FLAT_OBJECT.test(text) || FRACTION_OR_EXPONENT.test(text)) return undefined
  let value: Record<string, unknown>
  try {
    value = JSON.parse(text) as Record<string, unknown>
  } catch {
    return undefined
  }
  const names = Object.keys(value)
  // `__proto__` is an own member of both parsers' objects, but assigning its bigint below would reach the prototype.
  if (names.length !== memberCount(text) || Object.hasOwn(value, '__proto__')) return undefined
  for (const name of names) {
    const member = value[name]
    if (typeof member !== 'number') continue
    if (!Number.isSafeInteger(member)) return undefined
    value[name] = SMALL_INTEGERS[member] ?? BigInt(member)
  }
  return { ok: true, value }
}

/** Parses JSON text; integer-valued numbers come back as `bigint`, fractions as `number`. */
export function parseJson(text: string): JsonParseResult {
  const flat = parseFlatObject(text)
  if (flat !== undefined) return flat
  try {
    return { ok: true, value: parse(text, null, toExactNumber) }
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) }
  }
}

/**
 * The pets' texts as their storage keeps them, read one by one while the world goes on answering
 * (`World.snapshotInSteps`, the state file's writer): nothing is copied or written again when it is taken.
 * `current()` says whether they are still the pets as they were then (creates after it only append, which leaves
 * them so).
 */
export interface PetTexts {
  readonly length: number
  textOf(index: number): string
  current(): boolean
}

/**
 * The Pet's JSON text, fields in the spec's order, int64 values exact. One flat string: joined with `+`, the text
 * would be a tree of seven or more pieces, and a stored pet never written alone (a seeded one, listed only in pages)
 * would keep that tree for its life, more objects for every collection to mark (test/regressions/seeded-pets-heap.test.ts).
 */
export function serializePet(pet: PetRecord): string {
  const parts = ['{"id":', String(pet.id), ',"name":', JSON.stringify(pet.name), ',"categoryId":', String(pet.categoryId)]
  if (pet.status !== undefined) parts.push(',"status":', JSON.stringify(pet.status))
  parts.push('}')
  return parts.join('')
}

/**
 * The record `serializePet` wrote `text` from, given its id and status (which its reader keeps apart): the name and the
 * category id are read where that layout puts them, without a JSON parser (a snapshot reads every one).
 */
export function petOfText(text: string, id: bigint, status: PetRecord['status']): PetRecord {
  const nameAt = text.indexOf(NAME, ID.length) + NAME.length
  const nameEnd = stringEnd(text, nameAt)
  const written = text.slice(nameAt + 1, nameEnd)
  const name = written.includes('\\') ? (JSON.parse(`"${written}"`) as string) : written
  // The category id runs to the status (`,"status":"…"}`) or to the closing brace.
  const categoryEnd = text.length - (status === undefined ? 1 : STATUS.length + status.length + 2)
  const categoryId = BigInt(text.slice(nameEnd + CATEGORY.length, categoryEnd))
  return status === undefined ? { id, name, categoryId } : { id, name, categoryId, status }
}

const ID = '{"id":'
const NAME = ',"name":'
/** From the name's closing quote to the category id's first digit. */
const CATEGORY = '","categoryId":'
const STATUS = ',"status":"'

/** The position of the quote that closes the JSON string opening at `start` (escaped quotes skipped). */
function stringEnd(text: string, start: number): number {
  let at = start + 1
  while (at < text.length) {
    const code = text.charCodeAt(at)
    if (code === 0x22) return at
    at += code === 0x5c ? 2 : 1
  }
  return text.length
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
