/**
 * The pets of one world: an @msw/data collection that users read and write in test set-up, and
 * the indexes the API reads. Collection hooks keep the indexes in step with the user's writes.
 */
import { Collection } from '@msw/data'
import type { PetEntry, PetRepository } from '../core/types.js'
import { type NewPet, type Pet, PetRecordSchema, PetSchema } from '../schemas.js'
import { createIndexOnlyData } from './index-only-data.js'
import { createPetIndex } from './pet-index.js'
import { toNewPet } from './to-new-pet.js'

export type PetCollection = Collection<typeof PetRecordSchema>

export interface PetData {
  /** The @msw/data collection: read and write pets in test set-up (`undefined` when created without one). */
  readonly collection: PetCollection | undefined
  readonly repository: PetRepository
  /** Replaces every pet with `pets` (ids kept); ids are assigned after the highest, or from `nextId`. */
  load(pets: readonly Pet[], nextId?: bigint): Promise<void>
  /** Every pet in id order and the next id, as plain data. */
  snapshot(): { pets: Pet[]; nextId: bigint }
  /** Settles once the collection holds every pet the API has written. */
  settled(): Promise<void>
}

function toPet(record: unknown): Pet | undefined {
  const parsed = PetSchema.safeParse(record)
  return parsed.success ? parsed.data : undefined
}

/**
 * @param options.collection `false` keeps the pets in the indexes only: no @msw/data collection to
 * write to, for hosts where no set-up code reads it (the standalone server's sessions).
 */
export function createPetData(options?: { collection?: true }): PetData & { readonly collection: PetCollection }
export function createPetData(options: { collection?: boolean }): PetData
export function createPetData(options: { collection?: boolean } = {}): PetData {
  if (options.collection === false) return createIndexOnlyData()
  const collection: PetCollection = new Collection({ schema: PetRecordSchema })
  const index = createPetIndex()
  /** Ids the store itself is writing to the collection: their create hooks are expected. */
  const ownWrites = new Set<bigint>()
  let pending: Promise<unknown> = Promise.resolve()
  let nextId = 1n
  let loading = false

  collection.hooks.on('create', (event) => {
    const pet = toPet(event.data.record)
    if (!pet || ownWrites.has(pet.id)) return
    if (index.get(pet.id)) {
      throw new Error(
        `[petstore-mock] A pet with id ${pet.id} already exists. Use petStore.pets.update() to change it, or create the pet without that id clash.`,
      )
    }
    index.put(pet)
    if (pet.id >= nextId) nextId = pet.id + 1n
  })
  collection.hooks.on('update', (event) => {
    const next = toPet(event.data.nextRecord)
    const prev = toPet(event.data.prevRecord)
    if (!next || !prev) return
    index.remove(prev.id)
    index.put(next)
    if (next.id >= nextId) nextId = next.id + 1n
  })
  collection.hooks.on('delete', (event) => {
    if (loading) return
    const pet = toPet(event.data.deletedRecord)
    if (pet) index.remove(pet.id)
  })

  const write = (pet: Pet): Promise<void> => {
    ownWrites.add(pet.id)
    const written = collection.create(pet).then(
      () => {
        ownWrites.delete(pet.id)
      },
      (error: unknown) => {
        ownWrites.delete(pet.id)
        console.error('[petstore-mock] Could not write a pet to the collection:', error)
      },
    )
    return written
  }
  const track = (written: Promise<unknown>): void => {
    pending = Promise.all([pending, written])
  }

  // `Collection.clear()` deletes while iterating, so only some delete hooks fire: clear the indexes with it.
  const clearCollection = collection.clear.bind(collection)
  collection.clear = () => {
    loading = true
    try {
      clearCollection()
    } finally {
      loading = false
    }
    index.clear()
  }

  const repository: PetRepository = {
    get: (id) => index.get(id),
    list: (status, limit) => index.list(status, limit),
    add(newPet: NewPet): { entry: PetEntry; written?: Promise<void> } {
      const id = nextId
      nextId += 1n
      const entry = index.put(toNewPet(id, newPet))
      const written = write(entry.pet)
      track(written)
      return { entry, written }
    },
  }

  return {
    collection,
    repository,
    load(pets, next) {
      const replace = (): Promise<void> => {
        collection.clear()
        for (const pet of pets) index.put(pet)
        nextId = next !== undefined && next > index.maxId() ? next : index.maxId() + 1n
        const written = Promise.all(pets.map(write)).then(() => undefined)
        pending = written
        return written
      }
      // Writes still in flight would land after the clear: let them finish first.
      return ownWrites.size === 0 ? replace() : this.settled().then(replace)
    },
    snapshot: () => ({ pets: index.all().map((entry) => entry.pet), nextId }),
    async settled() {
      let current: Promise<unknown>
      do {
        current = pending
        await current
      } while (current !== pending)
    },
  }
}
