/**
 * The admin API's reads of stored data: a journal (`GET /__mock/requests`, `GET /__mock/requests.har`, the event
 * stream's replay) and a world's state (`GET /__mock/state`, `streamPieces`), bounded by construction (decision 020; docs/spec-decisions.md rows 59 and 60):
 *
 * - written entry by entry in chunks, each sent once the client took the one before: a read holds a chunk or two,
 *   never its whole answer, and a client that takes nothing for `stallMs` is cut off (its socket destroyed);
 * - one response stops at `READ_MAX_BYTES`: the page is measured first (entry by entry, nothing kept), so its headers
 *   can say where it stopped and the cursor that goes on (`X-Mock-Page-Stopped`, `Link: <…>; rel="next"`);
 * - the reads under way share one budget (`adminReadMaxBytes`), `READ_SHARE_BYTES` each; past it a read is answered
 *   503 `too_many_admin_reads` with `Retry-After`;
 * - reads take turns: one works at most `SLICE_MS` per event-loop turn, so API requests are answered in between.
 */
import type { Response } from 'express'
import type { Journal, JournalEntry, JournalFilter } from '../../journal/journal.js'
import { refuse } from './common.js'

/** The most one response of a journal read writes: past it, the page stops and its headers say where to go on. */
export const READ_MAX_BYTES = 8 * 1024 * 1024
/**
 * What one read holds of the budget: a chunk being built and one being sent (each `CHUNK_CHARS` and one entry at most;
 * an entry is bounded by the journal's 16 KiB prefixes and node's 16 KiB of request headers).
 */
export const READ_SHARE_BYTES = 1024 * 1024
/** The reads under way share this by default: 32 reads at once. */
export const DEFAULT_ADMIN_READ_MAX_BYTES = 32 * READ_SHARE_BYTES
/** The longest a read works before it lets the event loop answer others. */
const SLICE_MS = 2
/** A chunk is sent once it holds this many characters. */
const CHUNK_CHARS = 64 * 1024
/** Kept entries looked at per step of a scan (each built whole: a step is a fraction of a slice). */
const STEP = 8
/** Bytes an entry may still grow by between measuring and writing: its `delivered` number, set when its answer went out. */
const SLACK = 32

export interface AdminReads {
  /** Takes one read's share of the budget; returns what gives it back, or `undefined` when the budget is spent. */
  take(): (() => void) | undefined
  /** Resolves on the read's next turn: one read works per event-loop turn. */
  turn(): Promise<void>
  /** A client that takes nothing of a read for this long is cut off. */
  readonly stallMs: number
}

/**
 * @example
 * const reads = createAdminReads({ maxBytes: 32 * 1024 * 1024, stallMs: 30_000 })
 */
export function createAdminReads({
  maxBytes = DEFAULT_ADMIN_READ_MAX_BYTES,
  stallMs,
}: {
  maxBytes?: number | undefined
  stallMs: number
}): AdminReads {
  if (!Number.isSafeInteger(maxBytes) || maxBytes < READ_SHARE_BYTES)
    throw new TypeError(
      `[petstore-mock] adminReadMaxBytes must be a whole number of bytes of at least ${READ_SHARE_BYTES} (one read's share), got ${String(maxBytes)}.`,
    )
  let held = 0
  const waiting: (() => void)[] = []
  let scheduled = false
  const next = () => {
    scheduled = false
    waiting.shift()?.()
    if (waiting.length > 0) schedule()
  }
  // One read per `setImmediate`: immediates queued while the check phase runs wait for the next turn, after I/O.
  const schedule = () => {
    if (scheduled) return
    scheduled = true
    setImmediate(next)
  }
  return {
    stallMs,
    take() {
      if (held + READ_SHARE_BYTES > maxBytes) return undefined
      held += READ_SHARE_BYTES
      let given = false
      return () => {
        if (given) return
        given = true
        held -= READ_SHARE_BYTES
      }
    },
    turn: () =>
      new Promise<void>((resolve) => {
        waiting.push(resolve)
        schedule()
      }),
  }
}

/** A read's pace: `pace()` yields once the read has worked `SLICE_MS` since its last turn. */
function pacer(reads: AdminReads): { pace(): Promise<void>; yield(): Promise<void> } {
  let since = performance.now()
  const take = async () => {
    await reads.turn()
    since = performance.now()
  }
  return {
    pace: () => (performance.now() - since < SLICE_MS ? Promise.resolve() : take()),
    yield: take,
  }
}

/** Resolves once `res` has sent what it buffered; rejects when it closes, or is cut off after `stallMs` without. */
function drained(res: Response, stallMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      clearTimeout(timer)
      res.off('drain', onDrain)
      res.off('close', onClose)
      if (error) reject(error)
      else resolve()
    }
    const onDrain = () => done()
    const onClose = () => done(new Error('closed'))
    const timer = setTimeout(() => {
      // A stalled reader: its socket is destroyed, so what waits for it is released (Bounded by construction).
      res.destroy()
      done(new Error('stalled'))
    }, stallMs)
    res.on('drain', onDrain)
    res.on('close', onClose)
  })
}

/** Text written to `res` in chunks of `CHUNK_CHARS`, each once the client took the one before. */
export function chunkWriter(res: Response, reads: AdminReads) {
  const { yield: yieldTurn } = pacer(reads)
  let chunk = ''
  const flush = async (): Promise<void> => {
    if (chunk === '') return
    const ok = res.write(chunk)
    chunk = ''
    if (ok) return
    await drained(res, reads.stallMs)
    // Went on from a 'drain' event: back in line, so reads resumed together do not hold one turn between them.
    await yieldTurn()
  }
  return {
    add: (text: string): Promise<void> => {
      chunk += text
      return chunk.length >= CHUNK_CHARS ? flush() : Promise.resolve()
    },
    flush,
  }
}

/**
 * Writes a text given in pieces (a world's state, `snapshotPieces`) under the admin read budget, a piece and a chunk
 * held at a time: no byte ceiling of its own (a state is only useful whole), yet bounded in what it holds at once.
 * @example
 * streamPieces(res, reads, snapshotPieces(world.snapshot()))
 */
export function streamPieces(res: Response, reads: AdminReads, pieces: Iterable<string>): void {
  underBudget(res, reads, async (open) => {
    const out = chunkWriter(res, reads)
    const { pace } = pacer(reads)
    for (const piece of pieces) {
      if (!open()) return
      if (!res.headersSent) res.status(200).set('content-type', 'application/json; charset=utf-8')
      await out.add(piece)
      await pace()
    }
    await out.flush()
    res.end()
  })
}

/**
 * Runs one admin read under the budget: 503 when none is left; else `run` on the read's first turn, its share given
 * back when the response closes. A failure before the headers is the Error body; after them, the socket is destroyed.
 */
function underBudget(res: Response, reads: AdminReads, run: (open: () => boolean) => Promise<void>): void {
  const release = reads.take()
  if (!release) {
    res.set('retry-after', '1')
    refuse(res, 'too_many_admin_reads', 'The journal reads under way hold the whole admin read budget; retry in a moment.')
    return
  }
  let open = true
  res.on('close', () => {
    open = false
    release()
  })
  reads
    .turn()
    .then(() => run(() => open))
    .catch((error: unknown) => {
      if (!open) return
      if (res.headersSent) return void res.destroy()
      console.error('[petstore-mock] Admin API error:', error)
      refuse(res, 'internal_error', 'The admin API failed unexpectedly; the server log has the details.')
    })
}

/** What one page holds, measured before its headers are sent. */
export interface PageExtent {
  readonly count: number
  readonly oldest: number | undefined
  readonly newest: number | undefined
  /** Entries were left out on the page's far side (older ones, or with `after` newer ones). */
  readonly more: boolean
  /** The byte ceiling stopped the page (not its `limit`). */
  readonly stopped: boolean
}

/** A read of journal entries as a JSON text of `head`, the entries' texts joined by commas, and `tail`. */
export interface JournalRead {
  readonly journal: Journal
  readonly filter: JournalFilter
  /** Without `after`: the newest entries (before `before` if given); with it, the oldest ones after it. */
  readonly before?: number | undefined
  readonly after?: number | undefined
  readonly limit: number
  readonly head: string
  readonly tail: string
  text(entry: JournalEntry): string
  /** The response's headers, for the page measured. */
  headers(page: PageExtent): Record<string, string>
}

/** The entries of the read from `start` on, `STEP` at a time, pacing between steps. */
async function* scan(read: JournalRead, start: number, toward: 'older' | 'newer', pace: () => Promise<void>) {
  for (let from = start; ; ) {
    const step = read.journal.scan(read.filter, { from, toward, count: STEP })
    yield* step.entries
    if (step.next === undefined) return
    from = step.next
    await pace()
  }
}

/** Which entries the page holds: from its cursor, until its limit or the byte ceiling. Nothing of them is kept. */
async function measure(read: JournalRead, pace: () => Promise<void>, open: () => boolean): Promise<PageExtent> {
  const from = read.after ?? read.before ?? Number.MAX_SAFE_INTEGER
  let bytes = Buffer.byteLength(read.head) + Buffer.byteLength(read.tail)
  let count = 0
  let oldest: number | undefined
  let newest: number | undefined
  const extent = (more: boolean, stopped: boolean): PageExtent => ({ count, oldest, newest, more, stopped })
  for await (const entry of scan(read, from, read.after === undefined ? 'older' : 'newer', pace)) {
    if (count === read.limit) return extent(true, false)
    const size = Buffer.byteLength(read.text(entry)) + SLACK + (count > 0 ? 1 : 0)
    // The first entry always goes: an entry is far below the ceiling.
    if (count > 0 && bytes + size > READ_MAX_BYTES) return extent(true, true)
    bytes += size
    count += 1
    oldest = Math.min(oldest ?? entry.seq, entry.seq)
    newest = Math.max(newest ?? entry.seq, entry.seq)
    await pace()
    if (!open()) break
  }
  return extent(false, false)
}

/** Writes the entries of the page measured, oldest first. */
async function writeEntries(read: JournalRead, page: PageExtent, out: ReturnType<typeof chunkWriter>, pace: () => Promise<void>) {
  await out.add(read.head)
  let first = true
  const newest = page.newest ?? 0
  if (page.count > 0)
    for await (const entry of scan(read, (page.oldest ?? 1) - 1, 'newer', pace)) {
      if (entry.seq > newest) break
      await out.add(`${first ? '' : ','}${read.text(entry)}`)
      first = false
      await pace()
    }
  await out.add(read.tail)
  await out.flush()
}

/**
 * Answers `res` with a page of the journal, measured then written entry by entry (or 503 when the budget is spent).
 *
 * @example
 * streamJournalRead(res, reads, { journal, filter: {}, limit: 100, head: '[', tail: ']', text: stringifyJson, headers: () => ({}) })
 */
export function streamJournalRead(res: Response, reads: AdminReads, read: JournalRead): void {
  underBudget(res, reads, async (open) => {
    const { pace } = pacer(reads)
    const page = await measure(read, pace, open)
    if (!open()) return
    res.status(200).set({ 'content-type': 'application/json; charset=utf-8', ...read.headers(page) })
    await writeEntries(read, page, chunkWriter(res, reads), pace)
    res.end()
  })
}
