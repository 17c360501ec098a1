/**
 * The bytes all journals of a server may hold together (docs/spec-decisions.md row 49): each journal holds the chunks
 * its entries are packed into (packed/entries-ring.ts), so the bytes counted are the bytes kept; past the cap, the oldest
 * chunks of any journal are given back first, and the entries dropped with them counted.
 */

/** A journal that can give up its oldest chunk of entries. */
export interface BudgetOwner {
  /**
   * Gives back the journal's oldest hold (the one the budget names as the oldest it holds for this journal): a chunk
   * of entries, or a spare chunk. Returns how many entries that dropped.
   */
  dropOldest(): number
}

/** What one chunk holds of the budget. */
export interface Hold {
  readonly owner: BudgetOwner
  readonly bytes: number
  released: boolean
}

export interface JournalBudget {
  /** The cap, in bytes. */
  readonly maxBytes: number
  /** Bytes held now. */
  readonly bytes: number
  /** Entries dropped so far to stay under the cap (or not kept: larger than the whole cap). */
  readonly dropped: number
  /**
   * Holds `bytes` for a new chunk of `owner`, dropping the oldest chunks (of any owner, this one's older ones too)
   * while over the cap. A chunk larger than the cap (one entry larger than the cap) is refused: the hold comes back
   * released, and the entry is counted as dropped.
   */
  hold(owner: BudgetOwner, bytes: number): Hold
  /** Gives the bytes of a chunk back (its entries left their journal). */
  release(hold: Hold): void
}

/** The default cap of a server's journals together, and of one in-process world's journal. */
export const DEFAULT_JOURNAL_MAX_BYTES = 64 * 1024 * 1024

/**
 * @example
 * const budget = createJournalBudget(64 * 1024 * 1024)
 * const journal = createJournal({ limit: 1000, now: clock.now, budget })
 */
export function createJournalBudget(maxBytes: number = DEFAULT_JOURNAL_MAX_BYTES): JournalBudget {
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0)
    throw new TypeError(`[petstore-mock] journalMaxBytes must be a whole number of bytes, got ${String(maxBytes)}.`)
  /** Every hold in the order it was taken; released ones are skipped, and swept out now and then. */
  let queue: Hold[] = []
  let head = 0
  let live = 0
  let bytes = 0
  let dropped = 0

  const release = (hold: Hold): void => {
    if (hold.released) return
    hold.released = true
    bytes -= hold.bytes
    live -= 1
  }
  const sweep = (): void => {
    if (head > 1024 && head * 2 > queue.length) {
      queue = queue.slice(head)
      head = 0
    }
    if (queue.length - head > 2 * live + 1024) {
      queue = queue.slice(head).filter((hold) => !hold.released)
      head = 0
    }
  }

  return {
    maxBytes,
    get bytes() {
      return bytes
    },
    get dropped() {
      return dropped
    },
    hold(owner, size) {
      // A chunk larger than the whole cap (its one entry is) is never held: dropping the others would not make room.
      if (size > maxBytes) {
        dropped += 1
        return { owner, bytes: size, released: true }
      }
      const hold: Hold = { owner, bytes: size, released: false }
      queue.push(hold)
      live += 1
      bytes += size
      while (bytes > maxBytes && head < queue.length) {
        const oldest = queue[head++] as Hold
        if (oldest.released) continue
        dropped += oldest.owner.dropOldest()
        // The owner released it; make sure, so the loop always ends.
        release(oldest)
      }
      sweep()
      return hold
    },
    release,
  }
}
