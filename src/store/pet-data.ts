/**
 * The pets of one world as the core reads them: indexes by id and by status, and the next id.
 * `createIndexedPets` is the part every storage shares (adding under the next id, loading, the
 * snapshot); `createIndexOnlyData` is storage with nothing more, for worlds no set-up code reads
 * directly (the standalone server's sessions, one-off scenario worlds). Imports nothing heavy.
 */
import type { Collection } from '@msw/data'
import type { PetTexts } from '../core/json.js'
import type { Added, LocalPetRepository, PetEntry, PetRepository } from '../core/types.js'
import { INT64_MAX, type NewPetRecord, type PetRecord, type PetRecordSchema } from '../schemas.js'
import { createPetIndex, type PetIndex } from './pet-index.js'

/** A world's pets: what the core reads, and what the world does to them as a whole. */
export interface PetData {
  /** The @msw/data collection set-up code reads and writes; `undefined` for index-only storage. */
  readonly collection: PetCollection | undefined
  readonly repository: PetRepository
  /**
   * Replaces every pet with `pets` (ids kept); new ids come after the highest, or from `nextId` when larger. With
   * `pause`, storage that can builds the new pets a slice at a time, awaiting `pause()` between slices, and swaps them
   * in at once at the end (the old pets answer until then).
   */
  load(pets: readonly PetRecord[], nextId?: bigint, pause?: () => Promise<void>): Promise<void>
  /** Every pet in id order and the next id, as plain data. */
  snapshot(): { pets: PetRecord[]; nextId: bigint }
  /** The same, with the pets' texts read from the storage as they are written (`PetTexts`), where it can. */
  snapshotInSteps?(): { pets: PetTexts; nextId: bigint }
  /** Settles once every slower copy (the collection) holds every pet written so far. */
  settled(): Promise<void>
}

/** The @msw/data collection of pets (a type only: this file loads no @msw/data). */
export type PetCollection = Collection<typeof PetRecordSchema>

/** The stored form of a new pet under `id`: no `status` key when it has none. */
function petWithId(id: bigint, newPet: NewPetRecord): PetRecord {
  return newPet.status === undefined
    ? { id, name: newPet.name, categoryId: newPet.categoryId }
    : { id, name: newPet.name, categoryId: newPet.categoryId, status: newPet.status }
}

export interface IndexedPets {
  readonly index: PetIndex
  /**
   * Stores a new pet under the next id: its entry, and the pet as a record (the entry may not keep one). `undefined`
   * when the next id would leave int64.
   */
  add(newPet: NewPetRecord): { entry: PetEntry; pet: PetRecord } | undefined
  /** Replaces every pet (see `PetData.load`). */
  replaceAll(pets: readonly PetRecord[], nextId?: bigint): void
  /** The same, the new index built a slice at a time with `pause()` awaited between slices, then swapped in at once. */
  replaceAllInSlices(pets: readonly PetRecord[], nextId: bigint | undefined, pause: () => Promise<void>): Promise<void>
  /** Makes sure the next id comes after `id` (a pet written with its own id). */
  reserve(id: bigint): void
  snapshot(): { pets: PetRecord[]; nextId: bigint }
  snapshotInSteps(): { pets: PetTexts; nextId: bigint }
}

/** Pets indexed between two pauses of `replaceAllInSlices`: a few milliseconds. */
const PETS_PER_SLICE = 5_000

/** Indexes plus the next id: the part of a world's pets every storage shares. */
export function createIndexedPets(): IndexedPets {
  const index = createPetIndex()
  let nextId = 1n
  /** After a replace: the id after the highest stored, or `next` when larger. */
  const nextAfterAll = (next: bigint | undefined) => (next !== undefined && next > index.maxId() ? next : index.maxId() + 1n)
  return {
    index,
    add(newPet) {
      const id = nextId
      if (id > INT64_MAX) return undefined
      nextId += 1n
      // The next id is above every stored one (`replaceAll` and `reserve` keep it so).
      const pet = petWithId(id, newPet)
      return { entry: index.putNew(pet), pet }
    },
    replaceAll(pets, next) {
      index.clear()
      for (const pet of pets) index.put(pet)
      nextId = nextAfterAll(next)
    },
    async replaceAllInSlices(pets, next, pause) {
      const fresh = createPetIndex()
      for (const [position, pet] of pets.entries()) {
        fresh.put(pet)
        if ((position + 1) % PETS_PER_SLICE === 0) await pause()
      }
      // Swapped in with the next id in one step: no request sees the new pets with the old next id.
      index.adopt(fresh)
      nextId = nextAfterAll(next)
    },
    reserve(id) {
      if (id >= nextId) nextId = id + 1n
    },
    snapshot() {
      // Read now, in id order: the index changes while the snapshot is written in steps.
      const pets: PetRecord[] = []
      for (let position = 0; position < index.size; position += 1) pets.push(index.entryAt(position).pet)
      return { pets, nextId }
    },
    snapshotInSteps() {
      // Read from the index as the writer goes: the pets before `length` stay as they are while no rewrite is counted.
      const length = index.size
      const rewrites = index.rewrites
      const pets: PetTexts = {
        length,
        textOf: (i) => index.textAt(i),
        current: () => index.rewrites === rewrites,
      }
      return { pets, nextId }
    },
  }
}

/** A repository reading the indexes, adding through `add`. */
export function repositoryOf(pets: IndexedPets, add: (newPet: NewPetRecord) => Added | undefined): LocalPetRepository {
  const { index } = pets
  // The index's own methods, bound: a read goes straight to the index.
  return { get: index.get.bind(index), list: index.list.bind(index), add }
}

/** Index-only storage, and what a state log needs of it. */
/** Pets in this process's memory. */
export interface LocalPetData extends PetData {
  readonly repository: LocalPetRepository
}

export interface IndexOnlyData extends LocalPetData {
  /** Puts a pet back with its own id (replaying a state log); later ids come after it. */
  put(pet: PetRecord): void
}

/**
 * Pets in the indexes only: every write is done when it returns. `onAdd` hears of each pet the API
 * adds, before the answer is sent (the server's state log writes it ahead).
 *
 * @example
 * const data = createIndexOnlyData()
 * await data.load(generatePets({ seed: 1, count: 50, categories: 10 }))
 */
export function createIndexOnlyData(onAdd?: (entry: PetEntry) => void): IndexOnlyData {
  const pets = createIndexedPets()
  return {
    collection: undefined,
    repository: repositoryOf(pets, (newPet) => {
      const added = pets.add(newPet)
      if (!added) return undefined
      onAdd?.(added.entry)
      return { entry: added.entry }
    }),
    put(pet) {
      pets.index.put(pet)
      pets.reserve(pet.id)
    },
    load(list, nextId, pause) {
      if (pause) return pets.replaceAllInSlices(list, nextId, pause)
      pets.replaceAll(list, nextId)
      return Promise.resolve()
    },
    snapshot: pets.snapshot,
    snapshotInSteps: pets.snapshotInSteps,
    settled: () => Promise.resolve(),
  }
}
