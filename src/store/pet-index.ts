/**
 * Indexes over the pets: by id (a Map) and, per status, arrays sorted by id, so `get` is O(1) and
 * `list` stops at `limit` whatever the number of pets (no full scans; issue #8). Pages are kept with
 * their JSON body until the next write (issue #18): a client polling the same list gets the same
 * string, with nothing joined, flattened or collected per request.
 */
import { serializePage, serializePet } from '../core/json.js'
import type { PetEntry, PetPage } from '../core/types.js'
import type { PetRecord, PetStatus } from '../schemas.js'

const NO_STATUS = 'none'
/** The kept pages' bodies hold at most this many characters per index (then the pages are dropped, and kept anew). */
const PAGE_CACHE_CHARS = 64 * 1024
type StatusKey = PetStatus | typeof NO_STATUS

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
  /** The highest id stored, or 0n. */
  maxId(): bigint
  /** Every entry in id order: the index's own array, which a create appends to. */
  all(): readonly PetEntry[]
  /**
   * Counts the changes other than a create's append (a pet replaced, put between others or removed, or all cleared):
   * while it stays the same, the first entries of `all()` stay as they were.
   */
  readonly rewrites: number
}

/** Position of `id` in `entries` sorted by id, or where it would be inserted. */
function search(entries: readonly PetEntry[], id: bigint): { index: number; found: boolean } {
  let low = 0
  let high = entries.length
  while (low < high) {
    const mid = (low + high) >>> 1
    const midId = (entries[mid] as PetEntry).pet.id
    if (midId === id) return { index: mid, found: true }
    if (midId < id) low = mid + 1
    else high = mid
  }
  return { index: low, found: false }
}

/** Puts `entry` in its place; `true` when that was an append (the entries before it did not move). */
function insertSorted(entries: PetEntry[], entry: PetEntry): boolean {
  const last = entries[entries.length - 1]
  // Ids are assigned in ascending order, so the common case is an append.
  if (last === undefined || last.pet.id < entry.pet.id) {
    entries.push(entry)
    return true
  }
  const { index, found } = search(entries, entry.pet.id)
  entries.splice(index, found ? 1 : 0, entry)
  return false
}

/**
 * The key of an id in the map by id: the id as a \`number\` when that is exact (every id within ±2^53, so nearly all),
 * else the \`bigint\`. A map keyed by numbers sets and finds about twice as fast as one keyed by \`bigint\`s, which it
 * hashes by their digits (issue #18). A \`bigint\` past ±2^53 converts to a number that is not a safe integer, so the
 * two kinds of key never meet.
 */
function keyOf(id: bigint): number | bigint {
  const number = Number(id)
  return Number.isSafeInteger(number) ? number : id
}

function removeSorted(entries: PetEntry[], id: bigint): void {
  const { index, found } = search(entries, id)
  if (found) entries.splice(index, 1)
}

export function createPetIndex(): PetIndex {
  const byId = new Map<number | bigint, PetEntry>()
  const sorted: PetEntry[] = []
  const byStatus = new Map<StatusKey, PetEntry[]>()
  const pages = new Map<string, PetPage>()
  let rewrites = 0
  let pageChars = 0
  const forgetPages = (): void => {
    if (pages.size === 0) return
    pages.clear()
    pageChars = 0
  }
  const statusList = (status: StatusKey): PetEntry[] => {
    let list = byStatus.get(status)
    if (!list) {
      list = []
      byStatus.set(status, list)
    }
    return list
  }

  const remove = (id: bigint): void => {
    const key = keyOf(id)
    const existing = byId.get(key)
    if (!existing) return
    rewrites += 1
    byId.delete(key)
    forgetPages()
    removeSorted(sorted, id)
    removeSorted(statusList(existing.pet.status ?? NO_STATUS), id)
  }

  const add = (pet: PetRecord): PetEntry => {
    forgetPages()
    const entry: PetEntry = { pet, json: serializePet(pet) }
    byId.set(keyOf(pet.id), entry)
    if (!insertSorted(sorted, entry)) rewrites += 1
    insertSorted(statusList(pet.status ?? NO_STATUS), entry)
    return entry
  }

  return {
    get size() {
      return byId.size
    },
    get: (id) => byId.get(keyOf(id)),
    list(status, limit) {
      const key = `${status ?? ''}:${limit}`
      const kept = pages.get(key)
      if (kept) return kept
      const entries = (status === undefined ? sorted : (byStatus.get(status) ?? [])).slice(0, limit)
      const json = serializePage(entries)
      if (pageChars + json.length > PAGE_CACHE_CHARS) forgetPages()
      // Not enumerable: the page still compares and prints as the plain array of entries it is.
      const page: PetPage = Object.defineProperty(entries, 'json', { value: json, enumerable: false })
      pages.set(key, page)
      pageChars += json.length
      return page
    },
    put(pet) {
      remove(pet.id)
      return add(pet)
    },
    putNew: add,
    remove,
    clear() {
      rewrites += 1
      forgetPages()
      byId.clear()
      sorted.length = 0
      byStatus.clear()
    },
    maxId: () => sorted[sorted.length - 1]?.pet.id ?? 0n,
    all: () => sorted,
    get rewrites() {
      return rewrites
    },
  }
}
