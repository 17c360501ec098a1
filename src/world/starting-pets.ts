/**
 * The pets a world starts with: the scenario's data, else the options', else generated from the seed.
 */

import { issuesText } from '../core/issues.js'
import type { Scenario } from '../scenarios/schema.js'
import { type PetRecord, PetRecordSchema } from '../schemas.js'
import { generatePets } from '../store/seed.js'
import { misuse, type ResolvedOptions, wholeNumber } from './options.js'

function checkPets(pets: readonly unknown[], where: string): PetRecord[] {
  return pets.map((input, index) => {
    const parsed = PetRecordSchema.safeParse(input)
    if (!parsed.success) misuse(`${where}[${index}] is not a valid pet: ${issuesText(parsed.error)}.`)
    return parsed.data
  })
}

/** Scenario files may write int64 ids as strings of digits to keep them exact. */
function withExactIds(pet: unknown): unknown {
  if (typeof pet !== 'object' || pet === null) return pet
  const record = { ...pet } as Record<string, unknown>
  for (const field of ['id', 'categoryId']) if (typeof record[field] === 'string') record[field] = BigInt(record[field] as string)
  return record
}

/** Whether `scenario` starts with pets generated from a seed (not pets given as data). */
export function petsAreGenerated(options: ResolvedOptions, scenario: Scenario): boolean {
  return typeof (scenario.data?.pets ?? options.pets) === 'number'
}

/**
 * @example
 * startingPets(resolveOptions({ seed: 3 }), catalogue.get('sold-out')) // 50 pets, every one sold
 */
export function startingPets(options: ResolvedOptions, scenario: Scenario): PetRecord[] {
  const data = scenario.data
  const pets = data?.pets ?? options.pets
  if (typeof pets !== 'number') {
    return checkPets(pets.map(withExactIds), data?.pets !== undefined ? `scenario "${scenario.name}" data.pets` : 'pets')
  }
  const generated = generatePets({
    seed: scenario.seed ?? options.seed,
    count: wholeNumber(pets, 'pets', 0),
    categories: data?.categories === undefined ? options.categories : wholeNumber(data.categories, 'categories', 1),
  })
  const status = data?.status
  return status === undefined ? generated : generated.map((pet) => ({ ...pet, status }))
}
