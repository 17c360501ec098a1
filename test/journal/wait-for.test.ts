/**
 * `journal.waitFor` (docs/in-process.md, "The journal"): a predicate that throws ends the wait with its error and never
 * reaches the request being recorded, whose client gets the answer the journal records.
 */
import { describe, expect, it } from 'vitest'
import { createPetStore } from '../../src/index.js'

const auth = { headers: { authorization: 'Bearer test-pro' } }

describe('journal.waitFor with a predicate that throws', () => {
  it('rejects with the predicate error, and the request it saw is answered as recorded', async () => {
    const petStore = createPetStore({ collection: false })
    // A list has no body: reading the created pet's name off it throws.
    const waiting = petStore.journal.waitFor((entry) => (entry.body as { name: string }).name === 'Zed', { timeout: 5_000 })
    const answer = await petStore.fetch('https://api.petstore.test/v1/pets', auth)
    expect(answer.status).toBe(200)
    expect(petStore.journal.all().map((entry) => entry.status)).toEqual([200])
    await expect(waiting).rejects.toBeInstanceOf(TypeError)
  })

  it('rejects, rather than throwing, when it throws on an entry recorded already', async () => {
    const petStore = createPetStore({ collection: false })
    await petStore.fetch('https://api.petstore.test/v1/pets', auth)
    let waiting: Promise<unknown> | undefined
    expect(() => {
      waiting = petStore.journal.waitFor((entry) => (entry.body as { name: string }).name === 'Zed')
    }).not.toThrow()
    await expect(waiting).rejects.toBeInstanceOf(TypeError)
  })
})
