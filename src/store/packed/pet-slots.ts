/**
 * What the pet index keeps per stored pet, in typed arrays at its slot (issue #18, the ninth pass): where its text lies
 * (`PackedTexts`), the text's length in bytes, its id and its status. No object per pet for a full collection to mark.
 */
import type { PetStatus } from '../../schemas.js'
import { PET_STATUSES } from '../../spec.js'
import type { SortedSlots } from './sorted-slots.js'

/** An id as the indexes key it (see `keyOf`). */
export type Key = number | bigint

/**
 * The key of an id in the indexes: the id as a \`number\` when that is exact (every id within ±2^53, so nearly all),
 * else the \`bigint\`. A map keyed by numbers sets and finds about twice as fast as one keyed by \`bigint\`s, and a
 * number of 31 bits or fewer is no object at all. A \`bigint\` past ±2^53 converts to a number that is not a safe
 * integer, so the two kinds of key never meet.
 */
export function keyOf(id: bigint): Key {
  const number = Number(id)
  return Number.isSafeInteger(number) ? number : id
}

/** A pet's status as its code in `Slots.status`: 0 for none, then the spec's statuses (the schema allows no other). */
const CODES = new Map<PetStatus, number>(PET_STATUSES.map((status, index) => [status, index + 1]))
const STATUSES: readonly (PetStatus | undefined)[] = [undefined, ...PET_STATUSES]

/** The code of `status`; `undefined` for a string that is no status (a list of it is empty). */
export function statusCode(status: PetStatus | undefined): number | undefined {
  return status === undefined ? 0 : CODES.get(status)
}

export function statusOfCode(code: number): PetStatus | undefined {
  return STATUSES[code]
}

/** Per slot: where its text lies, its length, its id as a number (NaN for a `bigint` id, kept aside) and its status. */
export class Slots {
  at = new Float64Array(16)
  length = new Uint32Array(16)
  id = new Float64Array(16)
  status = new Uint8Array(16)
  readonly bigIds = new Map<number, bigint>()
  readonly free: number[] = []
  count = 0

  /** A slot for a new pet: a freed one, or the next (the columns double when full). */
  take(): number {
    const reused = this.free.pop()
    if (reused !== undefined) return reused
    if (this.count === this.id.length) {
      const size = this.id.length * 2
      this.at = grown(this.at, new Float64Array(size))
      this.length = grown(this.length, new Uint32Array(size))
      this.id = grown(this.id, new Float64Array(size))
      this.status = grown(this.status, new Uint8Array(size))
    }
    return this.count++
  }

  keyAt(slot: number): Key {
    const id = this.id[slot] as number
    return Number.isNaN(id) ? (this.bigIds.get(slot) as bigint) : id
  }
}

function grown<T extends Float64Array | Uint32Array | Uint8Array>(from: T, to: T): T {
  to.set(from as never)
  return to
}

/** Position of `key` in `list`, or where it would be inserted. */
function search(list: SortedSlots, slots: Slots, key: Key): { index: number; found: boolean } {
  let low = 0
  let high = list.length
  while (low < high) {
    const mid = (low + high) >>> 1
    // A number and a bigint compare exactly; keys of equal ids are of one kind (`keyOf`).
    const midKey = slots.keyAt(list.at(mid))
    if (midKey === key) return { index: mid, found: true }
    if (midKey < key) low = mid + 1
    else high = mid
  }
  return { index: low, found: false }
}

/** Puts `slot` in its place by `key`; `true` when that was an append (the slots before it did not move). */
export function insertSorted(list: SortedSlots, slots: Slots, slot: number, key: Key): boolean {
  const last = list.last()
  // Ids are assigned in ascending order, so the common case is an append.
  if (last === undefined || slots.keyAt(last) < key) {
    list.insert(list.length, slot)
    return true
  }
  const { index, found } = search(list, slots, key)
  if (found) list.removeAt(index)
  list.insert(index, slot)
  return false
}

export function removeSorted(list: SortedSlots, slots: Slots, key: Key): void {
  const { index, found } = search(list, slots, key)
  if (found) list.removeAt(index)
}
