/**
 * Pets in the indexes only, with no @msw/data collection: for worlds no set-up code reads
 * directly (the standalone server's sessions, one-off scenario worlds). Every write is done when
 * it returns. Imports nothing heavy, so a server starts fast.
 */
import type { PetData } from './pet-data.js'
import { createPetIndex } from './pet-index.js'
import { toNewPet } from './to-new-pet.js'

export function createIndexOnlyData(): PetData {
  const index = createPetIndex()
  let nextId = 1n
  return {
    collection: undefined,
    repository: {
      get: (id) => index.get(id),
      list: (status, limit) => index.list(status, limit),
      add(newPet) {
        const id = nextId
        nextId += 1n
        return { entry: index.put(toNewPet(id, newPet)) }
      },
    },
    load(pets, next) {
      index.clear()
      for (const pet of pets) index.put(pet)
      nextId = next !== undefined && next > index.maxId() ? next : index.maxId() + 1n
      return Promise.resolve()
    },
    snapshot: () => ({ pets: index.all().map((entry) => entry.pet), nextId }),
    settled: () => Promise.resolve(),
  }
}
