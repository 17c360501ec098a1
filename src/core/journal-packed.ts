/**
 * The entries a journal keeps (issue #18): at most its limit, each packed by a `ChunkLog` into the chunks its byte
 * budget holds (see `journal-chunks.ts`).
 */
import type { JournalBudget } from './journal-budget.js'
import { ChunkLog, type Stored } from './journal-chunks.js'
import type { Raw } from './journal-entry.js'

/**
 * A journal's entries: at most `limit`, oldest first, packed in a `ChunkLog` whose chunks the budget holds. The
 * budget may take the oldest chunk back at any time (when any journal needs room): its entries go with it.
 */
export class PackedEntries {
  readonly #limit: number
  readonly #log: ChunkLog
  /** The entries' places, oldest first from `#head`. */
  #kept: Stored[] = []
  #head = 0

  constructor(limit: number, budget: JournalBudget) {
    this.#limit = limit
    this.#log = new ChunkLog(budget, { dropOldest: () => this.#dropOldestChunk() })
  }

  /** Packs `raw`; `undefined` when it is larger than the whole budget (then it is not kept). */
  keep(raw: Raw): Stored | undefined {
    // Packing may need a new chunk, and the budget may then drop this journal's oldest entries.
    const stored = this.#log.append(raw)
    if (stored === undefined) return undefined
    this.#kept.push(stored)
    if (this.#kept.length - this.#head > this.#limit) this.#dropFirst()
    return stored
  }

  /** The entries kept, oldest first. */
  live(): Stored[] {
    return this.#kept.slice(this.#head)
  }

  /** The entry numbered `wanted`, searched from the newest (a limit of 0 or a clear leaves gaps in the numbers). */
  find(wanted: number): Stored | undefined {
    for (let i = this.#kept.length - 1; i >= this.#head; i--) {
      const stored = this.#kept[i] as Stored
      if (stored.seq === wanted) return stored
      if (stored.seq < wanted) return undefined
    }
    return undefined
  }

  clear(): void {
    this.#log.clear()
    this.#kept = []
    this.#head = 0
  }

  /** The oldest entry leaves (the entry limit). */
  #dropFirst(): void {
    const stored = this.#kept[this.#head] as Stored
    this.#kept[this.#head] = undefined as unknown as Stored
    this.#head += 1
    this.#log.leave(stored.chunk)
    this.#compact()
  }

  /** The budget needs room: the oldest chunk goes, with its entries. Returns how many. */
  #dropOldestChunk(): number {
    const chunk = this.#log.dropOldest()
    let dropped = 0
    while (chunk !== undefined && this.#head < this.#kept.length && (this.#kept[this.#head] as Stored).chunk === chunk) {
      this.#kept[this.#head] = undefined as unknown as Stored
      this.#head += 1
      dropped += 1
    }
    this.#compact()
    return dropped
  }

  #compact(): void {
    if (this.#head > 64 && this.#head * 2 > this.#kept.length) {
      this.#kept = this.#kept.slice(this.#head)
      this.#head = 0
    }
  }
}
