/**
 * Seeded data must not change between releases (decisions/003-exact-faker.md): users snapshot it.
 * Pinned here: the first names of seed 1, and a digest of 2,000 pets. If this fails after a faker
 * upgrade or a change to generatePets, the change is breaking: release it as such.
 */
import { createHash } from 'node:crypto'
import { expect, it } from 'vitest'
import { stringifyJson } from '../../src/core/json.js'
import { generatePets } from '../../src/store/seed.js'

it('generates the same pets for seed 1 as every earlier release', () => {
  const pets = generatePets({ seed: 1, count: 2000, categories: 10 })
  expect(pets.slice(0, 3).map((pet) => pet.name)).toEqual(['Gus', 'Daisy', 'Buddy'])
  expect(createHash('sha256').update(stringifyJson(pets)).digest('hex')).toBe(
    '6f62a21f38b246677e233abb904a6a8f16c1677c7c0caaaedac80eabd089c7e4',
  )
})
