/**
 * The pets of one world in an @msw/data collection that users read and write in test set-up, over
 * the indexes the API reads (`pet-data.ts`). Collection hooks keep the indexes in step with the
 * user's writes; the API's own writes go to the indexes at once and to the collection after.
 */
import { Collection } from '@msw/data'
import type { NewPetRecord, PetRecord } from '../schemas.js'
import { PetRecordSchema, PetSchema } from '../schemas.js'
import { createIndexedPets, type IndexedPets, type LocalPetData, type PetCollection, repositoryOf } from './pet-data.js'

function toPet(record: unknown): PetRecord | undefined {
  const parsed = PetSchema.safeParse(record)
  return parsed.success ? parsed.data : undefined
}

/** Keeps the indexes in step with what set-up code writes to the collection itself. */
function followUserWrites(
  collection: PetCollection,
  pets: IndexedPets,
  own: { ownWrites: ReadonlySet<bigint>; clearing: () => boolean },
): void {
  const { index } = pets
  collection.hooks.on('create', (event) => {
    const pet = toPet(event.data.record)
    if (!pet || own.ownWrites.has(pet.id)) return
    if (index.get(pet.id)) {
      throw new Error(
        `[petstore-mock] A pet with id ${pet.id} already exists. Use petStore.pets.update() to change it, or create the pet without that id clash.`,
      )
    }
    index.put(pet)
    pets.reserve(pet.id)
  })
  collection.hooks.on('update', (event) => {
    const next = toPet(event.data.nextRecord)
    const prev = toPet(event.data.prevRecord)
    if (!next || !prev) return
    index.remove(prev.id)
    index.put(next)
    pets.reserve(next.id)
  })
  collection.hooks.on('delete', (event) => {
    if (own.clearing()) return
    const pet = toPet(event.data.deletedRecord)
    if (pet) index.remove(pet.id)
  })
}

/**
 * @example
 * const data = createCollectionData()
 * await data.load(generatePets({ seed: 1, count: 50, categories: 10 }))
 * data.collection.findMany((q) => q.where({ status: 'sold' }))
 */
export function createCollectionData(): LocalPetData & { readonly collection: PetCollection } {
  const collection: PetCollection = new Collection({ schema: PetRecordSchema })
  const pets = createIndexedPets()
  const { index } = pets
  /** Ids the store itself is writing to the collection: their create hooks are expected. */
  const ownWrites = new Set<bigint>()
  let pending: Promise<unknown> = Promise.resolve()
  let clearing = false

  followUserWrites(collection, pets, { ownWrites, clearing: () => clearing })

  const write = (pet: PetRecord): Promise<void> => {
    ownWrites.add(pet.id)
    return collection.create(pet).then(
      () => {
        ownWrites.delete(pet.id)
      },
      (error: unknown) => {
        ownWrites.delete(pet.id)
        console.error('[petstore-mock] Could not write a pet to the collection:', error)
      },
    )
  }

  // `Collection.clear()` deletes while iterating, so only some delete hooks fire: clear the indexes with it.
  const clearCollection = collection.clear.bind(collection)
  collection.clear = () => {
    clearing = true
    try {
      clearCollection()
    } finally {
      clearing = false
    }
    index.clear()
  }

  const settled = async (): Promise<void> => {
    let current: Promise<unknown>
    do {
      current = pending
      await current
    } while (current !== pending)
  }

  return {
    collection,
    repository: repositoryOf(pets, (newPet: NewPetRecord) => {
      const added = pets.add(newPet)
      if (!added) return undefined
      const written = write(added.pet)
      pending = Promise.all([pending, written])
      return { entry: added.entry, written }
    }),
    load(list, nextId) {
      const replace = (): Promise<void> => {
        collection.clear()
        pets.replaceAll(list, nextId)
        const written = Promise.all(list.map(write)).then(() => undefined)
        pending = written
        return written
      }
      // Writes still in flight would land after the clear: let them finish first.
      return ownWrites.size === 0 ? replace() : settled().then(replace)
    },
    snapshot: pets.snapshot,
    snapshotInSteps: pets.snapshotInSteps,
    settled,
  }
}
