/**
 * Where a journal keeps its entries: at most its limit, packed as bytes into chunks (`Uint8Array`s), not as objects.
 * A journal of 1,000 entries as objects (each with its headers objects and body strings) was copied by every young
 * generation collection and then promoted, the largest part of the server's tail under load (`npm run bench --
 * --only=gc` reads the collector's pauses with the journal on and with `--journal-max-bytes 0`). Packed, an entry is
 * a few numbers and one UTF-8 run (laid out by `record-layout.ts`); it is decoded back into a `Raw` when read.
 *
 * Chunks are what the byte budget holds: memory is counted as it is, not estimated. Where each entry lies is kept in a
 * ring of typed arrays, not one object per entry: an object that lives for a thousand requests outlives two
 * young-generation collections under load and is promoted. Web APIs only (the journal also runs in the browser).
 */
import type { BudgetOwner, JournalBudget } from '../budget.js'
import type { Raw } from '../entry.js'
import { type Chunk, prepareRecord, type Stored, setDelivered, writeRecord } from './record-layout.js'

/** A chunk grows from 4 KiB (an idle session holds little) to 64 KiB (few chunks under load). */
const FIRST_CHUNK = 4 * 1024
const LARGEST_CHUNK = 64 * 1024
/**
 * The chunks of one journal, oldest first, writing into the newest. Each chunk holds its bytes of the shared budget;
 * when the budget needs room it calls the journal's `dropOldest`, which drops the oldest chunk's entries.
 */
export class ChunkLog {
  readonly #budget: JournalBudget
  readonly #owner: BudgetOwner
  #chunks: Chunk[] = []
  /**
   * The last emptied full-size chunk, kept for the next one instead of a new allocation (under load a journal fills
   * and drops chunks back to back, each one garbage for the collector). It keeps its hold: the budget counts it, as the
   * oldest.
   */
  #spare: Chunk | undefined
  #nextSize = FIRST_CHUNK

  constructor(budget: JournalBudget, owner: BudgetOwner) {
    this.#budget = budget
    this.#owner = owner
  }

  /** Bytes of the chunks this journal holds now. */
  get bytes(): number {
    let total = 0
    for (const chunk of this.#chunks) total += chunk.bytes.length
    return total
  }

  /** Packs `raw` into the newest chunk (or a new one); `undefined` when it is larger than the whole budget. */
  append(raw: Raw): Stored | undefined {
    const record = prepareRecord(raw)
    const chunk = this.#room(record.room)
    return chunk === undefined ? undefined : writeRecord(chunk, record)
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
      spare.live = 0
      this.#chunks.push(spare)
      return spare
    }
    const max = this.#budget.maxBytes
    const length = Math.max(size, Math.min(this.#nextSize, max))
    const hold = this.#budget.hold(this.#owner, length)
    if (hold.released) return undefined
    this.#nextSize = Math.min(this.#nextSize * 2, LARGEST_CHUNK)
    const bytes = new Uint8Array(length)
    const chunk: Chunk = { bytes, view: new DataView(bytes.buffer), used: 0, live: 0, hold }
    this.#chunks.push(chunk)
    return chunk
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
  }
}

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
    return Array.from({ length: this.#size }, (_, index) => this.at(index))
  }

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
