/**
 * Indexes over the pets: by id (`SlotsById`) and, per status, lists sorted by id, so `get` is O(1) and `list` stops at
 * `limit` whatever the number of pets (no full scans; issue #8). Pages are kept with their JSON body until the next
 * write (issue #18): a client polling the same list gets the same string, with nothing joined, flattened or collected
 * per request.
 *
 * A stored pet is its JSON text in `PackedTexts` and a slot number: its id, status and where its text lies are kept in
 * typed arrays at that slot (issue #18, the ninth pass). A full collection then marks no object per pet: a million
 * stored pets were 228 ms of it as strings and entry objects, 36 ms packed. Entries (`PetEntry`) are made when read.
 */
import { petOfText, serializePage, serializePet } from '../../core/json.js'
import type { PetEntry, PetPage } from '../../core/types.js'
import type { PetRecord, PetStatus } from '../../schemas.js'
import { PackedTexts } from './packed-texts.js'
import { insertSorted, type Key, keyOf, removeSorted, Slots, statusCode, statusOfCode } from './pet-slots.js'
import { SlotsById } from './slots-by-id.js'
import { SortedSlots } from './sorted-slots.js'

/** The kept pages' bodies hold at most this many characters per index (then the pages are dropped, and kept anew). */
const PAGE_CACHE_CHARS = 64 * 1024
/** Texts of removed pets are written anew without them once they are this many bytes and half of all. */
const COMPACT_FROM_BYTES = 1024 * 1024

export interface PetIndex {
  readonly size: number
  /** Bytes the pets' texts hold (chunks included, written or not). */
  readonly textBytes: number
  get(id: bigint): PetEntry | undefined
  list(status: PetStatus | undefined, limit: number): PetPage
  /** Adds or replaces the pet with this id. */
  put(pet: PetRecord): PetEntry
  /** Adds a pet whose id is above every stored id (a create): no lookup of a pet to replace. */
  putNew(pet: PetRecord): PetEntry
  remove(id: bigint): void
  clear(): void
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

/** A pet as it is read: made from its slot when asked for, and dropped by the reader. */
class PackedEntry implements PetEntry {
  constructor(
    readonly json: string,
    readonly id: Key,
    readonly status: PetStatus | undefined,
  ) {}

  /** The record, read back from the text (`petOfText`). */
  get pet(): PetRecord {
    return petOfText(this.json, BigInt(this.id), this.status)
  }
}

class PackedPetIndex implements PetIndex {
  #texts = new PackedTexts()
  #slots = new Slots()
  readonly #byId = new SlotsById()
  readonly #sorted = new SortedSlots()
  readonly #byStatus = new Map<number, SortedSlots>()
  readonly #pages = new Map<string, PetPage>()
  #pageChars = 0
  #deadBytes = 0
  rewrites = 0

  get size(): number {
    return this.#byId.size
  }

  get textBytes(): number {
    return this.#texts.bytes
  }

  get(id: bigint): PetEntry | undefined {
    const slot = this.#byId.get(keyOf(id))
    return slot === undefined ? undefined : this.#entry(slot)
  }

  list(status: PetStatus | undefined, limit: number): PetPage {
    const key = `${status ?? ''}:${limit}`
    const kept = this.#pages.get(key)
    if (kept) return kept
    const code = status === undefined ? undefined : statusCode(status)
    const list = status === undefined ? this.#sorted : code === undefined ? undefined : this.#byStatus.get(code)
    const entries = (list?.first(limit) ?? []).map((slot) => this.#entry(slot))
    const json = serializePage(entries)
    if (this.#pageChars + json.length > PAGE_CACHE_CHARS) this.#forgetPages()
    // Not enumerable: the page still compares and prints as the plain array of entries it is.
    const page: PetPage = Object.defineProperty(entries, 'json', { value: json, enumerable: false })
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
    const json = serializePet(pet)
    const key = keyOf(pet.id)
    const slots = this.#slots
    const slot = slots.take()
    const { at, length } = this.#texts.write(json)
    slots.at[slot] = at
    slots.length[slot] = length
    slots.id[slot] = typeof key === 'number' ? key : Number.NaN
    if (typeof key === 'bigint') slots.bigIds.set(slot, key)
    const code = statusCode(pet.status)
    if (code === undefined) throw new TypeError(`[petstore-mock] Not a pet status: ${String(pet.status)}.`)
    slots.status[slot] = code
    this.#byId.set(key, slot)
    if (!insertSorted(this.#sorted, slots, slot, key)) this.rewrites += 1
    insertSorted(this.#statusList(code), slots, slot, key)
    return new PackedEntry(json, key, statusOfCode(code))
  }

  remove(id: bigint): void {
    const key = keyOf(id)
    const slot = this.#byId.get(key)
    if (slot === undefined) return
    this.rewrites += 1
    this.#forgetPages()
    this.#byId.delete(key)
    removeSorted(this.#sorted, this.#slots, key)
    removeSorted(this.#statusList(this.#slots.status[slot] as number), this.#slots, key)
    this.#slots.bigIds.delete(slot)
    this.#slots.free.push(slot)
    this.#deadBytes += this.#slots.length[slot] as number
    if (this.#deadBytes >= COMPACT_FROM_BYTES && this.#deadBytes * 2 >= this.#texts.bytes) this.#compact()
  }

  clear(): void {
    this.rewrites += 1
    this.#forgetPages()
    this.#texts = new PackedTexts()
    this.#slots = new Slots()
    this.#byId.clear()
    this.#sorted.clear()
    this.#byStatus.clear()
    this.#deadBytes = 0
  }

  maxId(): bigint {
    const last = this.#sorted.last()
    return last === undefined ? 0n : BigInt(this.#slots.keyAt(last))
  }

  entryAt(position: number): PetEntry {
    return this.#entry(this.#sorted.at(position))
  }

  textAt(position: number): string {
    return this.#textOf(this.#sorted.at(position))
  }

  #textOf(slot: number): string {
    return this.#texts.read(this.#slots.at[slot] as number, this.#slots.length[slot] as number)
  }

  #entry(slot: number): PackedEntry {
    const slots = this.#slots
    return new PackedEntry(this.#textOf(slot), slots.keyAt(slot), statusOfCode(slots.status[slot] as number))
  }

  #statusList(code: number): SortedSlots {
    let list = this.#byStatus.get(code)
    if (!list) {
      list = new SortedSlots()
      this.#byStatus.set(code, list)
    }
    return list
  }

  #forgetPages(): void {
    if (this.#pages.size === 0) return
    this.#pages.clear()
    this.#pageChars = 0
  }

  /** Writes the texts of the pets still stored into new chunks, so removed ones no longer hold bytes. */
  #compact(): void {
    const texts = new PackedTexts()
    const slots = this.#slots
    for (let position = 0; position < this.#byId.size; position++) {
      const slot = this.#sorted.at(position)
      const { at, length } = texts.write(this.#textOf(slot))
      slots.at[slot] = at
      slots.length[slot] = length
    }
    this.#texts = texts
    this.#deadBytes = 0
  }
}

export function createPetIndex(): PetIndex {
  return new PackedPetIndex()
}
