/**
 * The request journal of one world: the last N exchanges it answered, newest last, for tests that
 * assert what a client sent and for the retry audit. Bounded in entries and in bytes: each entry
 * keeps at most a prefix of its body, and a budget (shared by all worlds of a server) caps the whole.
 */
import { detachedSlice, utf8Length } from '../core/json.js'
import type { ApiRequest, ApiResponse } from '../core/types.js'
import { createJournalBudget, type JournalBudget } from './budget.js'
import { type JournalEntry, type JournalFilter, type JournalSummary, matchesFilter, type Raw, toEntry, toSummary } from './entry.js'
import { PackedEntries } from './packed/entries-ring.js'
import { entryOf, type PageOptions, type ScanOptions, type ScanStep, scanStep, selectPage } from './scan.js'

export type { JournalEntry, JournalFilter, JournalSummary } from './entry.js'
export type { PageOptions, ScanOptions, ScanStep } from './scan.js'

/** An entry keeps at most this many characters of its request body (docs/spec-decisions.md row 49). */
export const BODY_PREFIX_CHARS = 16 * 1024

export interface Journal {
  all(): JournalEntry[]
  find(filter?: JournalFilter): JournalEntry[]
  clear(): void
  /** Resolves with the first entry (already recorded or coming) that matches, or rejects after `timeout` ms (default 5,000). */
  waitFor(predicate: (entry: JournalEntry) => boolean, options?: { timeout?: number }): Promise<JournalEntry>
  /**
   * A page of the entries matching `filter`, newest last: the newest `limit` ones, or with `before` those
   * older than that sequence number, or with `after` the oldest ones newer than it. `more` says whether
   * the page left entries out on its older side (with `after`: on its newer side).
   */
  page(filter: JournalFilter, options: PageOptions): { entries: JournalEntry[]; more: boolean }
  /** The entry of sequence number `seq`, while the journal keeps it. */
  get(seq: number): JournalEntry | undefined
  /**
   * One step of a read that goes through the entries a few at a time and yields between steps (the admin API's
   * pages, HAR export and event replay): the entries matching `filter` among the next `count` kept ones.
   */
  scan(filter: JournalFilter, step: ScanOptions): ScanStep<JournalEntry>
  /** `scan` of every entry, as summaries (no body parsed, no header copied): the event stream's replay. */
  scanSummaries(step: ScanOptions): ScanStep<JournalSummary>
  /** The sequence number of the newest exchange recorded (kept or not), 0 before the first. */
  readonly lastSeq: number
  /**
   * Calls `listener` with each exchange's number and a function building its summary (no body parsed, no header
   * copied), as it is recorded (also with a limit of 0): a listener that skips some builds nothing for them.
   * Returns the function that stops it.
   */
  listen(listener: (seq: number, summarize: () => JournalSummary, counted: boolean) => void): () => void
  /** How many entries it keeps. */
  readonly limit: number
}

/** What a host or step knows of an exchange besides the request and the response. */
export interface RecordExtra {
  arrival: number
  scenario?: string | undefined
  fault?: string | undefined
  /** From arrival until the answer was ready, in ms (the response's `delayMs` is added). */
  durationMs?: number | undefined
}

export interface JournalRecorder extends Journal {
  record(request: ApiRequest, response: ApiResponse, extra: RecordExtra): void
  /** The host handed `response` to the client when `nextArrival` was the next arrival number. */
  delivered(response: ApiResponse, nextArrival: number): void
  /** Calls `listener` after each `clear()` (the world's event stream says so); returns the function that stops it. */
  onClear(listener: () => void): () => void
  /** `clear()` without telling the `onClear` listeners: for a reset, a scenario switch or an eviction, which send their own event. */
  empty(): void
}

/** The first entry, recorded or coming, that matches; rejects after `timeout` ms. */
function waitForEntry(
  recorded: () => JournalEntry[],
  waiters: Set<(entry: JournalEntry) => void>,
  predicate: (entry: JournalEntry) => boolean,
  timeout: number,
  count: () => number,
): Promise<JournalEntry> {
  return new Promise((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const settle = (end: () => void): void => {
      waiters.delete(waiter)
      clearTimeout(timer)
      end()
    }
    // A predicate that throws ends the wait with its error, never the request being recorded (test/journal/wait-for.test.ts).
    const waiter = (entry: JournalEntry) => {
      try {
        if (predicate(entry)) settle(() => resolve(entry))
      } catch (error) {
        settle(() => reject(error))
      }
    }
    try {
      const found = recorded().find(predicate)
      if (found) return resolve(found)
    } catch (error) {
      return reject(error)
    }
    const message = () =>
      `[petstore-mock] journal.waitFor() timed out after ${timeout} ms: no request matched. Recorded: ${count()} so far.`
    timer = setTimeout(() => settle(() => reject(new Error(message()))), timeout)
    waiters.add(waiter)
  })
}

function errorCode(response: ApiResponse): string | undefined {
  if (response.status < 400) return undefined
  const match = /^\{"code":"([a-z_]+)"/.exec(response.body)
  return match?.[1]
}

/** The first `BODY_PREFIX_CHARS` characters, not a view that keeps the whole body alive (test/regressions/journal-prefix-memory.test.ts). */
const prefixOf = (text: string): string => detachedSlice(text, 0, BODY_PREFIX_CHARS)

/** What the journal keeps of an exchange: the body cut to its first `BODY_PREFIX_CHARS` characters. */
function rawOf(seq: number, at: number, request: ApiRequest, response: ApiResponse, extra: RecordExtra): Raw {
  const body = request.body
  const truncated = body !== undefined && body.length > BODY_PREFIX_CHARS
  const answer = response.body
  const answerTruncated = answer.length > BODY_PREFIX_CHARS
  return {
    seq,
    at,
    method: request.method,
    path: request.path,
    query: request.query,
    body: truncated ? prefixOf(body) : body,
    bodySize: truncated ? utf8Length(body) : undefined,
    status: response.status,
    headers: response.headers,
    requestHeaders: request.headers,
    responseBody: answerTruncated ? prefixOf(answer) : answer,
    responseTruncated: answerTruncated,
    durationMs: Math.round(((extra.durationMs ?? 0) + (response.delayMs ?? 0)) * 1000) / 1000,
    delayMs: Math.round(response.delayMs ?? 0),
    meta: response.meta,
    code: errorCode(response),
    scenario: extra.scenario,
    fault: extra.fault,
    arrival: extra.arrival,
    delivered: undefined,
  }
}

type Listener = (seq: number, summarize: () => JournalSummary, counted: boolean) => void

/** Tells the listeners of a new exchange: its number, its summary when asked (built once), and whether a key's quota counted it. */
function tellListeners(raw: Raw, listeners: Set<Listener>): void {
  let summary: JournalSummary | undefined
  const summarize = () => {
    summary ??= toSummary(raw)
    return summary
  }
  const counted = raw.meta?.plan !== undefined
  // Not copied first: this runs for every request while anyone listens, and a listener that stops is skipped anyway.
  for (const listener of listeners) listener(raw.seq, summarize, counted)
}

/**
 * Answers recorded and not yet handed to the client. Most are delivered before the next is recorded, so the newest
 * waits in `last`. The standalone server holds the answers of an event-loop turn and sends them together
 * (decisions/015-answers-of-a-turn-together.md): those recorded before the newest wait in two arrays, oldest first, looked up from the front. Not a
 * Map keyed by the response: with answers held, it tripled the bytes each request left to the old generation. Capped
 * for hosts that never report delivery.
 */
function createUndelivered(cap: number) {
  let lastResponse: ApiResponse | undefined
  let lastRaw: Raw | undefined
  let responses: (ApiResponse | undefined)[] = []
  let raws: (Raw | undefined)[] = []
  // The held answers go out oldest first: the ones before `head` were taken (or dropped past the cap).
  let head = 0
  const compact = (): void => {
    responses = responses.slice(head)
    raws = raws.slice(head)
    head = 0
  }
  return {
    hold(response: ApiResponse, raw: Raw): void {
      if (lastResponse !== undefined && lastRaw !== undefined) {
        responses.push(lastResponse)
        raws.push(lastRaw)
        if (responses.length - head > cap) {
          responses[head] = undefined
          raws[head] = undefined
          head += 1
        }
        if (head > 64 && head * 2 > responses.length) compact()
      }
      lastResponse = response
      lastRaw = raw
    },
    take(response: ApiResponse): Raw | undefined {
      if (response === lastResponse) {
        const raw = lastRaw
        lastResponse = lastRaw = undefined
        return raw
      }
      if (response === responses[head]) {
        const raw = raws[head]
        responses[head] = undefined
        raws[head] = undefined
        head += 1
        if (head === responses.length) responses.length = raws.length = head = 0
        return raw
      }
      const at = responses.indexOf(response, head)
      if (at === -1) return undefined
      const raw = raws[at]
      responses.splice(at, 1)
      raws.splice(at, 1)
      return raw
    },
  }
}

/**
 * Creates a bounded journal. Entries are built lazily from the raw exchange, so recording costs
 * little on the hot path.
 *
 * @example
 * const journal = createJournal({ limit: 1000, now: clock.now })
 * journal.find({ method: 'POST', status: 201 })
 */
export function createJournal({
  limit,
  now,
  budget = createJournalBudget(),
}: {
  limit: number
  now: () => number
  budget?: JournalBudget
}): JournalRecorder {
  if (!Number.isInteger(limit) || limit < 0)
    throw new TypeError(`[petstore-mock] journal limit must be a whole number, got ${String(limit)}.`)
  const undelivered = createUndelivered(Math.max(limit, 1_000))
  const entries = new PackedEntries(limit, budget)
  let seq = 0
  const waiters = new Set<(entry: JournalEntry) => void>()
  const listeners = new Set<Listener>()
  const clearListeners = new Set<() => void>()
  const all = (): JournalEntry[] => entries.live().map(entryOf)
  return {
    limit,
    record(request, response, extra) {
      seq += 1
      if (limit === 0 && waiters.size === 0 && listeners.size === 0) return
      const raw = rawOf(seq, now(), request, response, extra)
      if (limit > 0) entries.keep(raw)
      undelivered.hold(response, raw)
      if (waiters.size > 0) {
        const entry = toEntry(raw)
        // Copied first: a waiter that matches removes itself.
        for (const waiter of [...waiters]) waiter(entry)
      }
      if (listeners.size > 0) tellListeners(raw, listeners)
    },
    delivered(response, nextArrival) {
      const raw = undelivered.take(response)
      if (!raw) return
      // The packed entry (if still kept), and the one listeners may still summarize.
      entries.delivered(raw.seq, nextArrival)
      raw.delivered = nextArrival
      raw.entry = undefined
    },
    all,
    find: (filter = {}) => all().filter((entry) => matchesFilter(entry, filter)),
    page: (filter, options) => selectPage(entries.live(), filter, options),
    scan: (filter, step) => scanStep(entries, filter, step, toEntry),
    scanSummaries: (step) => scanStep(entries, {}, step, (_raw, summary) => summary()),
    get lastSeq() {
      return seq
    },
    get: (wanted) => {
      const stored = entries.find(wanted)
      return stored === undefined ? undefined : entryOf(stored)
    },
    listen(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    onClear(listener) {
      clearListeners.add(listener)
      return () => clearListeners.delete(listener)
    },
    empty: () => entries.clear(),
    clear() {
      entries.clear()
      for (const listener of clearListeners) listener()
    },
    waitFor: (predicate, options = {}) => waitForEntry(all, waiters, predicate, options.timeout ?? 5_000, () => seq),
  }
}
