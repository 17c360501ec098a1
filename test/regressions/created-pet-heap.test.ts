/**
 * Issue #18: every pet a client creates lives as long as the world, so what it keeps is what each young-generation
 * collection under POST load copies and each full one marks (the create tail). Stored as a record with an int64
 * `bigint` id, its name and an entry holding record and text, a created pet took 324 bytes of heap and five objects;
 * the same-work bare server's pet takes 134 (bench --only=pet-bytes). Kept as its text with its id and status, 192.
 * Packed as bytes in array buffers with its id and status in typed arrays (the ninth pass), about 143, heap and array
 * buffers together. Measured on the storage of the standalone server (no @msw/data copy), after the journal is full.
 */
import { expect, it } from 'vitest'
import { createPetStore } from '../../src/index.js'
import { heapGrowthOf } from '../support/heap.js'

it('keeps 100,000 created pets in under 170 bytes of memory each', async () => {
  const petStore = createPetStore({
    seed: 1,
    pets: 0,
    collection: false,
    keys: [{ key: 'k', plan: 'enterprise', limits: { perMinute: 1e9, perDay: 1e9 } }],
  })
  const create = async (i: number) => {
    const response = await petStore.fetch('/v1/pets', {
      method: 'POST',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      body: `{"name":"Rex the ${i % 1000}th","categoryId":${1 + (i % 10)},"status":"available"}`,
    })
    expect(response.status).toBe(201)
    await response.arrayBuffer()
  }
  // The journal (1,000 entries) fills first: from then on it holds the same bytes.
  for (let i = 0; i < 2_000; i++) await create(-1 - i)
  const { bytes } = await heapGrowthOf(async () => {
    for (let i = 0; i < 100_000; i++) await create(i)
  })
  const got = await petStore.fetch('/v1/pets/102000', { headers: { authorization: 'Bearer k' } })
  expect(await got.json()).toEqual({ id: 102_000, name: 'Rex the 999th', categoryId: 10, status: 'available' })
  expect(bytes / 100_000, `${bytes / 100_000} bytes a pet`).toBeLessThan(170)
  // About 5 s alone; more on a busy machine.
}, 60_000)
