import type { NewPet, Pet } from '../schemas.js'

/** The stored form of a new pet under `id`: no `status` key when it has none. */
export function toNewPet(id: bigint, newPet: NewPet): Pet {
  return newPet.status === undefined
    ? { id, name: newPet.name, categoryId: newPet.categoryId }
    : { id, name: newPet.name, categoryId: newPet.categoryId, status: newPet.status }
}
