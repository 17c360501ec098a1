/**
 * Deterministic seed data: the same seed and count give the same pets in every host, as long as
 * the exact-pinned @faker-js/faker version does not change (decisions/003-exact-faker.md).
 */
import type { Faker } from '@faker-js/faker'
// The locale-free entry: faker's generator and modules without any language's data (the names are ours: pet-names.ts).
import { faker as base } from '@faker-js/faker/locale/base'
import type { PetRecord, PetStatus } from '../schemas.js'
import { PET_NAMES } from './pet-names.js'

export interface SeedOptions {
  readonly seed: number
  readonly count: number
  /** Categories are numbered 1..categories. */
  readonly categories: number
}

const STATUS_WEIGHTS: ReadonlyArray<{ weight: number; value: PetStatus | undefined }> = [
  { weight: 45, value: 'available' },
  { weight: 20, value: 'pending' },
  { weight: 25, value: 'sold' },
  { weight: 10, value: undefined },
]

/**
 * Pets with ids 1..count: realistic names, categories 1..N, a mix of the three statuses and some
 * without status.
 *
 * @example
 * generatePets({ seed: 1, count: 3, categories: 5 })
 * // [{ id: 1n, name: '…', categoryId: 3n, status: 'available' }, …]
 */
export function generatePets({ seed, count, categories }: SeedOptions): PetRecord[] {
  // A Faker of our own, never the module's shared instance, so seeding touches nobody else's faker.
  const FakerClass = base.constructor as typeof Faker
  const faker = new FakerClass({ locale: [{ animal: { pet_name: [...PET_NAMES] } }] })
  faker.seed(seed)
  const pets: PetRecord[] = []
  for (let i = 1; i <= count; i++) {
    const name = faker.animal.petName()
    const categoryId = BigInt(faker.number.int({ min: 1, max: Math.max(1, categories) }))
    const status = faker.helpers.weightedArrayElement(STATUS_WEIGHTS)
    pets.push(status === undefined ? { id: BigInt(i), name, categoryId } : { id: BigInt(i), name, categoryId, status })
  }
  return pets
}
