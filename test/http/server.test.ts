import { connect, type Socket } from 'node:net'
import { HttpResponse, http } from 'msw'
import { afterEach, describe, expect, it } from 'vitest'
import { isLoopback } from '../../src/server/http-server.js'
import { createWorld } from '../../src/world/create-world.js'
import { auth, closeServers, INT64_MAX, MIB, postPet, sleep, startServer } from './support.js'

const keptAlive = new Set<Socket>()
afterEach(async () => {
  // A shutdown test that failed leaves its client's connection open, which would hold closeServers too.
  for (const socket of keptAlive) socket.destroy()
  keptAlive.clear()
  await closeServers()
})

const FROZEN = '2026-06-01T12:00:30Z'
const EXPOSED = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'Location',
  'Deprecation',
  'Sunset',
  'Link',
]

interface ErrorBody {
  code: string
  message: string
  status: number
}

async function expectError(response: Response, status: number, code: string): Promise<ErrorBody> {
  const text = await response.text()
  expect(response.status, text).toBe(status)
  expect(response.headers.get('content-type')).toMatch(/^application\/json/)
  const body = JSON.parse(text) as ErrorBody
  expect(body).toEqual({ code, message: expect.any(String), status })
  return body
}

const session = (name: string, headers: Record<string, string> = {}) => ({ 'x-mock-session': name, ...headers })

/** Freezes the clock of a session (default: the default world) through the admin API. */
async function freeze(url: string, iso = FROZEN, name?: string): Promise<void> {
  const response = await fetch(`${url}/__mock/clock`, {
    method: 'POST',
    headers: name === undefined ? {} : session(name),
    body: JSON.stringify({ set: iso }),
  })
  expect(response.status).toBe(200)
}

const listPets = (url: string, headers: Record<string, string> = {}, key = 'test-pro') =>
  fetch(`${url}/v1/pets?limit=100`, { headers: auth(key, headers) })

const ids = async (response: Response): Promise<number[]> => ((await response.json()) as Array<{ id: number }>).map((pet) => pet.id)

describe('CORS', () => {
  it('answers a keyless preflight with an empty 204 that allows the requested method with its headers', async () => {
    const { url } = await startServer()
    const response = await fetch(`${url}/v1/pets`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    })
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:5173')
    expect(response.headers.get('access-control-allow-methods')).toContain('POST')
    const allowed = (response.headers.get('access-control-allow-headers') ?? '').toLowerCase()
    expect(allowed).toContain('authorization')
    expect(allowed).toContain('content-type')
    expect(await response.text()).toBe('')
  })

  /** A server at a frozen time that has answered three preflights carrying the key test-free, each with 204. */
  const afterThreePreflights = async () => {
    const { url } = await startServer()
    await freeze(url)
    for (let i = 0; i < 3; i++) {
      const preflight = await fetch(`${url}/v1/pets`, {
        method: 'OPTIONS',
        headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'GET', authorization: 'Bearer test-free' },
      })
      expect(preflight.status).toBe(204)
    }
    return url
  }

  it('does not journal a preflight', async () => {
    const url = await afterThreePreflights()
    expect(await (await fetch(`${url}/__mock/requests`)).json()).toEqual([])
  })

  it('does not count a preflight against the quota', async () => {
    const url = await afterThreePreflights()
    const response = await listPets(url, {}, 'test-free')
    expect(response.headers.get('x-ratelimit-remaining')).toBe('59')
  })

  const createFrom = (url: string, origin: string) => postPet(url, { name: 'Rex', categoryId: 1 }, { origin })

  it('echoes any origin', async () => {
    const { url } = await startServer()
    const response = await createFrom(url, 'https://app.example.com')
    expect(response.status).toBe(201)
    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
  })

  it('exposes every header the API documents to the page: the rate limits, Location, the deprecation headers', async () => {
    const { url } = await startServer()
    const response = await createFrom(url, 'https://app.example.com')
    const exposed = (response.headers.get('access-control-expose-headers') ?? '').split(',').map((name) => name.trim().toLowerCase())
    for (const name of EXPOSED) expect(exposed).toContain(name.toLowerCase())
  })

  it('adds CORS headers to errors too', async () => {
    const { url } = await startServer()
    const response = await fetch(`${url}/v1/pets`, { headers: { origin: 'https://app.example.com' } })
    await expectError(response, 401, 'unauthorized')
    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
  })

  it('allows only the listed origins with corsOrigin', async () => {
    const { url } = await startServer({ corsOrigin: ['http://localhost:5173'] })
    const allowed = await listPets(url, { origin: 'http://localhost:5173' })
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://localhost:5173')
    const other = await listPets(url, { origin: 'https://evil.example' })
    expect(other.status).toBe(200)
    expect(other.headers.get('access-control-allow-origin')).toBeNull()
    const preflight = await fetch(`${url}/v1/pets`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    })
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull()
    expect(preflight.headers.get('access-control-allow-methods')).toBeNull()
  })

  it('sends no CORS headers to a request without Origin', async () => {
    const { url } = await startServer()
    const response = await listPets(url)
    expect(response.headers.get('access-control-allow-origin')).toBeNull()
  })
})

describe('sessions', () => {
  it('keeps the pets of two sessions apart', async () => {
    const { url } = await startServer()
    const created = await postPet(url, { name: 'Only-in-alice', categoryId: 1 }, session('alice'))
    expect(created.status).toBe(201)
    expect(await ids(await listPets(url, session('alice')))).toContain(51)
    expect(await ids(await listPets(url, session('bob')))).not.toContain(51)
    expect(await ids(await listPets(url))).not.toContain(51)
  })

  it('keeps the rate counters of two sessions apart', async () => {
    const { url } = await startServer()
    await freeze(url, FROZEN, 'alice')
    await freeze(url, FROZEN, 'bob')
    for (let i = 0; i < 3; i++) await listPets(url, session('alice'), 'test-free')
    const alice = await listPets(url, session('alice'), 'test-free')
    const bob = await listPets(url, session('bob'), 'test-free')
    expect(alice.headers.get('x-ratelimit-remaining')).toBe('56')
    expect(bob.headers.get('x-ratelimit-remaining')).toBe('59')
  })

  it('keeps the clock of a session to itself', async () => {
    const { url } = await startServer()
    await freeze(url, '2031-01-01T00:00:00Z', 'after-sunset')
    await expectError(await fetch(`${url}/v1/pets/1`, { headers: auth('test-pro', session('after-sunset')) }), 410, 'gone')
    expect((await fetch(`${url}/v1/pets/1`, { headers: auth('test-pro', session('before-sunset')) })).status).toBe(200)
  })

  it('creates a new session from the same seed as the default world', async () => {
    const { url } = await startServer({ seed: 7 })
    const main = await (await listPets(url)).text()
    expect(await (await listPets(url, session('fresh'))).text()).toBe(main)
  })

  // The same words on every surface (src/core/refusals.ts; the MCP tools say "The session name must be …").
  const SESSION_REFUSAL = 'X-Mock-Session must be 1-64 characters of letters, digits, ".", "_", ":" or "-".'

  it('answers an invalid session name on the API with 400 invalid_session', async () => {
    const { url } = await startServer()
    expect((await expectError(await listPets(url, session('has space')), 400, 'invalid_session')).message).toBe(SESSION_REFUSAL)
    await expectError(await listPets(url, session('x'.repeat(65))), 400, 'invalid_session')
  })

  it('answers an invalid session name on the admin API with 400 invalid_session, in the same words', async () => {
    const { url } = await startServer()
    const refused = await expectError(await fetch(`${url}/__mock/state`, { headers: session('a/b') }), 400, 'invalid_session')
    expect(refused.message).toBe(SESSION_REFUSAL)
  })

  it('evicts the least recently used session beyond maxSessions, which then comes back fresh', async () => {
    const { url } = await startServer({ maxSessions: 2 })
    expect((await postPet(url, { name: 'Rex', categoryId: 1 }, session('a'))).status).toBe(201)
    expect((await postPet(url, { name: 'Tom', categoryId: 1 }, session('b'))).status).toBe(201)
    // Touch b, then create c: a is now the least recently used.
    await listPets(url, session('b'))
    await listPets(url, session('c'))
    expect(await ids(await listPets(url, session('b')))).toContain(51)
    expect(await ids(await listPets(url, session('a')))).not.toContain(51)
  })

  it('never evicts the default world', async () => {
    const { url } = await startServer({ maxSessions: 1 })
    expect((await postPet(url, { name: 'Rex', categoryId: 1 })).status).toBe(201)
    for (const name of ['a', 'b', 'c']) await listPets(url, session(name))
    expect(await ids(await listPets(url))).toContain(51)
  })
})

describe('admin API', () => {
  it('reports health with the session count', async () => {
    const { url } = await startServer({ maxSessions: 5 })
    await listPets(url, session('one'))
    const response = await fetch(`${url}/__mock/health`)
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ status: 'ok', sessions: 2, maxSessions: 5 })
  })

  it('says in its health where the API lives (the world base path)', async () => {
    const { url } = await startServer({ baseUrl: '/api/v1' })
    expect(await (await fetch(`${url}/__mock/health`)).json()).toMatchObject({ basePath: '/api/v1' })
    const { url: plain } = await startServer()
    expect(await (await fetch(`${plain}/__mock/health`)).json()).toMatchObject({ basePath: '/v1' })
  })

  it('reports the spec coverage of a session at GET /__mock/coverage, as the same traffic in-process does', async () => {
    const { url } = await startServer({ clock: '2026-06-01T12:00:00Z' })
    const world = createWorld({ clock: '2026-06-01T12:00:00Z' })
    const traffic: [string, RequestInit][] = [
      ['/v1/pets', { headers: auth('test-free') }],
      ['/v1/pets/1', {}],
      ['/v1/pets', { method: 'POST', headers: auth('test-free', { 'content-type': 'application/json' }), body: '{"categoryId":1}' }],
    ]
    for (const [path, init] of traffic) {
      await (await fetch(`${url}${path}`, init)).arrayBuffer()
      await world.fetch(path, init)
    }
    const response = await fetch(`${url}/__mock/coverage`)
    expect(response.status).toBe(200)
    const coverage = await response.json()
    expect(coverage).toEqual(JSON.parse(JSON.stringify(world.coverage())))
    expect(coverage.missing).not.toContain('getPet 401')
    expect(coverage.rules.find((item: { id: string }) => item.id === 'create.name')).toMatchObject({ requests: 1 })
  })

  it('resets the world to its seed with POST /__mock/reset', async () => {
    const { url } = await startServer()
    const before = await (await listPets(url)).text()
    await postPet(url, { name: 'Rex', categoryId: 1 })
    const reset = await fetch(`${url}/__mock/reset`, { method: 'POST' })
    expect(reset.status).toBe(204)
    expect(await (await listPets(url)).text()).toBe(before)
    expect(await (await postPet(url, { name: 'Rex', categoryId: 1 })).json()).toMatchObject({ id: 51 })
  })

  it('resets only the session named in X-Mock-Session', async () => {
    const { url } = await startServer()
    await postPet(url, { name: 'Rex', categoryId: 1 }, session('alice'))
    await postPet(url, { name: 'Rex', categoryId: 1 })
    expect((await fetch(`${url}/__mock/reset`, { method: 'POST', headers: session('alice') })).status).toBe(204)
    expect(await ids(await listPets(url, session('alice')))).not.toContain(51)
    expect(await ids(await listPets(url))).toContain(51)
  })

  /**
   * At a frozen time, creates a pet with categoryId INT64_MAX and sends four requests of test-free; then exports the
   * state, resets the world, asks for the pet and imports the state again.
   */
  async function exportResetImport() {
    const { url } = await startServer()
    await freeze(url)
    const created = await postPet(url, `{"name":"Big","categoryId":${INT64_MAX}}`)
    for (let i = 0; i < 4; i++) await listPets(url, {}, 'test-free')
    const exported = await fetch(`${url}/__mock/state`)
    const state = await exported.text()
    const reset = await fetch(`${url}/__mock/reset`, { method: 'POST' })
    const afterReset = await fetch(`${url}/v1/pets/51`, { headers: auth('test-pro') })
    const imported = await fetch(`${url}/__mock/state`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: state })
    return { url, created, exported, state, reset, afterReset, imported }
  }

  it(`restores a pet with categoryId ${INT64_MAX} byte-exact through export, reset, import`, async () => {
    const { url, created, exported, state, reset, afterReset, imported } = await exportResetImport()
    expect(created.status).toBe(201)
    expect(exported.status).toBe(200)
    expect(exported.headers.get('content-type')).toMatch(/^application\/json/)
    expect(state).toContain(`"categoryId":${INT64_MAX}`)
    expect(reset.status).toBe(204)
    await expectError(afterReset, 404, 'pet_not_found')
    expect(imported.status).toBe(204)
    expect(await (await fetch(`${url}/__mock/state`)).text()).toBe(state)
    const pet = await fetch(`${url}/v1/pets/51`, { headers: auth('test-pro') })
    expect(await pet.text()).toMatch(new RegExp(`"categoryId":${INT64_MAX}[,}]`))
  })

  it('restores the rate counters through export, reset, import', async () => {
    const { url } = await exportResetImport()
    const free = await listPets(url, {}, 'test-free')
    expect(free.headers.get('x-ratelimit-remaining')).toBe('55')
  })

  /** A server with one created pet; `before` is its state, `bad` the state imports it must refuse. */
  async function withBadStates() {
    const { url } = await startServer()
    await postPet(url, { name: 'Rex', categoryId: 1 })
    const before = await (await fetch(`${url}/__mock/state`)).text()
    const valid = JSON.parse(before) as { pets: unknown[] }
    const oneBadPet = JSON.stringify({ ...valid, pets: [...valid.pets, { id: 'x' }] })
    const bad = ['{', '{}', '{"version":1,"pets":"none"}', '[]', '', oneBadPet]
    const put = (body: string) => fetch(`${url}/__mock/state`, { method: 'PUT', body })
    return { url, before, bad, put }
  }

  it('refuses a bad state with 400 invalid_admin_request', async () => {
    const { bad, put } = await withBadStates()
    for (const body of bad) await expectError(await put(body), 400, 'invalid_admin_request')
  })

  it('changes nothing when it refuses a bad state', async () => {
    const { url, before, bad, put } = await withBadStates()
    for (const body of bad) await put(body)
    expect(await (await fetch(`${url}/__mock/state`)).text()).toBe(before)
  })

  /** A server whose clock is set to noon with POST /__mock/clock; `post` sends it another clock request. */
  async function clockSetToNoon() {
    const { url } = await startServer()
    const post = (body: unknown) => fetch(`${url}/__mock/clock`, { method: 'POST', body: JSON.stringify(body) })
    const set = await post({ set: '2026-06-01T12:00:00Z' })
    return { url, post, set }
  }

  it("refuses a moment outside the clock's range with 400 naming it, and every admin read answers at both ends", async () => {
    const { url, post } = await clockSetToNoon()
    for (const body of [
      { set: '+275760-09-13T00:00:00Z' },
      { set: '-271821-04-20T00:00:00Z' },
      { set: '1969-12-31T23:59:59Z' },
      { set: 8.64e15 },
      { advanceSeconds: 8.64e12 },
    ]) {
      const refused = await post(body)
      expect(refused.status).toBe(400)
      const error = (await refused.json()) as { code: string; message: string; status: number }
      expect(error).toMatchObject({ code: 'invalid_admin_request', status: 400 })
      expect(error.message).toContain('1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z')
    }
    expect(await (await fetch(`${url}/__mock/clock`)).json()).toMatchObject({ now: '2026-06-01T12:00:00.000Z' })
    const reads = ['/__mock/keys', '/__mock/requests', '/__mock/requests.har', '/__mock/state', '/__mock/timeline', '/__mock/coverage']
    for (const set of ['9999-12-31T23:59:59.999Z', '1970-01-01T00:00:00Z']) {
      expect((await post({ set })).status).toBe(200)
      // A request at that moment, so the journal, the HAR and the keys have an entry, a window and a reset to print.
      const api = await fetch(`${url}/v1/pets?limit=1`, { headers: { Authorization: 'Bearer test-free' } })
      expect(api.status).toBe(200)
      for (const path of reads) expect([path, (await fetch(`${url}${path}`)).status]).toEqual([path, 200])
    }
    expect((await post({ real: true })).status).toBe(200)
    for (const path of reads) expect([path, (await fetch(`${url}${path}`)).status]).toEqual([path, 200])
  })

  it('freezes the clock at the time set with POST /__mock/clock', async () => {
    const { url, set } = await clockSetToNoon()
    expect(set.status).toBe(200)
    expect(await set.json()).toMatchObject({ now: '2026-06-01T12:00:00.000Z', frozen: true })
    expect(await (await fetch(`${url}/__mock/clock`)).json()).toMatchObject({ now: '2026-06-01T12:00:00.000Z', frozen: true })
  })

  it('advances a frozen clock with POST /__mock/clock, the rate-limit windows with it', async () => {
    const { url, post } = await clockSetToNoon()
    expect(await (await post({ advanceSeconds: 60 })).json()).toMatchObject({ now: '2026-06-01T12:01:00.000Z', frozen: true })
    const reset = await listPets(url, {}, 'test-free')
    expect(reset.headers.get('x-ratelimit-reset')).toBe(String(Date.parse('2026-06-01T12:02:00Z') / 1000))
  })

  it('releases a frozen clock to real time with POST /__mock/clock', async () => {
    const { url, post } = await clockSetToNoon()
    const real = await post({ real: true })
    expect(await real.json()).toMatchObject({ frozen: false })
    // Real time: the clock reads between the moments the test asked and was answered.
    const asked = Date.now()
    const now = Date.parse(((await (await fetch(`${url}/__mock/clock`)).json()) as { now: string }).now)
    expect(now).toBeGreaterThanOrEqual(asked)
    expect(now).toBeLessThanOrEqual(Date.now())
  })

  it('lets the clock run on from a set moment with "running": true', async () => {
    const { url } = await startServer()
    const asked = Date.now()
    const answer = await fetch(`${url}/__mock/clock`, {
      method: 'POST',
      body: JSON.stringify({ set: '2026-06-01T12:00:00Z', running: true }),
    })
    const view = (await answer.json()) as { now: string; frozen: boolean }
    expect(view.frozen).toBe(false)
    // It reads the set moment plus the real time that passed since, never less.
    const later = Date.parse(((await (await fetch(`${url}/__mock/clock`)).json()) as { now: string }).now)
    expect(later).toBeGreaterThanOrEqual(Date.parse(view.now))
    expect(later - Date.parse('2026-06-01T12:00:00Z')).toBeLessThanOrEqual(Date.now() - asked)
  })

  it.each([
    ['no field', {}],
    ['two fields', { set: '2026-06-01T12:00:00Z', advanceSeconds: 60 }],
    ['running without set', { running: true, advanceSeconds: 60 }],
    ['running not a boolean', { set: '2026-06-01T12:00:00Z', running: 'yes' }],
    ['a bad date', { set: 'tomorrow' }],
    ['a non-numeric advance', { advanceSeconds: '60' }],
    ['real false', { real: false }],
    ['an unknown field only', { speed: 2 }],
  ])('answers a clock request with %s with 400 invalid_admin_request', async (_label, body) => {
    const { url } = await startServer()
    await expectError(await fetch(`${url}/__mock/clock`, { method: 'POST', body: JSON.stringify(body) }), 400, 'invalid_admin_request')
  })

  it('answers a clock request that is not JSON with 400 invalid_admin_request', async () => {
    const { url } = await startServer()
    await expectError(await fetch(`${url}/__mock/clock`, { method: 'POST', body: 'set=now' }), 400, 'invalid_admin_request')
  })

  const beyondTheDateRange = [
    ['set to a number beyond the Date range', { set: 1e300 }],
    ['advanced beyond the Date range', { advanceSeconds: 1e300 }],
  ] as const
  /** Freezes the clock, then asks for a clock beyond the Date range. */
  const askBeyondTheDateRange = async (body: object) => {
    const { url } = await startServer()
    await freeze(url)
    const response = await fetch(`${url}/__mock/clock`, { method: 'POST', body: JSON.stringify(body) })
    return { url, response }
  }

  it.each(beyondTheDateRange)('answers a clock %s with 400 invalid_admin_request', async (_label, body) => {
    const { response } = await askBeyondTheDateRange(body)
    await expectError(response, 400, 'invalid_admin_request')
  })

  it.each(beyondTheDateRange)('keeps the clock usable after a clock %s', async (_label, body) => {
    const { url } = await askBeyondTheDateRange(body)
    const clock = await fetch(`${url}/__mock/clock`)
    expect(clock.status).toBe(200)
    expect(await clock.json()).toMatchObject({ now: '2026-06-01T12:00:30.000Z' })
  })

  /** A server that has answered a Pro list, a create and a 404; `journal` reads GET /__mock/requests with a query. */
  async function afterThreeRequests() {
    const { url } = await startServer()
    await listPets(url)
    await postPet(url, { name: 'Rex', categoryId: 1 })
    await fetch(`${url}/v1/pets/999`, { headers: auth('test-pro') })
    const journal = async (query = '') => {
      const response = await fetch(`${url}/__mock/requests${query}`)
      expect(response.status).toBe(200)
      return (await response.json()) as Array<{ method: string; path: string; status: number; plan?: string }>
    }
    return journal
  }

  it('journals the API requests newest last, with their plan', async () => {
    const journal = await afterThreeRequests()
    expect((await journal()).map((entry) => [entry.method, entry.path, entry.status])).toEqual([
      ['GET', '/v1/pets', 200],
      ['POST', '/v1/pets', 201],
      ['GET', '/v1/pets/999', 404],
    ])
    expect((await journal())[0]?.plan).toBe('pro')
  })

  it('filters the journal by method, in any case', async () => {
    const journal = await afterThreeRequests()
    expect((await journal('?method=POST')).map((entry) => entry.status)).toEqual([201])
    expect((await journal('?method=post')).map((entry) => entry.status)).toEqual([201])
  })

  it('filters the journal by path', async () => {
    const journal = await afterThreeRequests()
    expect((await journal('?path=/v1/pets/999')).map((entry) => entry.status)).toEqual([404])
  })

  it('filters the journal by status', async () => {
    const journal = await afterThreeRequests()
    expect((await journal('?status=200')).map((entry) => entry.path)).toEqual(['/v1/pets'])
  })

  it('filters the journal by every field of a query at once', async () => {
    const journal = await afterThreeRequests()
    expect((await journal('?method=GET&status=404')).map((entry) => entry.path)).toEqual(['/v1/pets/999'])
  })

  it('never puts the API key in the journal', async () => {
    const { url } = await startServer()
    await listPets(url, {}, 'test-business')
    expect(await (await fetch(`${url}/__mock/requests`)).text()).not.toContain('test-business')
  })

  it('answers a journal filter with a bad status with 400 invalid_admin_request', async () => {
    const { url } = await startServer()
    await expectError(await fetch(`${url}/__mock/requests?status=ok`), 400, 'invalid_admin_request')
  })

  it('clears the journal with DELETE /__mock/requests', async () => {
    const { url } = await startServer()
    await listPets(url)
    expect((await fetch(`${url}/__mock/requests`, { method: 'DELETE' })).status).toBe(204)
    expect(await (await fetch(`${url}/__mock/requests`)).json()).toEqual([])
  })

  it('keeps a journal per session', async () => {
    const { url } = await startServer()
    await listPets(url, session('alice'))
    expect(await (await fetch(`${url}/__mock/requests`)).json()).toEqual([])
    expect(await (await fetch(`${url}/__mock/requests`, { headers: session('alice') })).json()).toHaveLength(1)
  })

  it('serves the OpenAPI document with this server as its server URL', async () => {
    const { url } = await startServer()
    const response = await fetch(`${url}/__mock/openapi.json`)
    expect(response.status).toBe(200)
    const document = (await response.json()) as { openapi: string; servers: Array<{ url: string }>; paths: Record<string, unknown> }
    expect(document.openapi).toMatch(/^3\./)
    expect(document.servers[0]?.url).toBe(`${url}/v1`)
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/pets', '/pets/{petId}']))
  })

  it('answers an unknown admin path with 404 route_not_found', async () => {
    const { url } = await startServer()
    await expectError(await fetch(`${url}/__mock/nothing`), 404, 'route_not_found')
  })

  it('answers an admin body with an unsupported charset with a 4xx Error, not 500', async () => {
    const { url } = await startServer()
    const response = await fetch(`${url}/__mock/state`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json; charset=foo' },
      body: '{}',
    })
    expect(response.status).toBeGreaterThanOrEqual(400)
    expect(response.status).toBeLessThan(500)
  })

  it('answers an admin body with an unknown Content-Encoding with a 4xx Error, not 500', async () => {
    const { url } = await startServer()
    const response = await fetch(`${url}/__mock/clock`, { method: 'POST', headers: { 'content-encoding': 'bogus' }, body: '{"real":true}' })
    expect(response.status).toBeGreaterThanOrEqual(400)
    expect(response.status).toBeLessThan(500)
  })

  it('requires the admin token as a Bearer token when adminToken is set', async () => {
    const { url } = await startServer({ adminToken: 's3cret' })
    const without = await fetch(`${url}/__mock/clock`)
    await expectError(without, 401, 'admin_unauthorized')
    expect(without.headers.get('www-authenticate')).toBe('Bearer')
    await expectError(await fetch(`${url}/__mock/reset`, { method: 'POST', headers: auth('wrong') }), 401, 'admin_unauthorized')
    await expectError(await fetch(`${url}/__mock/state`, { headers: auth('test-pro') }), 401, 'admin_unauthorized')
    expect((await fetch(`${url}/__mock/clock`, { headers: auth('s3cret') })).status).toBe(200)
    // Health is public (docs/spec-decisions.md row 36): containers and load balancers probe it without the token.
    expect((await fetch(`${url}/__mock/health`)).status).toBe(200)
  })

  it('leaves the API to API keys when adminToken is set', async () => {
    const { url } = await startServer({ adminToken: 's3cret' })
    expect((await listPets(url)).status).toBe(200)
    await expectError(await fetch(`${url}/v1/pets`, { headers: auth('s3cret') }), 401, 'unauthorized')
  })

  it('treats loopback addresses as loopback', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', 'localhost']) expect(isLoopback(host), host).toBe(true)
  })

  it('treats any other address as remote', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.10', '10.0.0.1', 'example.com']) expect(isLoopback(host), host).toBe(false)
  })
})

describe('request bodies', () => {
  const postFiveMiB = (url: string) => postPet(url, JSON.stringify({ name: 'x'.repeat(5 * MIB), categoryId: 1 }))

  it('refuses a 5 MiB body with 413 payload_too_large', async () => {
    const { url } = await startServer()
    await expectError(await postFiveMiB(url), 413, 'payload_too_large')
  })

  it('keeps serving after refusing a 5 MiB body', async () => {
    const { url } = await startServer()
    await postFiveMiB(url)
    expect((await listPets(url)).status).toBe(200)
    expect((await postPet(url, { name: 'Rex', categoryId: 1 })).status).toBe(201)
  })
})

describe('requests the HTTP parser refuses', () => {
  it('answers a method unknown to HTTP with a 4xx Error body', async () => {
    const { url } = await startServer()
    const response = await fetch(`${url}/v1/pets`, { method: 'FOO', headers: auth('test-pro') })
    expect(response.status).toBeGreaterThanOrEqual(400)
    expect(response.status).toBeLessThan(500)
    const text = await response.text()
    expect(text, 'an empty body is not an Error body').not.toBe('')
    expect(JSON.parse(text)).toEqual({ code: expect.any(String), message: expect.any(String), status: response.status })
  })

  it('keeps serving after a request the parser refused', async () => {
    const { url } = await startServer()
    await fetch(`${url}/v1/pets`, { method: 'FOO' })
    expect((await listPets(url)).status).toBe(200)
  })
})

describe('user handlers', () => {
  const userHandlers = [
    http.get('*/v1/store/orders', () => HttpResponse.json([{ id: 1 }])),
    http.get('*/v1/boom', () => {
      throw new Error('x')
    }),
    http.get('*/v1/reset-me', () => HttpResponse.error()),
  ]

  it('answers with the user handler in front of the built-in operation', async () => {
    const { url } = await startServer({ userHandlers })
    const response = await fetch(`${url}/v1/store/orders`, { headers: auth('test-pro') })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual([{ id: 1 }])
  })

  it('answers a throwing user handler with a JSON 500 internal_error without the stack', async () => {
    const { url } = await startServer({ userHandlers })
    const body = await expectError(await fetch(`${url}/v1/boom`), 500, 'internal_error')
    expect(body.message).not.toMatch(/\bat \S+:\d+/)
    expect(JSON.stringify(body)).not.toContain('Error: x')
  })

  it('ends the socket for HttpResponse.error()', async () => {
    const { url } = await startServer({ userHandlers })
    await expect(fetch(`${url}/v1/reset-me`)).rejects.toThrow(TypeError)
  })

  it('keeps serving after ending a socket for HttpResponse.error()', async () => {
    const { url } = await startServer({ userHandlers })
    await fetch(`${url}/v1/reset-me`).catch(() => undefined)
    expect((await listPets(url)).status).toBe(200)
    expect((await fetch(`${url}/v1/store/orders`)).status).toBe(200)
  })

  it('passes the requests no user handler takes to the built-in API', async () => {
    const { url } = await startServer({ userHandlers })
    expect(await ids(await listPets(url))).toHaveLength(50)
    expect((await postPet(url, { name: 'Rex', categoryId: 1 })).status).toBe(201)
    await expectError(await fetch(`${url}/v1/store/orders`, { method: 'POST', headers: auth('test-pro') }), 405, 'method_not_allowed')
  })
})

/**
 * A client that keeps its connection open until the server ends it (fetch's pool closes an idle one after 4 s by
 * itself): sends `GET /v1/pets?limit=1`; `answered` resolves with the status once the whole answer is in, `ended`
 * when the server has closed the connection.
 */
function keepAliveClient(url: string): { answered: Promise<number>; ended: Promise<void> } {
  const { hostname, port } = new URL(url)
  const socket = connect(Number(port), hostname)
  keptAlive.add(socket)
  let received = ''
  const answered = new Promise<number>((done, fail) => {
    socket.setEncoding('latin1').on('data', (chunk: string) => {
      received += chunk
      const head = received.indexOf('\r\n\r\n')
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(received.slice(0, head))?.[1])
      if (head !== -1 && received.length - head - 4 >= length) done(Number(received.slice(9, 12)))
    })
    socket.once('error', fail)
  })
  const ended = new Promise<void>((done) => socket.once('close', () => done()))
  socket.write(`GET /v1/pets?limit=1 HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer test-pro\r\n\r\n`)
  return { answered, ended }
}

/** `promise`, or a failure naming `what` after 30 s: a ceiling for a busy machine, far past any wait but a hang. */
const unlessHung = <T>(promise: Promise<T>, what: string): Promise<T> =>
  Promise.race([promise, sleep(30_000).then(() => Promise.reject(new Error(`${what} still pending after 30 s`)))])

describe('latency, logs and shutdown', () => {
  it('delays each API response by a fixed latency', async () => {
    const { server, url } = await startServer({ latency: 150 })
    for (let i = 0; i < 2; i++) {
      // A timer of the same 150 ms, started as the request reaches the server and so before the server starts its own:
      // timers of one length fire in the order they were started, on any machine, so it has fired by the answer.
      let waited = false
      server.server.prependOnceListener('request', () => {
        setTimeout(() => {
          waited = true
        }, 150)
      })
      expect((await listPets(url)).status).toBe(200)
      expect(waited, 'answered before 150 ms had passed on the server').toBe(true)
    }
  })

  it('writes one JSON log line per request, naming its method, path, status, plan', async () => {
    const lines: string[] = []
    const { url } = await startServer({ log: 'json', write: (line) => lines.push(line) })
    await listPets(url)
    await postPet(url, { name: 'Rex', categoryId: 1 })
    await fetch(`${url}/v1/pets`, { headers: auth('not-a-key') })
    expect(lines).toHaveLength(3)
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(entries[0]).toMatchObject({ method: 'GET', path: '/v1/pets?limit=100', status: 200, plan: 'pro', ms: expect.any(Number) })
    expect(entries[1]).toMatchObject({ method: 'POST', path: '/v1/pets', status: 201, plan: 'pro' })
    expect(entries[2]).toMatchObject({ method: 'GET', path: '/v1/pets', status: 401 })
    // The rule behind each answer (docs/explain.md): a key that is none of the world's is auth.unknown-key.
    expect(entries.map((entry) => entry.rule)).toEqual(['ok', 'ok', 'auth.unknown-key'])
  })

  it('never writes the Authorization value to the log', async () => {
    const lines: string[] = []
    const { url } = await startServer({ log: 'json', write: (line) => lines.push(line) })
    await listPets(url, {}, 'test-enterprise')
    await fetch(`${url}/v1/pets`, { headers: auth('sk_live_do-not-log-me') })
    await fetch(`${url}/__mock/health`, { headers: auth('admin-secret-value') })
    expect(lines.length).toBeGreaterThanOrEqual(3)
    const log = lines.join('\n')
    for (const secret of ['test-enterprise', 'sk_live_do-not-log-me', 'admin-secret-value']) expect(log).not.toContain(secret)
  })

  it('never writes a secret sent in a query string by mistake (?token=, ?api_key=), and keeps the other values', async () => {
    for (const log of ['json', 'pretty'] as const) {
      const lines: string[] = []
      const { url } = await startServer({ log, adminToken: 'admin-secret-value', write: (line) => lines.push(line) })
      await fetch(`${url}/__mock/clock?token=admin-secret-value`)
      await fetch(`${url}/v1/pets?limit=2&api_key=sk_live_do-not-log-me`)
      expect(lines).toHaveLength(2)
      const text = lines.join('\n')
      for (const secret of ['admin-secret-value', 'sk_live_do-not-log-me']) expect(text, log).not.toContain(secret)
      expect(text, log).toContain('/v1/pets?limit=2&api_key=…')
    }
  })

  it('writes pretty log lines without the Authorization value', async () => {
    const lines: string[] = []
    const { url } = await startServer({ log: 'pretty', write: (line) => lines.push(line) })
    await listPets(url, {}, 'test-business')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^GET \/v1\/pets\?limit=100 200 business [\d.]+ms/)
    expect(lines[0]).not.toContain('test-business')
    await fetch(`${url}/v1/pets/999999`, { headers: auth('test-business') })
    expect(lines[1]).toMatch(/^GET \/v1\/pets\/999999 404 business [\d.]+ms data\.pet-not-found$/)
  })

  it('finishes an in-flight request when closed, then refuses new connections', async () => {
    const { server, url } = await startServer({ latency: 400 })
    const arrived = new Promise<void>((done) => server.server.once('request', () => done()))
    const inFlight = listPets(url)
    await arrived
    const closed = server.close()
    const response = await inFlight
    expect(response.status).toBe(200)
    expect(await ids(response)).toHaveLength(50)
    await closed
    await expect(fetch(`${url}/v1/pets`, { headers: auth('test-pro') })).rejects.toThrow(TypeError)
  })

  it('resolves close() once the in-flight request is answered, though its client keeps the connection alive', async () => {
    const { server, url } = await startServer({ latency: 200 })
    // Only the server's shutdown can end the connection: its keep-alive timeout is off, and the client never hangs up.
    server.server.keepAliveTimeout = 0
    const arrived = new Promise<void>((done) => server.server.once('request', () => done()))
    const client = keepAliveClient(url)
    await arrived
    const closed = server.close()
    expect(await client.answered).toBe(200)
    await unlessHung(closed, 'close()')
    await unlessHung(client.ended, "the client's connection")
  })

  it('closes without waiting for idle keep-alive connections to end', async () => {
    const { server, url } = await startServer()
    server.server.keepAliveTimeout = 0
    const client = keepAliveClient(url)
    expect(await client.answered).toBe(200)
    await unlessHung(server.close(), 'close()')
    await unlessHung(client.ended, "the client's connection")
  })
})
