/**
 * Regression: every pet a client creates lives as long as the world, so what it keeps is what each young-generation
 * collection under POST load copies and each full one marks (the create tail). A created pet is kept as one entry:
 * its JSON text, id and status (decisions/023). What it costs is this machine's heap: `npm run bench -- --only=memory`
 * measures it (bench/memory-in-process.ts). Here, what the storage must not lose: every created pet reads back as it
 * was sent, on the storage of the standalone server.
 */
import { expect, it } from 'vitest'
import { createPetStore } from '../../src/index.js'

const COUNT = 5_000
const pet = (i: number) => ({ name: `Rex the ${i % 1000}th`, categoryId: 1 + (i % 10), status: 'available' })

/** A world without seeded pets in which a client has created COUNT pets, each answered 201. */
async function worldOfCreatedPets() {
  const petStore = createPetStore({
    seed: 1,
    pets: 0,
    collection: false,
    keys: [{ key: 'k', plan: 'enterprise', limits: { perMinute: 1e9, perDay: 1e9 } }],
  })
  for (let i = 1; i <= COUNT; i++) {
    const response = await petStore.fetch('/v1/pets', {
      method: 'POST',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      body: JSON.stringify(pet(i)),
    })
    expect(response.status).toBe(201)
    await response.arrayBuffer()
  }
  return petStore
}

it('reads back each of 5,000 created pets by id as it was created', async () => {
  const petStore = await worldOfCreatedPets()
  for (const id of [1, 2, 999, 1_000, 1_001, 4_095, 4_096, 4_097, COUNT - 1, COUNT]) {
    const got = await petStore.fetch(`/v1/pets/${id}`, { headers: { authorization: 'Bearer k' } })
    expect(await got.json()).toEqual({ id, ...pet(id) })
  }
})

it('keeps each of 5,000 created pets in the state as it was created', async () => {
  const { pets } = (await worldOfCreatedPets()).snapshot()
  expect(pets).toHaveLength(COUNT)
  expect(pets).toEqual(
    Array.from({ length: COUNT }, (_, i) => ({ ...pet(i + 1), id: BigInt(i + 1), categoryId: BigInt(pet(i + 1).categoryId) })),
  )
})
