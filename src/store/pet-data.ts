/**
 * The pets of one world: an @msw/data collection that users read and write in test set-up, and
 * the indexes the API reads. Collection hooks keep the indexes in step with the user's writes.
 */
import { Collection } from '@msw/data'
import type { PetEntry, PetRepository } from '../core/types.js'
import { type NewPet, type Pet, PetRecordSchema, PetSchema } from '../schemas.js'
import { createPetIndex } from './pet-index.js'

export type PetCollection = Collection<typeof PetRecordSchema>

export interface PetData {
  /** The @msw/data collection: read and write pets in test set-up. */
  readonly collection: PetCollection
  readonly repository: PetRepository
  /** Replaces every pet with `pets` (ids kept) and restarts id assignment after the highest. */
  load(pets: readonly Pet[]): Promise<void>
  /** Settles once the collection holds every pet the API has written. */
  settled(): Promise<void>
}

function toPet(record: unknown): Pet | undefined {
  const parsed = PetSchema.safeParse(record)
  return parsed.success ? parsed.data : undefined
}

export function createPetData(): PetData {
  const collection: PetCollection = new Collection({ schema: PetRecordSchema })
  const index = createPetIndex()
  /** Ids the store itself is writing to the collection: their create hooks are expected. */
  const ownWrites = new Set<bigint>()
  let pending: Promise<unknown> = Promise.resolve()
  let nextId = 1n
  let loading = false

  collection.hooks.on('create', (event) => {
    const pet = toPet(event.data.record)
    if (!pet || ownWrites.delete(pet.id)) return
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
      () => undefined,
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

  /** Users may call collection.clear(), which emits no reliable hooks: resynchronise then. */
  const syncIndex = (): void => {
    if (collection.count() + ownWrites.size === index.size) return
    index.clear()
    for (const record of collection.all()) {
      const pet = toPet(record)
      if (pet) index.put(pet)
    }
    nextId = nextId > index.maxId() ? nextId : index.maxId() + 1n
  }

  const repository: PetRepository = {
    get(id) {
      syncIndex()
      return index.get(id)
    },
    list(status, limit) {
      syncIndex()
      return index.list(status, limit)
    },
    add(newPet: NewPet): { entry: PetEntry; written: Promise<void> } {
      syncIndex()
      const id = nextId
      nextId += 1n
      const pet: Pet =
        newPet.status === undefined
          ? { id, name: newPet.name, categoryId: newPet.categoryId }
          : { id, name: newPet.name, categoryId: newPet.categoryId, status: newPet.status }
      const entry = index.put(pet)
      const written = write(pet)
      track(written)
      return { entry, written }
    },
  }

  return {
    collection,
    repository,
    load(pets) {
      loading = true
      try {
        collection.clear()
      } finally {
        loading = false
      }
      ownWrites.clear()
      index.clear()
      for (const pet of pets) index.put(pet)
      nextId = index.maxId() + 1n
      const written = Promise.all(pets.map(write)).then(() => undefined)
      pending = written
      return written
    },
    async settled() {
      let current: Promise<unknown>
      do {
        current = pending
        await current
      } while (current !== pending)
    },
  }
}
