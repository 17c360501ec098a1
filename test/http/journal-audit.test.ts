/** The journal and the retry audit over HTTP (docs/spec-decisions.md rows 41-44). */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createPetStoreServer, type PetStoreServer } from '../../src/server/http-server.js'

let server: PetStoreServer
let url = ''
const session = (name: string) => ({ 'x-mock-session': name })

beforeAll(async () => {
  server = createPetStoreServer({
    port: 0,
    log: 'silent',
    keys: [
      { key: 'k', plan: 'pro', limits: { perMinute: 2 } },
      { key: 'test-pro', plan: 'pro' },
    ],
  })
  url = await server.listen()
})
afterAll(() => server.close())

const call = (path: string, headers: Record<string, string>, init: RequestInit = {}) =>
  fetch(`${url}${path}`, { ...init, headers: { ...headers, ...(init.headers as object) } })

/** A list, a missing pet and a create with an int64 category, in the session `name`; returns its headers. */
async function threeCalls(name: string): Promise<Record<string, string>> {
  const s = session(name)
  await call('/v1/pets', { ...s, authorization: 'Bearer test-pro' })
  await call('/v1/pets/999', { ...s, authorization: 'Bearer test-pro' })
  await call(
    '/v1/pets',
    { ...s, authorization: 'Bearer test-pro', 'content-type': 'application/json' },
    { method: 'POST', body: '{"name":"Big","categoryId":9223372036854775807}' },
  )
  return s
}

it('lists the journal newest last, without the key', async () => {
  const s = await threeCalls('journal-list')
  const all = (await (await call('/__mock/requests', s)).json()) as { path: string; status: number; key: string }[]
  expect(all.map((entry) => [entry.path, entry.status])).toEqual([
    ['/v1/pets', 200],
    ['/v1/pets/999', 404],
    ['/v1/pets', 201],
  ])
  expect(JSON.stringify(all)).not.toContain('test-pro')
})

it('lists the journal with filters', async () => {
  const s = await threeCalls('journal-filters')
  const created = await (await call('/__mock/requests?method=POST&status=201', s)).text()
  expect(created).toContain('"categoryId":9223372036854775807')
  expect(await (await call('/__mock/requests?status=404', s)).json()).toHaveLength(1)
})

it('lists the journal per session', async () => {
  await threeCalls('journal-sessions')
  expect(await (await call('/__mock/requests', session('other'))).json()).toEqual([])
})

it('clears the journal of a session on DELETE', async () => {
  const s = await threeCalls('journal-clear')
  expect((await call('/__mock/requests', s, { method: 'DELETE' })).status).toBe(204)
  expect(await (await call('/__mock/requests', s)).json()).toEqual([])
})

it('answers a bad journal filter with 400', async () => {
  const response = await call('/__mock/requests?status=abc', session('journal'))
  expect(response.status).toBe(400)
  expect(await response.json()).toMatchObject({ code: 'invalid_admin_request' })
})

it('reports a client that retried before Retry-After in GET /__mock/audit', async () => {
  const s = session('audit-bad')
  for (let i = 0; i < 4; i++) await call('/v1/pets', { ...s, authorization: 'Bearer k' })
  const report = (await (await call('/__mock/audit', s)).json()) as {
    ok: boolean
    keys: { violations: unknown[]; rateLimited: unknown[] }[]
  }
  expect(report.ok).toBe(false)
  expect(report.keys[0]?.rateLimited).toHaveLength(2)
  expect(report.keys[0]?.violations).toHaveLength(1)
})

it('reports a well-behaved client as ok in GET /__mock/audit', async () => {
  const s = session('audit-good')
  await call('/__mock/clock', s, { method: 'POST', body: '{"set":"2026-06-01T12:00:00Z"}' })
  for (let i = 0; i < 3; i++) await call('/v1/pets', { ...s, authorization: 'Bearer k' })
  await call('/__mock/clock', s, { method: 'POST', body: '{"advanceSeconds":60}' })
  expect((await call('/v1/pets', { ...s, authorization: 'Bearer k' })).status).toBe(200)
  expect(await (await call('/__mock/audit', s)).json()).toMatchObject({ ok: true, problems: [] })
})
