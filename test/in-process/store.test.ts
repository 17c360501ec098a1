/**
 * What only an in-process host can check: the store behind the API (`petStore.pets`, `reset()`),
 * several stores in one file, user msw handlers in front of the mock's, and createPetStore options.
 */
import { HttpResponse, http, type RequestHandler } from 'msw'
import { type SetupServer, setupServer } from 'msw/node'
import { afterEach, describe, expect, it } from 'vitest'
import { createPetStore, type PetStore, type PetStoreOptions } from '../../src/index.js'

const API = 'https://api.petstore.test/v1'
const AUTH = { authorization: 'Bearer test-pro' }

interface WirePet {
  id: number
  name: string
  categoryId: number
  status?: string
}

async function created(options: PetStoreOptions = {}): Promise<PetStore> {
  const petStore = createPetStore(options)
  await petStore.ready()
  return petStore
}

async function get(petStore: PetStore, path: string): Promise<{ status: number; text: string; body: unknown }> {
  const response = await petStore.fetch(`${API}${path}`, { headers: AUTH })
  const text = await response.text()
  return { status: response.status, text, body: JSON.parse(text) }
}

async function post(petStore: PetStore, pet: object | string): Promise<{ status: number; body: unknown }> {
  const response = await petStore.fetch(`${API}/pets`, {
    method: 'POST',
    headers: { ...AUTH, 'content-type': 'application/json' },
    body: typeof pet === 'string' ? pet : JSON.stringify(pet),
  })
  return { status: response.status, body: await response.json() }
}

const ids = (body: unknown): number[] => (body as WirePet[]).map((pet) => pet.id)
const idOf = (body: unknown): number => (body as WirePet).id

describe('two stores', () => {
  it('do not see each other’s pets', async () => {
    const first = await created({ seed: 1 })
    const second = await created({ seed: 1 })
    expect((await post(first, { name: 'Rex', categoryId: 1 })).status).toBe(201)
    expect(ids((await get(first, '/pets?limit=100')).body)).toContain(51)
    expect(ids((await get(second, '/pets?limit=100')).body)).not.toContain(51)
    expect((await get(second, '/pets/51')).status).toBe(404)
  })

  it('assign ids independently', async () => {
    const first = await created({ pets: 0 })
    const second = await created({ pets: 0 })
    await post(first, { name: 'Rex', categoryId: 1 })
    expect(idOf((await post(second, { name: 'Tom', categoryId: 1 })).body)).toBe(1)
  })

  it('count rate limits independently', async () => {
    const first = await created({ clock: '2026-06-01T12:00:30Z' })
    const second = await created({ clock: '2026-06-01T12:00:30Z' })
    await first.fetch(`${API}/pets`, { headers: AUTH })
    const response = await second.fetch(`${API}/pets`, { headers: AUTH })
    expect(response.headers.get('x-ratelimit-remaining')).toBe('299')
  })
})

describe('petStore.pets', () => {
  it('serves a pet created with an explicit id through the API', async () => {
    const petStore = await created({ seed: 1 })
    await petStore.pets.create({ id: 1000, name: 'Rex', categoryId: 2, status: 'sold' })
    expect((await get(petStore, '/pets/1000')).body).toEqual({ id: 1000, name: 'Rex', categoryId: 2, status: 'sold' })
    expect(ids((await get(petStore, '/pets?status=sold&limit=100')).body).at(-1)).toBe(1000)
  })

  it('makes the API assign ids after an explicit id above the others', async () => {
    const petStore = await created({ seed: 1 })
    await petStore.pets.create({ id: 1000, name: 'Rex', categoryId: 2 })
    expect(idOf((await post(petStore, { name: 'Tom', categoryId: 1 })).body)).toBe(1001)
  })

  it('serves a status changed with update through the API', async () => {
    const petStore = await created({ seed: 1 })
    await petStore.pets.update((q) => q.where({ id: 3n }), {
      data(pet) {
        pet.status = 'pending'
      },
    })
    expect((await get(petStore, '/pets/3').then(({ body }) => body as WirePet)).status).toBe('pending')
    expect(ids((await get(petStore, '/pets?status=pending&limit=100')).body)).toContain(3)
    expect(petStore.pets.findFirst((q) => q.where({ id: 3n }))?.status).toBe('pending')
  })

  it('answers 404 for a pet deleted from the collection', async () => {
    const petStore = await created({ seed: 1 })
    petStore.pets.delete((q) => q.where({ id: 3n }))
    expect((await get(petStore, '/pets/3')).status).toBe(404)
    expect(ids((await get(petStore, '/pets?limit=100')).body)).not.toContain(3)
  })

  it('does not reuse the id of a deleted pet', async () => {
    const petStore = await created({ seed: 1 })
    petStore.pets.delete((q) => q.where({ id: 50n }))
    expect(idOf((await post(petStore, { name: 'Rex', categoryId: 1 })).body)).toBe(51)
    petStore.pets.delete((q) => q.where({ id: 51n }))
    expect(idOf((await post(petStore, { name: 'Tom', categoryId: 1 })).body)).toBe(52)
  })

  it('holds the pets created through the API', async () => {
    const petStore = await created({ seed: 1 })
    await post(petStore, { name: 'Rex', categoryId: 4 })
    const pet = petStore.pets.findFirst((q) => q.where({ id: 51n }))
    expect(pet).toEqual({ id: 51n, name: 'Rex', categoryId: 4n })
  })

  it('keeps int64 category ids exact in the collection', async () => {
    const petStore = await created({ seed: 1 })
    await post(petStore, '{"name":"Big","categoryId":9223372036854775807}')
    expect(petStore.pets.findFirst((q) => q.where({ id: 51n }))?.categoryId).toBe(9223372036854775807n)
  })

  it('rejects creating a pet whose id already exists', async () => {
    const petStore = await created({ seed: 1 })
    await expect(petStore.pets.create({ id: 3, name: 'Dup', categoryId: 1 })).rejects.toThrow('already exists')
    expect((await get(petStore, '/pets/3').then(({ body }) => body as WirePet)).name).not.toBe('Dup')
  })
})

describe('reset()', () => {
  it('restores the seeded pets', async () => {
    const petStore = await created({ seed: 1 })
    const seeded = (await get(petStore, '/pets?limit=100')).text
    await post(petStore, { name: 'Rex', categoryId: 1 })
    petStore.pets.delete((q) => q.where({ id: 1n }))
    await petStore.reset()
    expect((await get(petStore, '/pets?limit=100')).text).toBe(seeded)
    expect(petStore.pets.count()).toBe(50)
  })

  it('restarts ids after the highest seeded id', async () => {
    const petStore = await created({ seed: 1 })
    await post(petStore, { name: 'Rex', categoryId: 1 })
    await post(petStore, { name: 'Tom', categoryId: 1 })
    await petStore.reset()
    expect(idOf((await post(petStore, { name: 'Kit', categoryId: 1 })).body)).toBe(51)
  })

  it('forgets the rate-limit counters', async () => {
    const petStore = await created({ seed: 1 })
    await get(petStore, '/pets')
    await get(petStore, '/pets')
    await petStore.reset()
    const response = await petStore.fetch(`${API}/pets`, { headers: AUTH })
    expect(response.headers.get('x-ratelimit-remaining')).toBe('299')
  })

  it('returns the clock to real time', async () => {
    const petStore = await created()
    petStore.clock.set('2030-12-05T00:00:00Z')
    await petStore.reset()
    expect(petStore.clock.frozen).toBe(false)
    expect((await get(petStore, '/pets/1')).status).toBe(200)
  })

  it('returns a clock the clock option pinned to that moment, so a test that pinned it stays pinned', async () => {
    const petStore = await created({ clock: '2030-12-05T00:00:00Z' })
    petStore.clock.useRealTime()
    await petStore.reset()
    expect(petStore.clock.frozen).toBe(true)
    expect((await get(petStore, '/pets/1')).status).toBe(410)
  })
})

describe('options', () => {
  it('serves an explicit pets array in ascending id order', async () => {
    const petStore = await created({
      pets: [
        { id: 10, name: 'Rex', categoryId: 2, status: 'sold' },
        { id: 3, name: 'Tom', categoryId: 9223372036854775807n },
      ],
    })
    expect((await get(petStore, '/pets')).text).toBe(
      '[{"id":3,"name":"Tom","categoryId":9223372036854775807},{"id":10,"name":"Rex","categoryId":2,"status":"sold"}]',
    )
    expect(idOf((await post(petStore, { name: 'Kit', categoryId: 1 })).body)).toBe(11)
  })

  it('refuses an explicit pet that is not a pet', () => {
    expect(() => createPetStore({ pets: [{ id: 1, name: 'Rex' } as never] })).toThrow('[petstore-mock] pets[0] is not a valid pet')
  })

  it('generates as many pets as asked, in categories 1..categories', async () => {
    const petStore = await created({ seed: 3, pets: 30, categories: 2 })
    const pets = (await get(petStore, '/pets?limit=100')).body as WirePet[]
    expect(pets).toHaveLength(30)
    expect(new Set(pets.map((pet) => pet.categoryId))).toEqual(new Set([1, 2]))
  })

  it('clamps limit into 1..100 with queryValidation lenient', async () => {
    const petStore = await created({ seed: 1, pets: 120, queryValidation: 'lenient' })
    expect(ids((await get(petStore, '/pets?limit=0')).body)).toEqual([1])
    expect(ids((await get(petStore, '/pets?limit=101')).body)).toHaveLength(100)
  })

  it('clamps a negative limit to 1 with queryValidation lenient', async () => {
    const petStore = await created({ seed: 1, queryValidation: 'lenient' })
    expect(ids((await get(petStore, '/pets?limit=-5')).body)).toEqual([1])
  })

  it('lists the default 20 pets for a limit that is not a number with queryValidation lenient', async () => {
    const petStore = await created({ seed: 1, queryValidation: 'lenient' })
    expect(ids((await get(petStore, '/pets?limit=abc')).body)).toHaveLength(20)
  })

  it('matches no pet for an unknown status with queryValidation lenient', async () => {
    const petStore = await created({ seed: 1, queryValidation: 'lenient' })
    expect(await get(petStore, '/pets?status=adopted')).toMatchObject({ status: 200, text: '[]' })
  })

  it('fills in defaultStatus when POST /v1/pets omits status', async () => {
    const petStore = await created({ seed: 1, defaultStatus: 'available' })
    expect((await post(petStore, { name: 'Rex', categoryId: 1 })).body).toEqual({ id: 51, name: 'Rex', categoryId: 1, status: 'available' })
    expect((await post(petStore, { name: 'Tom', categoryId: 1, status: 'sold' })).body).toMatchObject({ status: 'sold' })
  })

  it('answers 413 above maxBodyBytes', async () => {
    const petStore = await created({ seed: 1, maxBodyBytes: 40 })
    const body = '{"name":"Rex","categoryId":1}'
    expect((await post(petStore, body.padEnd(40, ' '))).status).toBe(201)
    expect((await post(petStore, body.padEnd(41, ' '))).body).toMatchObject({ code: 'payload_too_large', status: 413 })
  })

  it('accepts only the configured keys', async () => {
    const petStore = await created({ seed: 1, keys: [{ key: 'my-key', plan: 'business', limits: { perMinute: 7 } }] })
    const mine = await petStore.fetch(`${API}/pets`, { headers: { authorization: 'Bearer my-key' } })
    expect(mine.status).toBe(200)
    expect(mine.headers.get('x-ratelimit-limit')).toBe('7')
    expect((await petStore.fetch(`${API}/pets`, { headers: AUTH })).status).toBe(401)
  })

  it('answers 410 from the start with clock set to the sunset', async () => {
    const petStore = await created({ clock: '2030-12-05T00:00:00Z' })
    expect(await get(petStore, '/pets/1')).toMatchObject({ status: 410, body: { code: 'gone' } })
  })

  it('answers 410 once petStore.clock is moved past the sunset', async () => {
    const petStore = await created({ clock: '2030-12-04T23:59:00Z' })
    expect((await get(petStore, '/pets/1')).status).toBe(200)
    petStore.clock.advance(60_000)
    expect((await get(petStore, '/pets/1')).status).toBe(410)
  })
})

describe('msw', () => {
  let server: SetupServer | undefined
  /** One server per test: setupServer patches the global fetch. */
  const listen = (...handlers: RequestHandler[]): SetupServer => {
    const started = setupServer(...handlers)
    started.listen({ onUnhandledRequest: 'error' })
    server = started
    return started
  }
  afterEach(() => {
    server?.close()
    server = undefined
  })

  it('answers any origin under /v1 by default', async () => {
    const petStore = await created({ seed: 1 })
    listen(...petStore.handlers)
    for (const origin of ['https://api.petstore.test', 'https://staging.petstore.test', 'http://localhost:4010']) {
      expect((await fetch(`${origin}/v1/pets/1`, { headers: AUTH })).status).toBe(200)
    }
  })

  it('leaves other origins to later handlers when baseUrl names one', async () => {
    const petStore = await created({ seed: 1, baseUrl: 'https://api.petstore.test/v1' })
    const passedOn: string[] = []
    listen(
      ...petStore.handlers,
      http.all('*', ({ request }) => {
        passedOn.push(request.url)
        return HttpResponse.text('not the mock', { status: 418 })
      }),
    )
    expect((await fetch('https://api.petstore.test/v1/pets/1', { headers: AUTH })).status).toBe(200)
    expect((await fetch('https://other.petstore.test/v1/pets/1', { headers: AUTH })).status).toBe(418)
    expect(passedOn).toEqual(['https://other.petstore.test/v1/pets/1'])
  })

  it('lets a user handler in front of GET /v1/store/orders win', async () => {
    const petStore = await created({ seed: 1 })
    const mockServer = listen(...petStore.handlers)
    mockServer.use(http.get('*/v1/store/orders', () => HttpResponse.json([])))
    const response = await fetch(`${API}/store/orders`, { headers: AUTH })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual([])
  })

  it('answers GET /v1/store/orders with 501 again once the user handler is gone', async () => {
    const petStore = await created({ seed: 1 })
    const mockServer = listen(...petStore.handlers)
    mockServer.use(http.get('*/v1/store/orders', () => HttpResponse.json([])))
    mockServer.resetHandlers()
    expect((await fetch(`${API}/store/orders`, { headers: AUTH })).status).toBe(501)
  })

  it('lists every seeded pet to a request sent right after listen(), without awaiting ready()', async () => {
    const petStore = createPetStore({ seed: 1 })
    listen(...petStore.handlers)
    const response = await fetch(`${API}/pets?limit=100`, { headers: AUTH })
    expect(ids(await response.json())).toEqual(Array.from({ length: 50 }, (_, i) => i + 1))
  })
})

describe('seeding', () => {
  it('lists every seeded pet while the seed is still being written to the collection', async () => {
    const petStore = createPetStore({ seed: 1 })
    await Promise.resolve()
    expect(ids((await get(petStore, '/pets?limit=100')).body)).toHaveLength(50)
  })

  it('holds every seeded pet in petStore.pets after ready()', async () => {
    const petStore = await created({ seed: 1, pets: 12 })
    expect(petStore.pets.count()).toBe(12)
    expect(
      petStore.pets
        .all()
        .map((pet) => pet.id)
        .sort((a, b) => (a < b ? -1 : 1)),
    ).toEqual(Array.from({ length: 12 }, (_, i) => BigInt(i + 1)))
  })
})
