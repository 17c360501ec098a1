/**
 * The layout of one journal entry in a chunk (issue #18): a few numbers, a table of string lengths, then the strings
 * as one UTF-8 run, the bodies last. A response body repeated by consecutive answers is written once per chunk and
 * referred to by the entries after it. So are the other strings: a record written whole is the chunk's base, and the
 * records after it write only the strings that differ from the base's (a client sends the same path, query and
 * headers each time, and gets the same headers back but for a count). `ChunkLog` (chunk-log.ts) decides where a
 * record goes; this file writes and reads it. Web APIs only (the journal also runs in the browser).
 */
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
  /** The newest chunk only: the last response body written whole into it, and where its bytes are. */
  lastBody: string | undefined
  lastBodyAt: number
  lastBodyBytes: number
  /** The newest chunk only: the strings of its base, the last record written whole into it, and where that starts. */
  base: readonly (string | undefined)[] | undefined
  baseAt: number
}

/**
 * Numbers first: seq, at, arrival, delivered, durationMs, bodySize (f64); status, flags, header counts (u16); payload
 * bytes (u32); where a shared response body lies in the chunk, and its bytes (u32); where the base record starts (u32).
 */
const FIXED = 72
const SHARED_AT = 60
const BASE_AT = 68
const DELIVERED_AT = 24
const ABSENT = 0xffffffff
/** In the table of lengths: the string is the base record's at the same place, not written again. */
const SAME = 0xfffffffe
/** Flags: the response body was cut to its prefix. */
const RESPONSE_TRUNCATED = 1
/** The response body is the bytes of an earlier entry of the chunk (a client polling one list gets one body). */
const RESPONSE_SHARED = 2
/** Strings marked `SAME` are the base record's (`BASE_AT`). */
const ON_BASE = 4
/** Shorter response bodies are written again: a reference would save little. */
const SHARED_MIN_CHARS = 64
/** The strings every record has, in this order, before the headers' names and values; the two bodies come last. */
const STRINGS = 9
const BODIES = 2

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** The strings of a record, each `undefined` or a string; headers as name, value pairs (a repeated name is an array). */
function stringsOf(raw: Raw): { strings: (string | undefined)[]; responsePairs: number; requestPairs: number } {
  const meta = raw.meta
  const strings: (string | undefined)[] = [
    raw.method,
    raw.path,
    raw.query,
    raw.code,
    raw.scenario,
    raw.fault,
    meta?.plan,
    meta?.keyHint,
    meta?.operation,
  ]
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
  return { strings, responsePairs, requestPairs }
}

/** What packing a record needs before its chunk is chosen. */
export interface PreparedRecord {
  /** Every string of the record in order, the two bodies last. */
  readonly strings: (string | undefined)[]
  readonly responsePairs: number
  readonly requestPairs: number
  /** The strings before the bodies that this record writes (all, or those not the base's), as one flat string. */
  readonly text: string
  /** Bytes the record may take, without its response body. */
  readonly room: number
  /** The base the record is written against (only in the chunk that holds it), or `undefined`: written whole. */
  readonly base: readonly (string | undefined)[] | undefined
}

/** Whether string `i` of a record need not be written: the base's string at the same place (never the response body). */
const onBase = (strings: readonly (string | undefined)[], base: readonly (string | undefined)[], i: number): boolean => {
  const value = strings[i]
  return value !== undefined && value === base[i]
}

/**
 * The record's strings and the room it may take: against `base` (the newest chunk's) when at least half its strings
 * are the base's, else whole.
 */
export function prepareRecord(raw: Raw, base?: readonly (string | undefined)[]): PreparedRecord {
  const { strings, responsePairs, requestPairs } = stringsOf(raw)
  const { body, responseBody } = raw
  strings.push(body, responseBody)
  const short = strings.length - BODIES
  if (base !== undefined && base.length === strings.length) {
    const own: (string | undefined)[] = []
    for (let i = 0; i < short; i++) if (!onBase(strings, base, i)) own.push(strings[i])
    if (2 * own.length <= short) {
      const text = own.join('')
      const bodyChars = body === undefined || onBase(strings, base, short) ? 0 : body.length
      const room = FIXED + 4 * strings.length + 3 * (text.length + bodyChars)
      return { strings, responsePairs, requestPairs, text, room, base }
    }
  }
  // The short strings as one flat string (join writes absent values as ''), not a rope of thirty pieces for
  // encodeInto to flatten; the bodies, the long ones, are encoded where they lie, not copied into it first.
  strings.length = short
  const text = strings.join('')
  strings.push(body, responseBody)
  // UTF-8 takes at most 3 bytes per UTF-16 unit.
  const room = FIXED + 4 * strings.length + 3 * (text.length + (body?.length ?? 0))
  return { strings, responsePairs, requestPairs, text, room, base: undefined }
}

/**
 * Whether a record may refer to the last response body written into `chunk`, the newest: the same body, long enough
 * to be worth it, and room for the rest. Its bytes stay while the record is kept, for a chunk's bytes are reused
 * only once all its entries have left.
 */
export function canShareBody(chunk: Chunk, responseBody: string, room: number): boolean {
  return responseBody.length >= SHARED_MIN_CHARS && chunk.lastBody === responseBody && chunk.bytes.length - chunk.used >= room
}

/**
 * Writes the record at the end of `chunk` (which has room for it) and returns its place. Prepared against a base, it
 * must be written into the chunk that holds that base; written whole, it becomes the chunk's base.
 */
export function writeRecord(chunk: Chunk, raw: Raw, prepared: PreparedRecord, shared: boolean): Stored {
  const { strings, responsePairs, requestPairs, text, base } = prepared
  const { body, responseBody } = raw
  const offset = chunk.used
  const { view } = chunk
  view.setFloat64(offset, raw.seq, true)
  view.setFloat64(offset + 8, raw.at, true)
  view.setFloat64(offset + 16, raw.arrival, true)
  view.setFloat64(offset + DELIVERED_AT, raw.delivered ?? Number.NaN, true)
  view.setFloat64(offset + 32, raw.durationMs, true)
  view.setFloat64(offset + 40, raw.bodySize ?? Number.NaN, true)
  view.setUint16(offset + 48, raw.status, true)
  const flags = (raw.responseTruncated ? RESPONSE_TRUNCATED : 0) | (shared ? RESPONSE_SHARED : 0) | (base ? ON_BASE : 0)
  view.setUint16(offset + 50, flags, true)
  view.setUint16(offset + 52, responsePairs, true)
  view.setUint16(offset + 54, requestPairs, true)
  view.setUint32(offset + BASE_AT, base ? chunk.baseAt : 0, true)
  let at = offset + FIXED
  // prepareRecord's comparisons again: cheaper than a table of lengths carried over (an array per record, 15% slower).
  const last = strings.length - 1
  for (let i = 0; i <= last; i++) {
    const value = strings[i]
    const length = value === undefined ? ABSENT : base && i < last && onBase(strings, base, i) ? SAME : value.length
    view.setUint32(at, length, true)
    at += 4
  }
  const start = at
  at += encoder.encodeInto(text, chunk.bytes.subarray(at)).written
  if (body && !(base && onBase(strings, base, last - 1))) at += encoder.encodeInto(body, chunk.bytes.subarray(at)).written
  if (shared) {
    view.setUint32(offset + SHARED_AT, chunk.lastBodyAt, true)
    view.setUint32(offset + SHARED_AT + 4, chunk.lastBodyBytes, true)
  } else if (responseBody) {
    const written = encoder.encodeInto(responseBody, chunk.bytes.subarray(at)).written
    if (responseBody.length >= SHARED_MIN_CHARS) {
      chunk.lastBody = responseBody
      chunk.lastBodyAt = at
      chunk.lastBodyBytes = written
    }
    at += written
  }
  view.setUint32(offset + 56, at - start, true)
  chunk.used = at
  chunk.live += 1
  if (!base) {
    chunk.base = strings
    chunk.baseAt = offset
  }
  return { seq: raw.seq, chunk, offset }
}

/** Records the arrival number that came next after the answer went out (see `JournalEntry.delivered`). */
export function setDelivered(chunk: Chunk, offset: number, nextArrival: number): void {
  chunk.view.setFloat64(offset + DELIVERED_AT, nextArrival, true)
}

/**
 * The strings of the record at `offset`, in order (see `stringsOf`, then the two bodies), those on the base read from
 * it. A shared response body is read by the caller: `undefined` here.
 */
function stringsAt(chunk: Chunk, offset: number): (string | undefined)[] {
  const { view } = chunk
  const count = STRINGS + 2 * (view.getUint16(offset + 52, true) + view.getUint16(offset + 54, true)) + BODIES
  const flags = view.getUint16(offset + 50, true)
  const start = offset + FIXED + 4 * count
  const text = decoder.decode(chunk.bytes.subarray(start, start + view.getUint32(offset + 56, true)))
  // A base is written whole: one level of reference at most.
  const base = (flags & ON_BASE) === 0 ? undefined : stringsAt(chunk, view.getUint32(offset + BASE_AT, true))
  const strings: (string | undefined)[] = []
  let position = 0
  for (let i = 0; i < count; i++) {
    const length = view.getUint32(offset + FIXED + 4 * i, true)
    // A shared body's length is in the table, but its bytes are an earlier entry's: not in this entry's run.
    const own = length !== ABSENT && length !== SAME && !(i === count - 1 && (flags & RESPONSE_SHARED) !== 0)
    strings.push(own ? text.slice(position, position + length) : length === SAME ? base?.[i] : undefined)
    if (own) position += length
  }
  return strings
}

/** The `Raw` a record was packed from (headers as plain objects; request headers that came twice as arrays). */
export function unpack(stored: Stored): Raw {
  const { chunk, offset } = stored
  const { view } = chunk
  const number = (at: number): number | undefined => {
    const value = view.getFloat64(offset + at, true)
    return Number.isNaN(value) ? undefined : value
  }
  const responsePairs = view.getUint16(offset + 52, true)
  const requestPairs = view.getUint16(offset + 54, true)
  const strings = stringsAt(chunk, offset)
  let index = 0
  const next = (): string | undefined => strings[index++]
  const [method, path, query, code, scenario, fault, plan, keyHint, operation] = Array.from({ length: STRINGS }, next)
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
  const flags = view.getUint16(offset + 50, true)
  const sharedAt = view.getUint32(offset + SHARED_AT, true)
  const responseBody =
    (flags & RESPONSE_SHARED) === 0
      ? next()
      : decoder.decode(chunk.bytes.subarray(sharedAt, sharedAt + view.getUint32(offset + SHARED_AT + 4, true)))
  return {
    seq: view.getFloat64(offset, true),
    at: view.getFloat64(offset + 8, true),
    method: method as string,
    path: path as string,
    query: query as string,
    body,
    bodySize: number(40),
    status: view.getUint16(offset + 48, true),
    headers,
    requestHeaders: requestHeaders as ApiRequest['headers'],
    responseBody: responseBody as string,
    responseTruncated: (flags & RESPONSE_TRUNCATED) !== 0,
    durationMs: view.getFloat64(offset + 32, true),
    meta:
      plan === undefined && keyHint === undefined && operation === undefined
        ? undefined
        : {
            ...(plan === undefined ? {} : { plan: plan as Plan }),
            ...(keyHint === undefined ? {} : { keyHint }),
            ...(operation === undefined ? {} : { operation }),
          },
    code,
    scenario,
    fault,
    arrival: view.getFloat64(offset + 16, true),
    delivered: number(DELIVERED_AT),
  }
}
