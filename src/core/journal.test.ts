import { describe, expect, it } from 'vitest'
import { createPetStore } from '../create-pet-store.js'

const NOON = '2026-06-01T12:00:00Z'
const get = (petStore: ReturnType<typeof createPetStore>, path: string, key = 'test-pro') =>
  petStore.fetch(path, { headers: { authorization: `Bearer ${key}` } })

describe('the request journal', () => {
  it('keeps the last N exchanges, newest last', async () => {
    const petStore = createPetStore({ journalLimit: 3, clock: NOON })
    for (const id of [1, 2, 3, 4, 5]) await get(petStore, `/v1/pets/${id}`)
    expect(petStore.journal.all().map((entry) => entry.path)).toEqual(['/v1/pets/3', '/v1/pets/4', '/v1/pets/5'])
    expect(petStore.journal.all().map((entry) => entry.seq)).toEqual([3, 4, 5])
  })

  it('records time on the store clock, the request, the redacted key, the answer and its rate-limit headers', async () => {
    const petStore = createPetStore({ clock: NOON })
    await petStore.fetch('/v1/pets?limit=2', {
      method: 'POST',
      headers: { authorization: 'Bearer test-free', 'content-type': 'application/json' },
      body: '{"name":"Rex","categoryId":9223372036854775807}',
    })
    const [entry] = petStore.journal.all()
    expect(entry).toEqual({
      seq: 1,
      at: Date.parse(NOON),
      time: '2026-06-01T12:00:00.000Z',
      method: 'POST',
      path: '/v1/pets',
      query: 'limit=2',
      key: 'free …free',
      plan: 'free',
      operation: 'createPet',
      bodySize: 47,
      body: { name: 'Rex', categoryId: 9223372036854775807n },
      status: 201,
      rateLimit: { limit: 60, remaining: 59, reset: Date.parse(NOON) / 1000 + 60 },
      code: undefined,
      scenario: 'default',
      fault: undefined,
      arrival: 1,
      delivered: 2,
    })
    expect(JSON.stringify(petStore.journal.all(), (_k, v) => (typeof v === 'bigint' ? String(v) : v))).not.toContain('test-free')
  })

  it('finds entries by method, path, status, plan and code', async () => {
    const petStore = createPetStore()
    await get(petStore, '/v1/pets')
    await get(petStore, '/v1/pets/999', 'test-free')
    await petStore.fetch('/v1/pets')
    expect(petStore.journal.find({ status: 404 }).map((e) => e.path)).toEqual(['/v1/pets/999'])
    expect(petStore.journal.find({ path: /^\/v1\/pets\/\d+$/ })).toHaveLength(1)
    expect(petStore.journal.find({ method: 'get', plan: 'pro' })).toHaveLength(1)
    expect(petStore.journal.find({ code: 'unauthorized' })).toMatchObject([{ key: undefined, status: 401 }])
  })

  it('empties on clear()', async () => {
    const petStore = createPetStore()
    await get(petStore, '/v1/pets')
    petStore.journal.clear()
    expect(petStore.journal.all()).toEqual([])
  })

  it('waits for an exchange that has not happened yet', async () => {
    const petStore = createPetStore()
    const waiting = petStore.journal.waitFor((entry) => entry.status === 201)
    await petStore.fetch('/v1/pets', {
      method: 'POST',
      headers: { authorization: 'Bearer test-pro', 'content-type': 'application/json' },
      body: '{"name":"a","categoryId":1}',
    })
    await expect(waiting).resolves.toMatchObject({ status: 201, operation: 'createPet' })
  })

  it('gives up waiting after the timeout with a clear message', async () => {
    const petStore = createPetStore()
    await expect(petStore.journal.waitFor(() => false, { timeout: 20 })).rejects.toThrow(
      /\[petstore-mock\] journal\.waitFor\(\) timed out after 20 ms/,
    )
  })

  it('keeps nothing with journalLimit 0', async () => {
    const petStore = createPetStore({ journalLimit: 0 })
    await get(petStore, '/v1/pets')
    expect(petStore.journal.all()).toEqual([])
  })
})
