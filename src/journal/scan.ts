/**
 * Reading a journal's entries: a whole page at once (`journal.page`, in-process), or a few entries per step for a
 * read that streams what it finds and yields between steps (the admin API's pages, HAR export and event replay), so
 * no read builds its whole answer and none holds the event loop for long (decision 020).
 */
import { type JournalEntry, type JournalFilter, type JournalSummary, matchesFilter, type Raw, toEntry, toSummary } from './entry.js'
import type { PackedEntries } from './packed/entries-ring.js'
import { type Stored, unpack } from './packed/record-layout.js'

/** Where one step of a scan starts and which way it goes. */
export interface ScanOptions {
  /** Start after this sequence number (`toward: 'newer'`) or before it (`'older'`). */
  readonly from: number
  readonly toward: 'newer' | 'older'
  /** How many kept entries the step looks at, at most, matching or not: what bounds one step's work. */
  readonly count: number
}

/** One step of a scan. */
export interface ScanStep<T> {
  /** What the step found, in the scan's order (oldest first toward newer, newest first toward older). */
  readonly entries: T[]
  /** Where the next step starts (the last sequence number looked at), or `undefined` when nothing is left that way. */
  readonly next: number | undefined
}

/** The entry of a packed record. */
export const entryOf = (stored: Stored): JournalEntry => toEntry(unpack(stored))

/**
 * Up to `count` kept entries from `from` toward `toward`; `build` makes what the caller reads of each one that matches
 * `filter` (the filter is checked on the summary: nothing of a body is parsed for an entry it leaves out).
 *
 * @example
 * const step = scanStep(packed, {}, { from: 0, toward: 'newer', count: 32 }, (raw) => toEntry(raw))
 */
export function scanStep<T>(
  packed: PackedEntries,
  filter: JournalFilter,
  { from, toward, count }: ScanOptions,
  build: (raw: Raw, summary: () => JournalSummary) => T,
): ScanStep<T> {
  const entries: T[] = []
  const everything = Object.values(filter).every((value) => value === undefined)
  const take = (stored: Stored): void => {
    const raw = unpack(stored)
    let summary: JournalSummary | undefined
    const summarize = () => {
      summary ??= toSummary(raw)
      return summary
    }
    if (everything || matchesFilter(summarize(), filter)) entries.push(build(raw, summarize))
  }
  if (toward === 'newer') {
    const first = packed.indexAbove(from)
    const end = Math.min(packed.size, first + count)
    for (let i = first; i < end; i++) take(packed.at(i))
    return { entries, next: end < packed.size ? packed.at(end - 1).seq : undefined }
  }
  // The newest entry numbered below `from`, then older ones.
  const last = packed.indexAbove(from - 1) - 1
  const end = Math.max(-1, last - count)
  for (let i = last; i > end; i--) take(packed.at(i))
  return { entries, next: end >= 0 ? packed.at(end + 1).seq : undefined }
}

/** Which page `journal.page` answers: the newest `limit` matching entries, or those before or after a cursor. */
export interface PageOptions {
  readonly limit: number
  readonly before?: number | undefined
  readonly after?: number | undefined
}

export function selectPage(
  all: readonly Stored[],
  filter: JournalFilter,
  { limit, before, after }: PageOptions,
): { entries: JournalEntry[]; more: boolean } {
  // Toward newer from `after`, else toward older from `before` (or the newest): either way, nearest the cursor first.
  const candidates =
    after !== undefined
      ? all.filter((stored) => stored.seq > after)
      : all.filter((stored) => before === undefined || stored.seq < before).reverse()
  const entries: JournalEntry[] = []
  let more = false
  for (const stored of candidates) {
    const entry = entryOf(stored)
    if (!matchesFilter(entry, filter)) continue
    more = entries.length === limit
    if (more) break
    entries.push(entry)
  }
  return { entries: after === undefined ? entries.reverse() : entries, more }
}
