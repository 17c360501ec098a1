/**
 * The length limit on a new pet's `name` (the spec shows none: docs/spec-decisions.md row 4): at most
 * 1,000 characters by default, counted as Unicode code points, the option `maxNameLength` for another limit; a
 * longer name is answered 400 `invalid_body` naming the field and the limit, and nothing is stored.
 */
import { describe, expect, it } from 'vitest'
import { createPetStore, openApiDocument, type PetStore, type PetStoreOptions } from '../../src/index.js'

const AUTH = { authorization: 'Bearer test-pro', 'content-type': 'application/json' }

async function create(petStore: PetStore, name: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await petStore.fetch('/v1/pets', { method: 'POST', headers: AUTH, body: JSON.stringify({ name, categoryId: 1 }) })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

const store = (options: PetStoreOptions = {}) => createPetStore({ pets: 0, collection: false, ...options })

describe('the name limit in-process', () => {
  it('stores a name of exactly 1,000 characters with 201', async () => {
    const answer = await create(store(), 'n'.repeat(1000))
    expect(answer.status).toBe(201)
    expect(answer.body.name).toBe('n'.repeat(1000))
  })

  it('answers a name of 1,001 characters with 400 invalid_body naming the field and the limit, storing nothing', async () => {
    const petStore = store()
    const answer = await create(petStore, 'n'.repeat(1001))
    expect(answer).toEqual({
      status: 400,
      body: { code: 'invalid_body', message: 'Invalid NewPet: name must be at most 1000 characters (got 1001).', status: 400 },
    })
    expect(petStore.snapshot().pets).toEqual([])
  })

  it('counts characters, not UTF-16 units: 1,000 emoji are within the limit', async () => {
    expect((await create(store(), '🐕'.repeat(1000))).status).toBe(201)
  })

  it('lists the name beside the other problems of the body', async () => {
    const response = await store().fetch('/v1/pets', { method: 'POST', headers: AUTH, body: JSON.stringify({ name: 'n'.repeat(1001) }) })
    expect(((await response.json()) as { message: string }).message).toBe(
      'Invalid NewPet: name must be at most 1000 characters (got 1001); categoryId is required.',
    )
  })

  it('takes another limit from the option maxNameLength', async () => {
    const petStore = store({ maxNameLength: 5 })
    expect((await create(petStore, 'Fido!')).status).toBe(201)
    expect((await create(petStore, 'Fido!!')).body.message).toBe('Invalid NewPet: name must be at most 5 characters (got 6).')
  })

  it('refuses a maxNameLength that is not a whole number of at least 1', () => {
    expect(() => store({ maxNameLength: 0 })).toThrow('[petstore-mock] maxNameLength must be a whole number of at least 1, got 0.')
  })

  it("states the limit as NewPet name's maxLength in the OpenAPI document", () => {
    const newPet = (document: Record<string, unknown>) =>
      (document as { components: { schemas: { NewPet: { properties: { name: { maxLength?: number } } } } } }).components.schemas.NewPet
    expect(newPet(openApiDocument()).properties.name.maxLength).toBe(1000)
    expect(newPet(openApiDocument({ maxNameLength: 64 })).properties.name.maxLength).toBe(64)
  })
})
