/**
 * The pets of a world, indexed: a `Map` by id, so `get` is O(1), and the entries in id order, all of them and per
 * status, so `list` takes the first `limit` whatever the number of pets (no full scans). Each entry keeps the pet's
 * JSON text, written once when the pet is stored; every answer about it sends that text. Decision 023 says why this
 * is a plain `Map` and arrays, and what the figures were.
 */
import { petOfText, serializePage, serializePet } from '../core/json.js'
import type { PetEntry, PetPage } from '../core/types.js'
import type { PetRecord, PetStatus } from '../schemas.js'

/**
 * The kept pages' bodies hold at most this many characters in all (then they are dropped, and kept anew): a client
 * polling the same list gets the same text until the next write, nothing joined per request (decision 023).
 */
const PAGE_CACHE_CHARS = 64 * 1024

export interface PetIndex {
  readonly size: number
  get(id: bigint): PetEntry | undefined
  list(status: PetStatus | undefined, limit: number): PetPage
  /** Adds or replaces the pet with this id. */
  put(pet: PetRecord): PetEntry
  /** Adds a pet whose id is above every stored id (a create): no lookup of a pet to replace. */
  putNew(pet: PetRecord): PetEntry
  remove(id: bigint): void
  clear(): void
  /** Takes every pet of `other` (an index made by `createPetIndex`) in place of its own, at once; `other` is not used after. */
  adopt(other: PetIndex): void
  /** The highest id stored, or 0n. */
  maxId(): bigint
  /** The pet at `position` in id order (0 <= position < size). */
  entryAt(position: number): PetEntry
  /** Its text only. */
  textAt(position: number): string
  /**
   * Counts the changes other than a create's append (a pet replaced, put between others or removed, or all cleared):
   * while it stays the same, the pets at the first positions stay as they were.
   */
  readonly rewrites: number
}

/** An id as the index keys it (see `keyOf`). */
type Key = number | bigint

/**
 * The key of an id: the id as a `number` when that is exact (every id within ±2^53, so nearly all), else the
 * `bigint`. A `Map` keyed by numbers sets and finds about twice as fast as one keyed by `bigint`s, and a number of 31
 * bits or fewer is no object at all. A `bigint` past ±2^53 converts to a number that is not a safe integer, so the two
 * kinds of key never meet, and a number and a `bigint` compare exactly with `<`.
 */
function keyOf(id: bigint): Key {
  const number = Number(id)
  return Number.isSafeInteger(number) ? number : id
}

/**
 * A stored pet: its text, its id as the index keys it and its status. The record is read back from the text when
 * asked for (only snapshots and set-up code ask): kept as well, it would add two `bigint`s and an object per pet for
 * every full collection to mark (`npm run bench -- --only=memory` measures what a world keeps per pet).
 */
class StoredPet implements PetEntry {
  constructor(
    readonly json: string,
    readonly id: Key,
    readonly status: PetStatus | undefined,
  ) {}

  get pet(): PetRecord {
    return petOfText(this.json, BigInt(this.id), this.status)
  }
}

/** Position of `key` in `list`, or where it would go. */
function search(list: readonly StoredPet[], key: Key): { index: number; found: boolean } {
  let low = 0
  let high = list.length
  while (low < high) {
    const mid = (low + high) >>> 1
    const at = (list[mid] as StoredPet).id
    if (at === key) return { index: mid, found: true }
    if (at < key) low = mid + 1
    else high = mid
  }
  return { index: low, found: false }
}

/** Puts `entry` in its place by id; `true` when that was an append (the entries before it did not move). */
function insertSorted(list: StoredPet[], entry: StoredPet): boolean {
  const last = list[list.length - 1]
  // Ids are assigned in ascending order, so the common case is an append.
  if (last === undefined || last.id < entry.id) {
    list.push(entry)
    return true
  }
  const { index, found } = search(list, entry.id)
  list.splice(index, found ? 1 : 0, entry)
  return false
}

function removeSorted(list: StoredPet[] | undefined, key: Key): void {
  if (!list) return
  const { index, found } = search(list, key)
  if (found) list.splice(index, 1)
}

class MapPetIndex implements PetIndex {
  #byId = new Map<Key, StoredPet>()
  #sorted: StoredPet[] = []
  #byStatus = new Map<PetStatus, StoredPet[]>()
  readonly #pages = new Map<string, PetPage>()
  #pageChars = 0
  rewrites = 0

  get size(): number {
    return this.#byId.size
  }

  get(id: bigint): PetEntry | undefined {
    return this.#byId.get(keyOf(id))
  }

  list(status: PetStatus | undefined, limit: number): PetPage {
    const key = `${status ?? ''}:${limit}`
    const kept = this.#pages.get(key)
    if (kept) return kept
    const list = status === undefined ? this.#sorted : this.#byStatus.get(status)
    const entries = list ? list.slice(0, limit) : []
    const json = serializePage(entries)
    if (this.#pageChars + json.length > PAGE_CACHE_CHARS) this.#forgetPages()
    const page: PetPage = { entries, json }
    this.#pages.set(key, page)
    this.#pageChars += json.length
    return page
  }

  put(pet: PetRecord): PetEntry {
    this.remove(pet.id)
    return this.putNew(pet)
  }

  putNew(pet: PetRecord): PetEntry {
    this.#forgetPages()
    const entry = new StoredPet(serializePet(pet), keyOf(pet.id), pet.status)
    this.#byId.set(entry.id, entry)
    if (!insertSorted(this.#sorted, entry)) this.rewrites += 1
    if (pet.status !== undefined) {
      let list = this.#byStatus.get(pet.status)
      if (!list) {
        list = []
        this.#byStatus.set(pet.status, list)
      }
      insertSorted(list, entry)
    }
    return entry
  }

  remove(id: bigint): void {
    const key = keyOf(id)
    const entry = this.#byId.get(key)
    if (!entry) return
    this.rewrites += 1
    this.#forgetPages()
    this.#byId.delete(key)
    removeSorted(this.#sorted, key)
    if (entry.status !== undefined) removeSorted(this.#byStatus.get(entry.status), key)
  }

  adopt(other: PetIndex): void {
    if (!(other instanceof MapPetIndex)) throw new TypeError('A pet index adopts only another of its kind.')
    this.rewrites += 1
    this.#forgetPages()
    this.#byId = other.#byId
    this.#sorted = other.#sorted
    this.#byStatus = other.#byStatus
  }

  clear(): void {
    this.rewrites += 1
    this.#forgetPages()
    this.#byId.clear()
    this.#sorted = []
    this.#byStatus.clear()
  }

  maxId(): bigint {
    const last = this.#sorted[this.#sorted.length - 1]
    return last === undefined ? 0n : BigInt(last.id)
  }

  entryAt(position: number): PetEntry {
    return this.#sorted[position] as StoredPet
  }

  textAt(position: number): string {
    return (this.#sorted[position] as StoredPet).json
  }

  #forgetPages(): void {
    if (this.#pages.size === 0) return
    this.#pages.clear()
    this.#pageChars = 0
  }
}

export function createPetIndex(): PetIndex {
  return new MapPetIndex()
}
