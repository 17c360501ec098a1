import { describe, expect, it } from 'vitest'
import { createPetStore } from '../../src/create-pet-store.js'
import { createWorld } from '../../src/world/create-world.js'

describe('createWorld', () => {
  it('serves the API without msw handlers or a collection', async () => {
    const world = createWorld({ seed: 1 })
    const response = await world.fetch('/v1/pets/1', { headers: { authorization: 'Bearer test-free' } })
    expect(response.status).toBe(200)
    expect('handlers' in world).toBe(false)
  })

  it('says it has no collection when asked for the pets', () => {
    const world = createWorld({ seed: 1 })
    expect(() => world.pets).toThrow(/\[petstore-mock\] This world has no @msw\/data collection/)
  })

  it('answers a created pet synchronously, with nothing to wait for', () => {
    const world = createWorld()
    const result = world.handle({
      method: 'POST',
      path: '/v1/pets',
      query: '',
      headers: { authorization: 'Bearer test-pro', 'content-type': 'application/json' },
      body: '{"name":"Sync","categoryId":1}',
    })
    expect(result).not.toBeInstanceOf(Promise)
    expect(result).toMatchObject({ status: 201 })
  })

  it('serves the same data as createPetStore for the same seed', async () => {
    const init = { headers: { authorization: 'Bearer test-pro' } }
    const a = await (await createWorld({ seed: 9 }).fetch('/v1/pets?limit=100', init)).text()
    const b = await (await createPetStore({ seed: 9 }).fetch('/v1/pets?limit=100', init)).text()
    expect(a).toBe(b)
  })
})
