/**
 * Where a journal keeps its entries: packed as bytes into chunks (`Uint8Array`s), not as objects. A
 * journal of 1,000 entries as objects (each with its headers objects and body strings) was copied by every young
 * generation collection and then promoted, the largest part of the server's tail under load (`npm run bench --
 * --only=gc` reads the collector's pauses with the journal on and with `--journal-max-bytes 0`).
 * Packed, an entry is a few numbers and one UTF-8 run (laid out by `record-layout.ts`); it is decoded back into a
 * `Raw` when read.
 *
 * Chunks are what the byte budget holds: memory is counted as it is, not estimated. Web APIs only (the journal also
 * runs in the browser).
 */
import type { BudgetOwner, JournalBudget } from '../budget.js'
import type { Raw } from '../entry.js'
import { type Chunk, prepareRecord, type Stored, writeRecord } from './record-layout.js'

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
