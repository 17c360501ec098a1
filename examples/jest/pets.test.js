import { describe, expect, it } from '@jest/globals'
import { createPetStore } from 'petstore-mock'

// A fresh world per test, its clock frozen so the minute window cannot roll over mid-test.
const newPetStore = () => createPetStore({ seed: 1, clock: '2026-06-01T12:00:00Z' })
const auth = (key) => ({ Authorization: `Bearer ${key}` })

describe('the Pet Store through petStore.fetch', () => {
  it('lists pets, page size and rate-limit headers included', async () => {
    const response = await newPetStore().fetch('/v1/pets?limit=3', { headers: auth('test-free') })
    expect(response.status).toBe(200)
    expect(response.headers.get('X-RateLimit-Limit')).toBe('60')
    expect(await response.json()).toHaveLength(3)
  })

  it('creates a pet and answers 201 with its Location', async () => {
    const response = await newPetStore().fetch('/v1/pets', {
      method: 'POST',
      headers: { ...auth('test-pro'), 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Rex', categoryId: 3 }),
    })
    expect(response.status).toBe(201)
    const pet = await response.json()
    expect(pet).toMatchObject({ name: 'Rex', categoryId: 3 })
    expect(response.headers.get('Location')).toBe(`/v1/pets/${pet.id}`)
  })

  it('answers 401 without an API key', async () => {
    const response = await newPetStore().fetch('/v1/pets')
    expect(response.status).toBe(401)
    expect(await response.json()).toMatchObject({ code: 'unauthorized', status: 401 })
  })

  it('answers 404 for a pet that does not exist', async () => {
    const response = await newPetStore().fetch('/v1/pets/999999', { headers: auth('test-free') })
    expect(response.status).toBe(404)
    expect(await response.json()).toMatchObject({ code: 'pet_not_found', status: 404 })
  })

  it('answers the 61st request in a minute on the Free plan with 429 and Retry-After', async () => {
    const petStore = newPetStore()
    const get = () => petStore.fetch('/v1/pets?limit=1', { headers: auth('test-free') })
    for (let i = 0; i < 60; i++) expect((await get()).status).toBe(200)
    const limited = await get()
    expect(limited.status).toBe(429)
    expect(limited.headers.get('Retry-After')).toMatch(/^\d+$/)
    // The client stopped at the 429: nothing was sent before Retry-After had passed.
    expect(petStore).toHaveNoRetryViolations()
  })

  it('flags a retry sent before Retry-After', async () => {
    const petStore = newPetStore()
    const get = () => petStore.fetch('/v1/pets?limit=1', { headers: auth('test-free') })
    for (let i = 0; i < 61; i++) await get()
    await get() // at once, as a naive client does
    expect(petStore).not.toHaveNoRetryViolations()
  })
})
