/**
 * Where a journal keeps its entries (issue #18): packed as bytes into chunks (`Uint8Array`s), not as objects. A
 * journal of 1,000 entries as objects (each with its headers objects and body strings) was copied by every young
 * generation collection and then promoted: at a few thousand requests a second that was most of the server's p99.
 * Packed, an entry is a few numbers and one UTF-8 run; it is decoded back into a `Raw` when read.
 *
 * Chunks are what the byte budget holds: memory is counted as it is, not estimated. Web APIs only (the journal also
 * runs in the browser).
 */
import type { BudgetOwner, Hold, JournalBudget } from './journal-budget.js'
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

/** A chunk grows from 4 KiB (an idle session holds little) to 64 KiB (few chunks under load). */
const FIRST_CHUNK = 4 * 1024
const LARGEST_CHUNK = 64 * 1024
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

/**
 * The chunks of one journal, oldest first, writing into the newest. Each chunk holds its bytes of the shared budget;
 * when the budget needs room it calls the journal's `dropOldest`, which drops the oldest chunk's entries.
 */
export class ChunkLog {
  readonly #budget: JournalBudget
  readonly #owner: BudgetOwner
  #chunks: Chunk[] = []
  /**
   * The last emptied full-size chunk, kept for the next one instead of a new allocation (a busy server would
   * otherwise allocate and drop tens of MB a second). It keeps its hold: the budget counts it, as the oldest.
   */
  #spare: Chunk | undefined
  #nextSize = FIRST_CHUNK

  constructor(budget: JournalBudget, owner: BudgetOwner) {
    this.#budget = budget
    this.#owner = owner
  }

  /** The oldest chunk, if any. */
  get oldest(): Chunk | undefined {
    return this.#chunks[0]
  }

  /** Bytes of the chunks this journal holds now. */
  get bytes(): number {
    let total = 0
    for (const chunk of this.#chunks) total += chunk.bytes.length
    return total
  }

  /** Packs `raw` into the newest chunk (or a new one); `undefined` when it is larger than the whole budget. */
  append(raw: Raw): Stored | undefined {
    const { strings, responsePairs, requestPairs } = stringsOf(raw)
    // The short strings as one flat string (join writes absent values as ''), not a rope of thirty pieces for
    // encodeInto to flatten; the bodies, the long ones, are encoded where they lie, not copied into it first.
    const text = strings.join('')
    const { body, responseBody } = raw
    strings.push(body, responseBody)
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    const room = FIXED + 4 * strings.length + 3 * (text.length + (body?.length ?? 0))
    // The same response body as the last one written into the newest chunk: refer to its bytes (they stay while
    // this entry is kept, for a chunk's bytes are reused only once all its entries have left).
    const newest = this.#chunks.at(-1)
    const shared =
      newest !== undefined &&
      responseBody.length >= SHARED_MIN_CHARS &&
      newest.lastBody === responseBody &&
      newest.bytes.length - newest.used >= room
    const chunk = shared ? newest : this.#room(room + 3 * responseBody.length)
    if (!chunk) return undefined
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

  /** The newest chunk if `size` bytes fit in it, else a new chunk held from the budget (which may drop old ones). */
  #room(size: number): Chunk | undefined {
    const newest = this.#chunks.at(-1)
    if (newest && newest.bytes.length - newest.used >= size) return newest
    const spare = this.#spare
    if (spare && spare.bytes.length >= size) {
      // Held again at the end of the budget's queue: chunks are held in the order they are written.
      this.#spare = undefined
      if (spare.hold) this.#budget.release(spare.hold)
      spare.hold = this.#budget.hold(this.#owner, spare.bytes.length)
      spare.used = 0
      spare.lastBody = undefined
      spare.live = 0
      this.#retireNewest()
      this.#chunks.push(spare)
      return spare
    }
    const max = this.#budget.maxBytes
    const length = Math.max(size, Math.min(this.#nextSize, max))
    const hold = this.#budget.hold(this.#owner, length)
    if (hold.released) return undefined
    this.#nextSize = Math.min(this.#nextSize * 2, LARGEST_CHUNK)
    const bytes = new Uint8Array(length)
    const chunk: Chunk = {
      bytes,
      view: new DataView(bytes.buffer),
      used: 0,
      live: 0,
      hold,
      lastBody: undefined,
      lastBodyAt: 0,
      lastBodyBytes: 0,
    }
    this.#retireNewest()
    this.#chunks.push(chunk)
    return chunk
  }

  /** The newest chunk is written no more: it lets go of its last body (only the newest keeps one). */
  #retireNewest(): void {
    const newest = this.#chunks.at(-1)
    if (newest) newest.lastBody = undefined
  }

  /** One entry of `chunk` left the journal; an empty chunk that is not the one being written gives its bytes back. */
  leave(chunk: Chunk): void {
    chunk.live -= 1
    if (chunk.live > 0 || chunk === this.#chunks.at(-1)) return
    if (this.#spare === undefined && chunk.bytes.length === LARGEST_CHUNK && chunk === this.#chunks[0]) {
      this.#chunks.shift()
      this.#spare = chunk
    } else this.#free(chunk)
  }

  /**
   * Gives the oldest bytes back for the budget: the spare chunk if there is one (it holds no entry: `undefined`),
   * else the oldest chunk, whose entries the journal then drops.
   */
  dropOldest(): Chunk | undefined {
    if (this.#spare) {
      this.#free(this.#spare)
      return undefined
    }
    const oldest = this.#chunks[0]
    if (oldest) this.#free(oldest)
    return oldest
  }

  /** Gives every chunk back. */
  clear(): void {
    for (const chunk of [...this.#chunks]) this.#free(chunk)
    if (this.#spare) this.#free(this.#spare)
    this.#nextSize = FIRST_CHUNK
  }

  #free(chunk: Chunk): void {
    if (chunk === this.#spare) this.#spare = undefined
    const index = this.#chunks.indexOf(chunk)
    if (index !== -1) this.#chunks.splice(index, 1)
    if (chunk.hold) this.#budget.release(chunk.hold)
    chunk.hold = undefined
    chunk.lastBody = undefined
  }
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
