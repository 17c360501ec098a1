/**
 * The layout of one journal entry in a chunk (issue #18): a few numbers, a table of string lengths, then the strings
 * as one UTF-8 run, the bodies last. A response body repeated by consecutive answers is written once per chunk and
 * referred to by the entries after it. `ChunkLog` (journal-chunks.ts) decides where a record goes; this file writes
 * and reads it. Web APIs only (the journal also runs in the browser).
 */
import type { Hold } from './journal-budget.js'
import type { Raw } from './journal-entry.js'
import type { ApiRequest, Plan } from './types.js'

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
}

/**
 * Numbers first: seq, at, arrival, delivered, durationMs, bodySize (f64); status, flags, header counts (u16); payload
 * bytes (u32); where a shared response body lies in the chunk, and its bytes (u32).
 */
const FIXED = 68
const SHARED_AT = 60
const DELIVERED_AT = 24
const ABSENT = 0xffffffff
/** Flags. */
const RESPONSE_TRUNCATED = 1
/** The response body is the bytes of an earlier entry of the chunk (a client polling one list gets one body). */
const RESPONSE_SHARED = 2
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
  /** The strings before the bodies, as one flat string. */
  readonly text: string
  /** Bytes the record may take, without its response body. */
  readonly room: number
}

/** The record's strings and the room it may take. */
export function prepareRecord(raw: Raw): PreparedRecord {
  const { strings, responsePairs, requestPairs } = stringsOf(raw)
  // The short strings as one flat string (join writes absent values as ''), not a rope of thirty pieces for
  // encodeInto to flatten; the bodies, the long ones, are encoded where they lie, not copied into it first.
  const text = strings.join('')
  const { body, responseBody } = raw
  strings.push(body, responseBody)
  // UTF-8 takes at most 3 bytes per UTF-16 unit.
  const room = FIXED + 4 * strings.length + 3 * (text.length + (body?.length ?? 0))
  return { strings, responsePairs, requestPairs, text, room }
}

/**
 * Whether a record may refer to the last response body written into `chunk`, the newest: the same body, long enough
 * to be worth it, and room for the rest. Its bytes stay while the record is kept, for a chunk's bytes are reused
 * only once all its entries have left.
 */
export function canShareBody(chunk: Chunk, responseBody: string, room: number): boolean {
  return responseBody.length >= SHARED_MIN_CHARS && chunk.lastBody === responseBody && chunk.bytes.length - chunk.used >= room
}

/** Writes the record at the end of `chunk` (which has room for it) and returns its place. */
export function writeRecord(chunk: Chunk, raw: Raw, prepared: PreparedRecord, shared: boolean): Stored {
  const { strings, responsePairs, requestPairs, text } = prepared
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
  view.setUint16(offset + 50, (raw.responseTruncated ? RESPONSE_TRUNCATED : 0) | (shared ? RESPONSE_SHARED : 0), true)
  view.setUint16(offset + 52, responsePairs, true)
  view.setUint16(offset + 54, requestPairs, true)
  let at = offset + FIXED
  for (const value of strings) {
    view.setUint32(at, value === undefined ? ABSENT : value.length, true)
    at += 4
  }
  const start = at
  at += encoder.encodeInto(text, chunk.bytes.subarray(at)).written
  if (body) at += encoder.encodeInto(body, chunk.bytes.subarray(at)).written
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
  return { seq: raw.seq, chunk, offset }
}

/** Records the arrival number that came next after the answer went out (see `JournalEntry.delivered`). */
export function setDelivered(chunk: Chunk, offset: number, nextArrival: number): void {
  chunk.view.setFloat64(offset + DELIVERED_AT, nextArrival, true)
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
  const count = STRINGS + 2 * (responsePairs + requestPairs) + BODIES
  const start = offset + FIXED + 4 * count
  const text = decoder.decode(chunk.bytes.subarray(start, start + view.getUint32(offset + 56, true)))
  let position = 0
  let at = offset + FIXED
  const next = (): string | undefined => {
    const length = view.getUint32(at, true)
    at += 4
    if (length === ABSENT) return undefined
    position += length
    return text.slice(position - length, position)
  }
  const [method, path, query, code, scenario, fault, plan, keyHint, operation] = Array.from({ length: STRINGS }, next)
  const headers: Record<string, string> = {}
  for (let i = 0; i < responsePairs; i++) {
    const name = next() as string
    headers[name] = next() as string
  }
  const requestHeaders: Record<string, string | string[]> = {}
  for (let i = 0; i < requestPairs; i++) {
    const name = next() as string
    const value = next() as string
    const before = requestHeaders[name]
    requestHeaders[name] = before === undefined ? value : [...(typeof before === 'string' ? [before] : before), value]
  }
  const body = next()
  const flags = view.getUint16(offset + 50, true)
  // A shared body's length is in the table, but its bytes are an earlier entry's: not in this entry's run.
  const ownBody = (flags & RESPONSE_SHARED) === 0 ? next() : ''
  const sharedAt = view.getUint32(offset + SHARED_AT, true)
  const responseBody =
    (flags & RESPONSE_SHARED) === 0
      ? ownBody
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
