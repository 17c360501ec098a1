/**
 * The entries a journal keeps: at most its limit, each packed by a `ChunkLog` into the chunks its byte
 * budget holds (see `chunk-log.ts`).
 *
 * Where each entry lies is kept in a ring of typed arrays, not as one object per entry: an object that lives for a
 * thousand requests outlives two young-generation collections under load, is promoted, and then makes the old
 * generation grow at the request rate (more mark-compacts, and concurrent marking threads competing with the server
 * for its core; `npm run bench -- --only=gc` reads the collector's pauses under load).
 */
import type { JournalBudget } from '../budget.js'
import type { Raw } from '../entry.js'
import { ChunkLog } from './chunk-log.js'
import { type Chunk, type Stored, setDelivered } from './record-layout.js'

/** The ring starts this small (an idle session holds little) and doubles up to the journal's limit. */
const FIRST_CAPACITY = 16

/**
 * A journal's entries: at most `limit`, oldest first, packed in a `ChunkLog` whose chunks the budget holds. The
 * budget may take the oldest chunk back at any time (when any journal needs room): its entries go with it.
 */
export class PackedEntries {
  readonly #limit: number
  readonly #log: ChunkLog
  /** The ring: slot `(#head + i) % capacity` holds the i-th oldest entry's chunk, offset and sequence number. */
  #chunks: (Chunk | undefined)[] = []
  #offsets = new Float64Array(0)
  #seqs = new Float64Array(0)
  #head = 0
  #size = 0

  constructor(limit: number, budget: JournalBudget) {
    this.#limit = limit
    this.#log = new ChunkLog(budget, { dropOldest: () => this.#dropOldestChunk() })
  }

  /** Packs `raw`; `false` when it is larger than the whole budget (then it is not kept). */
  keep(raw: Raw): boolean {
    // Packing may need a new chunk, and the budget may then drop this journal's oldest entries.
    const stored = this.#log.append(raw)
    if (stored === undefined) return false
    if (this.#size >= this.#limit) this.#dropFirst()
    if (this.#size === this.#chunks.length) this.#grow()
    const slot = (this.#head + this.#size) % this.#chunks.length
    this.#chunks[slot] = stored.chunk
    this.#offsets[slot] = stored.offset
    this.#seqs[slot] = stored.seq
    this.#size += 1
    return true
  }

  /** The entries kept, oldest first. */
  live(): Stored[] {
    const entries: Stored[] = []
    for (let i = 0; i < this.#size; i++) entries.push(this.#at((this.#head + i) % this.#chunks.length))
    return entries
  }

  /** How many entries it keeps. */
  get size(): number {
    return this.#size
  }

  /** The `index`-th oldest entry kept (0 is the oldest), for reads that go through the entries a few at a time. */
  at(index: number): Stored {
    return this.#at((this.#head + index) % this.#chunks.length)
  }

  /** The index of the oldest entry numbered above `seq` (`size` when none is): a binary search, numbers only grow. */
  indexAbove(seq: number): number {
    let low = 0
    let high = this.#size
    while (low < high) {
      const middle = (low + high) >> 1
      if ((this.#seqs[(this.#head + middle) % this.#chunks.length] as number) > seq) high = middle
      else low = middle + 1
    }
    return low
  }

  /** The entry numbered `wanted`, searched from the newest (a limit of 0 or a clear leaves gaps in the numbers). */
  find(wanted: number): Stored | undefined {
    const slot = this.#slotOf(wanted)
    return slot === -1 ? undefined : this.#at(slot)
  }

  /** Records the arrival number that came next after entry `seq`'s answer went out, if the entry is still kept. */
  delivered(seq: number, nextArrival: number): void {
    const slot = this.#slotOf(seq)
    if (slot !== -1) setDelivered(this.#chunks[slot] as Chunk, this.#offsets[slot] as number, nextArrival)
  }

  clear(): void {
    this.#log.clear()
    this.#chunks = []
    this.#offsets = new Float64Array(0)
    this.#seqs = new Float64Array(0)
    this.#head = 0
    this.#size = 0
  }

  #at(slot: number): Stored {
    return { seq: this.#seqs[slot] as number, chunk: this.#chunks[slot] as Chunk, offset: this.#offsets[slot] as number }
  }

  /** The slot of entry `wanted`, or -1; from the newest, where a just-answered entry is. */
  #slotOf(wanted: number): number {
    const capacity = this.#chunks.length
    for (let i = this.#size - 1; i >= 0; i--) {
      const slot = (this.#head + i) % capacity
      const seq = this.#seqs[slot] as number
      if (seq === wanted) return slot
      if (seq < wanted) return -1
    }
    return -1
  }

  /** Room for more entries: the ring doubles (up to the limit), oldest first from slot 0. */
  #grow(): void {
    const old = this.#chunks.length
    const capacity = Math.min(this.#limit, Math.max(FIRST_CAPACITY, old * 2))
    const chunks: (Chunk | undefined)[] = new Array(capacity).fill(undefined)
    const offsets = new Float64Array(capacity)
    const seqs = new Float64Array(capacity)
    for (let i = 0; i < this.#size; i++) {
      const slot = (this.#head + i) % old
      chunks[i] = this.#chunks[slot]
      offsets[i] = this.#offsets[slot] as number
      seqs[i] = this.#seqs[slot] as number
    }
    this.#chunks = chunks
    this.#offsets = offsets
    this.#seqs = seqs
    this.#head = 0
  }

  /** The oldest entry leaves (the entry limit). */
  #dropFirst(): void {
    const chunk = this.#chunks[this.#head] as Chunk
    this.#chunks[this.#head] = undefined
    this.#head = (this.#head + 1) % this.#chunks.length
    this.#size -= 1
    this.#log.leave(chunk)
  }

  /** The budget needs room: the oldest chunk goes, with its entries. Returns how many. */
  #dropOldestChunk(): number {
    const chunk = this.#log.dropOldest()
    let dropped = 0
    while (chunk !== undefined && this.#size > 0 && this.#chunks[this.#head] === chunk) {
      this.#chunks[this.#head] = undefined
      this.#head = (this.#head + 1) % this.#chunks.length
      this.#size -= 1
      dropped += 1
    }
    return dropped
  }
}
