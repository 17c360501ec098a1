/** An SDK team's suite against the in-process mock: what the SDK got back, what it sent, and how it behaved under 429s. */
import { createPetStore } from 'petstore-mock'
import 'petstore-mock/vitest'
import { describe, expect, it } from 'vitest'
import { createPetStoreClient, PetStoreError } from './src/client.js'
import { naiveListPets } from './src/naive-client.js'

const BASE = 'https://api.petstore.test/v1'

describe('happy paths', () => {
  const petStore = createPetStore({ seed: 1 })
  const client = createPetStoreClient({ baseUrl: BASE, apiKey: 'test-pro', fetch: petStore.fetch })

  it('lists pets with a limit, filtered by status', async () => {
    const pets = await client.listPets({ limit: 5, status: 'available' })
    expect(pets.length).toBeLessThanOrEqual(5)
    expect(pets.every((pet) => pet.status === 'available')).toBe(true)
  })

  it('creates a pet it can read back', async () => {
    const created = await client.createPet({ name: 'Rex', categoryId: 3 })
    expect(await client.getPet(created.id)).toEqual(created)
  })

  it('sends the mock exactly the pet it was given', async () => {
    await client.createPet({ name: 'Rex', categoryId: 3 })
    const [sent] = petStore.journal.find({ method: 'POST', path: '/v1/pets' })
    expect(sent?.body).toEqual({ name: 'Rex', categoryId: 3 })
  })
})

describe('errors', () => {
  const petStore = createPetStore({ seed: 1 })

  it('turns 400 into a PetStoreError with the code', async () => {
    const client = createPetStoreClient({ baseUrl: BASE, apiKey: 'test-pro', fetch: petStore.fetch })
    await expect(client.createPet({ name: 'No category' } as never)).rejects.toMatchObject({ status: 400, code: 'invalid_body' })
  })

  it('turns 401 into a PetStoreError', async () => {
    const client = createPetStoreClient({ baseUrl: BASE, apiKey: 'wrong', fetch: petStore.fetch })
    await expect(client.listPets()).rejects.toBeInstanceOf(PetStoreError)
    await expect(client.listPets()).rejects.toMatchObject({ status: 401, code: 'unauthorized' })
  })

  it('turns 404 into a PetStoreError', async () => {
    const client = createPetStoreClient({ baseUrl: BASE, apiKey: 'test-pro', fetch: petStore.fetch })
    await expect(client.getPet(999_999)).rejects.toMatchObject({ status: 404, code: 'pet_not_found' })
  })
})

describe('under rate limits', () => {
  /** A key with 5 requests a minute, on a clock running from 1.4 s before the minute ends. */
  const stormStore = () => {
    const petStore = createPetStore({ seed: 1, keys: [{ key: 'sdk-key', plan: 'pro', limits: { perMinute: 5 } }] })
    petStore.clock.set('2026-06-01T12:00:58.600Z', { running: true })
    return petStore
  }

  it('survives a 429 storm by waiting for Retry-After, with no violation', async () => {
    const petStore = stormStore()
    const client = createPetStoreClient({ baseUrl: BASE, apiKey: 'sdk-key', fetch: petStore.fetch })
    const results = await Promise.all(Array.from({ length: 8 }, () => client.listPets({ limit: 1 })))
    expect(results).toHaveLength(8)
    expect(petStore.journal.find({ status: 429 })).toHaveLength(3)
    expect(petStore).toHaveNoRetryViolations()
  })

  it('shows, in the audit, a naive client that retries at once getting banned', async () => {
    const petStore = stormStore()
    for (let i = 0; i < 5; i++) await petStore.fetch(`${BASE}/pets`, { headers: { authorization: 'Bearer sdk-key' } })
    const last = await naiveListPets(BASE, 'sdk-key', petStore.fetch)
    expect(last.status).toBe(429)
    const report = petStore.audit()
    expect(report.ok).toBe(false)
    expect(report.keys[0]).toMatchObject({ banned: true })
    expect(() => expect(petStore).toHaveNoRetryViolations()).toThrow(/was temporarily banned/)
  })
})
