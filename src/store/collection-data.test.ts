import { describe, expect, it } from 'vitest'
import type { PetPage } from '../core/types.js'
import { createCollectionData } from './collection-data.js'
import { createIndexOnlyData } from './pet-data.js'
import { generatePets } from './seed.js'

const ids = (page: PetPage) => page.entries.map((entry) => entry.pet.id)

describe('createCollectionData', () => {
  it('lists every loaded pet at once, before the collection has caught up', () => {
    const data = createCollectionData()
    void data.load(generatePets({ seed: 1, count: 30, categories: 3 }))
    expect(data.repository.list(undefined, 100).entries).toHaveLength(30)
    expect(data.collection.count()).toBe(0)
  })

  it('keeps listing every pet while the collection is being written', async () => {
    const data = createCollectionData()
    void data.load(generatePets({ seed: 1, count: 30, categories: 3 }))
    for (let tick = 0; tick < 20; tick++) {
      await Promise.resolve()
      expect(data.repository.list(undefined, 100).entries).toHaveLength(30)
    }
    await data.settled()
    expect(data.collection.count()).toBe(30)
  })

  /** Data loaded with one pet, id 7. */
  async function loadedUpToSeven() {
    const data = createCollectionData()
    await data.load([{ id: 7n, name: 'A', categoryId: 1n }])
    return data
  }

  it('assigns ids after the highest', async () => {
    const data = await loadedUpToSeven()
    const first = data.repository.add({ name: 'B', categoryId: 1n })
    expect(first?.entry.pet.id).toBe(8n)
  })

  it('never reuses an id', async () => {
    const data = await loadedUpToSeven()
    const first = data.repository.add({ name: 'B', categoryId: 1n })
    await first?.written
    await data.collection.delete((q) => q.where({ id: 8n }))
    expect(data.repository.add({ name: 'C', categoryId: 1n })?.entry.pet.id).toBe(9n)
  })

  /** Five seeded pets and pet 100, pending, created through the collection. */
  async function withSetUpPet() {
    const data = createCollectionData()
    await data.load(generatePets({ seed: 2, count: 5, categories: 3 }))
    await data.collection.create({ id: 100, name: 'Set-up', categoryId: 2, status: 'pending' })
    return data
  }

  it('indexes a pet created through the collection', async () => {
    const data = await withSetUpPet()
    expect(data.repository.get(100n)?.json).toBe('{"id":100,"name":"Set-up","categoryId":2,"status":"pending"}')
  })

  it('indexes a pet updated through the collection', async () => {
    const data = await withSetUpPet()
    await data.collection.update((q) => q.where({ id: 100n }), {
      data(pet) {
        pet.status = 'sold'
      },
    })
    expect(data.repository.get(100n)?.pet.status).toBe('sold')
    expect(ids(data.repository.list('sold', 100))).toContain(100n)
    expect(ids(data.repository.list('pending', 100))).not.toContain(100n)
  })

  it('unindexes a pet deleted through the collection, never giving its id again', async () => {
    const data = await withSetUpPet()
    data.collection.delete((q) => q.where({ id: 100n }))
    expect(data.repository.get(100n)).toBeUndefined()
    expect(data.repository.add({ name: 'Next', categoryId: 1n })?.entry.pet.id).toBe(101n)
  })

  it('keeps listings in ascending id order when set-up inserts a lower id', async () => {
    const data = createCollectionData()
    await data.load([
      { id: 10n, name: 'A', categoryId: 1n },
      { id: 30n, name: 'C', categoryId: 1n },
    ])
    await data.collection.create({ id: 20, name: 'B', categoryId: 1 })
    expect(ids(data.repository.list(undefined, 10))).toEqual([10n, 20n, 30n])
  })

  it('refuses a set-up pet whose id exists', async () => {
    const data = createCollectionData()
    await data.load([{ id: 1n, name: 'A', categoryId: 1n }])
    await expect(data.collection.create({ id: 1, name: 'Twin', categoryId: 1 })).rejects.toThrow(/already exists/)
  })

  it('empties the indexes with collection.clear()', async () => {
    const data = createCollectionData()
    await data.load(generatePets({ seed: 3, count: 9, categories: 2 }))
    data.collection.clear()
    expect(data.repository.list(undefined, 100).entries).toEqual([])
    expect(data.collection.count()).toBe(0)
  })

  it('reloads without duplicates while a previous load is still being written', async () => {
    const data = createCollectionData()
    const pets = generatePets({ seed: 4, count: 10, categories: 2 })
    void data.load(pets)
    await data.load(pets)
    expect(data.collection.count()).toBe(10)
    expect(data.repository.list(undefined, 100).entries).toHaveLength(10)
  })
})

describe('generatePets', () => {
  it('gives the same pets for the same seed', () => {
    const a = generatePets({ seed: 1, count: 20, categories: 5 })
    expect(generatePets({ seed: 1, count: 20, categories: 5 })).toEqual(a)
  })

  it('gives different pets for another seed', () => {
    const a = generatePets({ seed: 1, count: 20, categories: 5 })
    expect(generatePets({ seed: 2, count: 20, categories: 5 })).not.toEqual(a)
  })

  const twoHundred = () => generatePets({ seed: 1, count: 200, categories: 5 })

  it('uses ids 1..count', () => {
    const pets = twoHundred()
    expect(pets.map((pet) => pet.id)).toEqual(Array.from({ length: 200 }, (_, i) => BigInt(i + 1)))
  })

  it('uses categories 1..N', () => {
    const pets = twoHundred()
    expect(pets.every((pet) => pet.categoryId >= 1n && pet.categoryId <= 5n)).toBe(true)
  })

  it('uses the three statuses, leaving some pets without one', () => {
    const pets = twoHundred()
    const statuses = new Set(pets.map((pet) => pet.status))
    expect(statuses).toEqual(new Set(['available', 'pending', 'sold', undefined]))
  })

  it('gives every pet a name', () => {
    const pets = twoHundred()
    expect(pets.every((pet) => pet.name.length > 0)).toBe(true)
  })
})

describe('createIndexOnlyData', () => {
  it('keeps pets in the indexes only, written at once', () => {
    const data = createIndexOnlyData()
    void data.load(generatePets({ seed: 1, count: 5, categories: 2 }))
    expect(data.collection).toBeUndefined()
    const added = data.repository.add({ name: 'Now', categoryId: 1n })
    expect(added?.written).toBeUndefined()
    expect(added?.entry.pet.id).toBe(6n)
    expect(data.repository.get(6n)?.pet.name).toBe('Now')
    expect(data.snapshot().nextId).toBe(7n)
  })

  it('gives no id past the int64 maximum: the add after the last id is refused', async () => {
    const data = createIndexOnlyData()
    await data.load([], 2n ** 63n - 1n)
    expect(data.repository.add({ name: 'Last', categoryId: 1n })?.entry.pet.id).toBe(2n ** 63n - 1n)
    expect(data.repository.add({ name: 'Past', categoryId: 1n })).toBeUndefined()
    expect(data.repository.get(2n ** 63n)).toBeUndefined()
  })
})
