/**
 * The layout of one journal entry in a chunk. `ChunkLog` (entries-ring.ts) decides where a record goes; this file writes
 * and reads it. Every record is written whole, from its own entry alone: it refers to no other record, so it is read
 * from its own bytes (decisions/022). A record is, one part after the other:
 *
 *   header    the entry's numbers, each at the place `FIELDS` gives it (`HEADER_BYTES` in all)
 *   lengths   one u32 per string of the entry: its length in UTF-16 units, or `ABSENT` for `undefined`
 *   text      the strings as one UTF-8 run, in the order of the lengths (`textBytes` bytes)
 *
 * The strings, in order: the twelve of `fixedStrings`, the response headers as name, value pairs, the request headers
 * the same way (a header sent twice is two pairs), then the request body and the response body. All numbers are
 * little-endian. Web APIs only (the journal also runs in the browser).
 */
import type { RuleId } from '../../core/reason.js'
import type { ApiRequest, Plan } from '../../core/types.js'
import type { Hold } from '../budget.js'
import type { Raw } from '../entry.js'

/** One entry's place: its chunk and where its record starts. */
export interface Stored {
  readonly seq: number
  readonly chunk: Chunk
  readonly offset: number
}

export interface Chunk {
  readonly bytes: Uint8Array
  readonly view: DataView
  used: number
  /** Entries of this chunk still kept. */
  live: number
  hold: Hold | undefined
}

/**
 * The record's header: each number's place from the record's start and how it is stored. The fields lie one after
 * another (entries-ring.test.ts checks it); a field of an entry is added here, then written in `writeRecord` and read
 * in `unpack`. An `f64` that may be absent is NaN when it is.
 */
export const FIELDS = {
  /** The entry's sequence number in its world. */
  seq: { at: 0, type: 'f64' },
  /** When it was answered, on the world's clock. */
  at: { at: 8, type: 'f64' },
  /** The order in which the request reached the world. */
  arrival: { at: 16, type: 'f64' },
  /** The arrival number that came next after the answer went out; written again later by `setDelivered`. */
  delivered: { at: 24, type: 'f64' },
  durationMs: { at: 32, type: 'f64' },
  /** The whole request body's bytes when only its prefix is kept. */
  bodySize: { at: 40, type: 'f64' },
  status: { at: 48, type: 'u16' },
  /** `RESPONSE_TRUNCATED` or 0. */
  flags: { at: 50, type: 'u16' },
  /** How many name, value pairs of response headers, then of request headers, the strings hold. */
  responsePairs: { at: 52, type: 'u16' },
  requestPairs: { at: 54, type: 'u16' },
  /** The bytes of the UTF-8 run. */
  textBytes: { at: 56, type: 'u32' },
  /** The latency a scenario added, in whole ms (`durationMs` holds it too). */
  delayMs: { at: 60, type: 'u32' },
} as const
export const HEADER_BYTES = 64
type Field = (typeof FIELDS)[keyof typeof FIELDS]

/** A flag: the response body was cut to its prefix. */
const RESPONSE_TRUNCATED = 1
/** In the lengths: the string is `undefined`. */
const ABSENT = 0xffffffff

const put = (view: DataView, offset: number, field: Field, value: number): void => {
  if (field.type === 'f64') view.setFloat64(offset + field.at, value, true)
  else if (field.type === 'u32') view.setUint32(offset + field.at, value, true)
  else view.setUint16(offset + field.at, value, true)
}

const get = (view: DataView, offset: number, field: Field): number => {
  if (field.type === 'f64') return view.getFloat64(offset + field.at, true)
  return field.type === 'u32' ? view.getUint32(offset + field.at, true) : view.getUint16(offset + field.at, true)
}

/** An `f64` that may be absent: `undefined` for NaN. */
const getMaybe = (view: DataView, offset: number, field: Field): number | undefined => {
  const value = get(view, offset, field)
  return Number.isNaN(value) ? undefined : value
}

/** The strings every record has first, in this order (`unpack` reads them back in the same order). */
const fixedStrings = (raw: Raw): (string | undefined)[] => [
  raw.method,
  raw.path,
  raw.query,
  raw.code,
  raw.scenario,
  raw.fault,
  raw.meta?.plan,
  raw.meta?.keyHint,
  raw.meta?.operation,
  raw.meta?.stage,
  raw.meta?.rule,
  raw.meta?.faultRule === undefined ? undefined : String(raw.meta.faultRule),
]
const FIXED_STRINGS = 12

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** A record ready to be written, measured before its chunk is chosen. */
export interface PreparedRecord {
  readonly raw: Raw
  /** Every string of the record in order, the two bodies last. */
  readonly strings: (string | undefined)[]
  readonly responsePairs: number
  readonly requestPairs: number
  /** The strings before the bodies as one flat string. */
  readonly text: string
  /** The most bytes the record may take. */
  readonly room: number
}

/** The record of `raw`: its strings in order and the room it may take. */
export function prepareRecord(raw: Raw): PreparedRecord {
  const strings = fixedStrings(raw)
  let responsePairs = 0
  for (const name in raw.headers) {
    strings.push(name, raw.headers[name])
    responsePairs += 1
  }
  let requestPairs = 0
  const request = raw.requestHeaders
  for (const name in request) {
    const value = request[name]
    if (value === undefined) continue
    if (typeof value === 'string') {
      strings.push(name, value)
      requestPairs += 1
    } else
      for (const item of value) {
        strings.push(name, item)
        requestPairs += 1
      }
  }
  // The short strings as one flat string (join writes absent values as ''), not a rope of thirty pieces for
  // encodeInto to flatten; the bodies, the long ones, are encoded where they lie, not copied into it first.
  const text = strings.join('')
  const { body, responseBody } = raw
  strings.push(body, responseBody)
  // UTF-8 takes at most 3 bytes per UTF-16 unit.
  const room = HEADER_BYTES + 4 * strings.length + 3 * (text.length + (body?.length ?? 0) + responseBody.length)
  return { raw, strings, responsePairs, requestPairs, text, room }
}

/** Writes the record at the end of `chunk`, which has `record.room` bytes free, and returns its place. */
export function writeRecord(chunk: Chunk, record: PreparedRecord): Stored {
  const { raw, strings, text } = record
  const { bytes, view } = chunk
  const offset = chunk.used
  put(view, offset, FIELDS.seq, raw.seq)
  put(view, offset, FIELDS.at, raw.at)
  put(view, offset, FIELDS.arrival, raw.arrival)
  put(view, offset, FIELDS.delivered, raw.delivered ?? Number.NaN)
  put(view, offset, FIELDS.durationMs, raw.durationMs)
  put(view, offset, FIELDS.delayMs, raw.delayMs)
  put(view, offset, FIELDS.bodySize, raw.bodySize ?? Number.NaN)
  put(view, offset, FIELDS.status, raw.status)
  put(view, offset, FIELDS.flags, raw.responseTruncated ? RESPONSE_TRUNCATED : 0)
  put(view, offset, FIELDS.responsePairs, record.responsePairs)
  put(view, offset, FIELDS.requestPairs, record.requestPairs)
  let at = offset + HEADER_BYTES
  for (const value of strings) {
    view.setUint32(at, value === undefined ? ABSENT : value.length, true)
    at += 4
  }
  const textStart = at
  at += encoder.encodeInto(text, bytes.subarray(at)).written
  if (raw.body) at += encoder.encodeInto(raw.body, bytes.subarray(at)).written
  if (raw.responseBody) at += encoder.encodeInto(raw.responseBody, bytes.subarray(at)).written
  put(view, offset, FIELDS.textBytes, at - textStart)
  chunk.used = at
  chunk.live += 1
  return { seq: raw.seq, chunk, offset }
}

/** Records the arrival number that came next after the answer went out (see `JournalEntry.delivered`). */
export function setDelivered(chunk: Chunk, offset: number, nextArrival: number): void {
  put(chunk.view, offset, FIELDS.delivered, nextArrival)
}

/** The strings of the record at `offset`, in the order they were written. */
function stringsAt(chunk: Chunk, offset: number, count: number): (string | undefined)[] {
  const { bytes, view } = chunk
  const lengthsAt = offset + HEADER_BYTES
  const textStart = lengthsAt + 4 * count
  const text = decoder.decode(bytes.subarray(textStart, textStart + get(view, offset, FIELDS.textBytes)))
  const strings: (string | undefined)[] = []
  let position = 0
  for (let i = 0; i < count; i++) {
    const length = view.getUint32(lengthsAt + 4 * i, true)
    if (length === ABSENT) strings.push(undefined)
    else {
      strings.push(text.slice(position, position + length))
      position += length
    }
  }
  return strings
}

/** The response's meta as it was recorded: only the fields it had, `undefined` for none. */
function metaOf(strings: Record<'plan' | 'keyHint' | 'operation' | 'stage' | 'rule' | 'faultRule', string | undefined>): Raw['meta'] {
  const { plan, keyHint, operation, stage, rule, faultRule } = strings
  if (Object.values(strings).every((value) => value === undefined)) return undefined
  return {
    ...(plan === undefined ? {} : { plan: plan as Plan }),
    ...(keyHint === undefined ? {} : { keyHint }),
    ...(operation === undefined ? {} : { operation }),
    ...(stage === undefined ? {} : { stage }),
    ...(rule === undefined ? {} : { rule: rule as RuleId }),
    ...(faultRule === undefined ? {} : { faultRule: Number(faultRule) }),
  }
}

/** The `Raw` a record was packed from (headers as plain objects; request headers that came twice as arrays). */
export function unpack(stored: Stored): Raw {
  const { chunk, offset } = stored
  const { view } = chunk
  const responsePairs = get(view, offset, FIELDS.responsePairs)
  const requestPairs = get(view, offset, FIELDS.requestPairs)
  const strings = stringsAt(chunk, offset, FIXED_STRINGS + 2 * (responsePairs + requestPairs) + 2)
  let index = 0
  const next = (): string | undefined => strings[index++]
  const [method, path, query, code, scenario, fault, plan, keyHint, operation, stage, rule, faultRule] = Array.from(
    { length: FIXED_STRINGS },
    next,
  )
  const headers: Record<string, string> = {}
  // The name is read before the value: a member's key is evaluated before what is assigned to it.
  for (let i = 0; i < responsePairs; i++) headers[next() as string] = next() as string
  const requestHeaders: Record<string, string | string[]> = Object.create(null) // `__proto__` is a header name too
  for (let i = 0; i < requestPairs; i++) {
    const name = next() as string
    const value = next() as string
    const before = requestHeaders[name]
    requestHeaders[name] = before === undefined ? value : [...(typeof before === 'string' ? [before] : before), value]
  }
  const body = next()
  const responseBody = next() as string
  return {
    seq: get(view, offset, FIELDS.seq),
    at: get(view, offset, FIELDS.at),
    method: method as string,
    path: path as string,
    query: query as string,
    body,
    bodySize: getMaybe(view, offset, FIELDS.bodySize),
    status: get(view, offset, FIELDS.status),
    headers,
    requestHeaders: requestHeaders as ApiRequest['headers'],
    responseBody,
    responseTruncated: (get(view, offset, FIELDS.flags) & RESPONSE_TRUNCATED) !== 0,
    durationMs: get(view, offset, FIELDS.durationMs),
    delayMs: get(view, offset, FIELDS.delayMs),
    meta: metaOf({ plan, keyHint, operation, stage, rule, faultRule }),
    code,
    scenario,
    fault,
    arrival: get(view, offset, FIELDS.arrival),
    delivered: getMaybe(view, offset, FIELDS.delivered),
  }
}
