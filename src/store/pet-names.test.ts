import { faker as english } from '@faker-js/faker/locale/en'
import { describe, expect, it } from 'vitest'
import { PET_NAMES } from './pet-names.js'
import { generatePets } from './seed.js'

describe('the seeded pets’ names', () => {
  it('are the pinned faker’s en pet names, in its order', () => {
    expect(PET_NAMES).toEqual(english.rawDefinitions.animal?.pet_name)
  })

  it('give the pets the whole en locale gave, for any seed (same names, categories and statuses)', () => {
    const FakerClass = english.constructor as typeof import('@faker-js/faker').Faker
    const weights = [
      { weight: 45, value: 'available' },
      { weight: 20, value: 'pending' },
      { weight: 25, value: 'sold' },
      { weight: 10, value: undefined },
    ]
    for (const seed of [1, 7, 42, 2 ** 31 - 1]) {
      const faker = new FakerClass({ locale: english.rawDefinitions })
      faker.seed(seed)
      const expected = Array.from({ length: 500 }, (_, i) => {
        const name = faker.animal.petName()
        const categoryId = BigInt(faker.number.int({ min: 1, max: 10 }))
        const status = faker.helpers.weightedArrayElement(weights)
        return status === undefined ? { id: BigInt(i + 1), name, categoryId } : { id: BigInt(i + 1), name, categoryId, status }
      })
      expect(generatePets({ seed, count: 500, categories: 10 })).toEqual(expected)
    }
  })
})
