/**
 * Regression: a pet's JSON text was joined with `+`, a tree of seven or more pieces that V8 flattens only when the
 * text is written alone, so a seeded pet that is only ever listed kept its tree for life; then the world kept the
 * generated records for its next reset beside the stored texts. What a seeded pet costs is this machine's heap:
 * `npm run bench -- --only=memory` measures it (bench/memory-in-process.ts). Here, what the second fix rests on: a
 * reset brings back the very same pets, generated again from the seed rather than kept.
 */
import { expect, it } from 'vitest'
import { createPetStore } from '../../src/index.js'

it('serves the same 50,000 seeded pets after a reset, generated again from the seed', async () => {
  const petStore = createPetStore({ seed: 1, pets: 50_000, collection: false })
  const list = async () => (await petStore.fetch('/v1/pets?limit=100', { headers: { authorization: 'Bearer test-pro' } })).text()
  const first = await list()
  const seeded = petStore.snapshot().pets
  await petStore.fetch('/v1/pets', {
    method: 'POST',
    headers: { authorization: 'Bearer test-pro', 'content-type': 'application/json' },
    body: '{"name":"New","categoryId":1}',
  })
  expect(petStore.snapshot().pets).toHaveLength(50_001)
  await petStore.reset()
  expect(await list()).toBe(first)
  expect((JSON.parse(first) as unknown[]).length).toBe(100)
  expect(petStore.snapshot().pets).toEqual(seeded)
})
