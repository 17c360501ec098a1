import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { createPetStore } from 'petstore-mock'

// A fresh world per test, its clock frozen so the minute window cannot roll over mid-test.
const newPetStore = () => createPetStore({ seed: 1, clock: '2026-06-01T12:00:00Z' })
const auth = (key) => ({ Authorization: `Bearer ${key}` })

describe('the Pet Store through petStore.fetch', () => {
  it('lists pets, page size and rate-limit headers included', async () => {
    const response = await newPetStore().fetch('/v1/pets?limit=3', { headers: auth('test-free') })
    assert.equal(response.status, 200)
    assert.equal(response.headers.get('X-RateLimit-Limit'), '60')
    assert.equal((await response.json()).length, 3)
  })

  it('creates a pet and answers 201 with its Location', async () => {
    const response = await newPetStore().fetch('/v1/pets', {
      method: 'POST',
      headers: { ...auth('test-pro'), 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Rex', categoryId: 3 }),
    })
    assert.equal(response.status, 201)
    const pet = await response.json()
    assert.equal(pet.name, 'Rex')
    assert.equal(response.headers.get('Location'), `/v1/pets/${pet.id}`)
  })

  it('answers 401 without an API key', async () => {
    const response = await newPetStore().fetch('/v1/pets')
    assert.equal(response.status, 401)
    assert.equal((await response.json()).code, 'unauthorized')
  })

  it('answers 404 for a pet that does not exist', async () => {
    const response = await newPetStore().fetch('/v1/pets/999999', { headers: auth('test-free') })
    assert.equal(response.status, 404)
    assert.equal((await response.json()).code, 'pet_not_found')
  })

  it('answers the 61st request in a minute on the Free plan with 429 and Retry-After', async () => {
    const petStore = newPetStore()
    const get = () => petStore.fetch('/v1/pets?limit=1', { headers: auth('test-free') })
    for (let i = 0; i < 60; i++) assert.equal((await get()).status, 200)
    const limited = await get()
    assert.equal(limited.status, 429)
    assert.match(limited.headers.get('Retry-After') ?? '', /^\d+$/)
    // No matchers in node:test: the retry audit is a plain report. The client stopped at the 429.
    const report = petStore.audit()
    assert.ok(report.ok, report.problems.join('\n'))
  })
})
