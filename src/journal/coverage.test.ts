import { describe, expect, it } from 'vitest'
import '../vitest.js'
import { createWorld, type World } from '../world/create-world.js'

const NOON = '2026-06-01T12:00:00Z'

/** A request through the world's own fetch; `key` undefined sends no Authorization. */
function send(
  world: World,
  path: string,
  init: { key?: string | null; method?: string; body?: string; type?: string; scenario?: string } = {},
) {
  const headers: Record<string, string> = {}
  if (init.key !== null) headers['authorization'] = init.key ?? 'Bearer test-free'
  if (init.type) headers['content-type'] = init.type
  if (init.scenario) headers['x-mock-scenario'] = init.scenario
  return world.fetch(path, { method: init.method ?? 'GET', headers, ...(init.body === undefined ? {} : { body: init.body }) })
}

const JSON_TYPE = 'application/json'

/** Traffic that exercises every item: each documented answer of each operation, every rule the spec states. */
async function everything(world: World) {
  await send(world, '/v1/pets')
  await send(world, '/v1/pets', { key: null })
  await send(world, '/v1/pets', { key: 'Token test-free' })
  await send(world, '/v1/pets', { key: 'Bearer no-such-key-1234' })
  await send(world, '/v1/pets', { key: null, method: 'POST', type: JSON_TYPE, body: '{"name":"Rex","categoryId":1}' })
  await send(world, '/v1/pets/1', { key: null })
  await send(world, '/v1/pets?limit=0&status=zzz')
  await send(world, '/v1/pets', { method: 'POST', type: JSON_TYPE, body: '{"name":"Rex","categoryId":1}' })
  await send(world, '/v1/pets', { method: 'POST', type: JSON_TYPE, body: '{"name":1,"categoryId":"x","status":"zzz"}' })
  await send(world, '/v1/pets', { method: 'POST', type: JSON_TYPE })
  await send(world, '/v1/pets', { method: 'POST', type: JSON_TYPE, body: '{"name":' })
  await send(world, '/v1/pets', { method: 'POST', type: 'text/plain', body: 'Rex' })
  await send(world, '/v1/pets/1')
  await send(world, '/v1/pets/999999')
  await send(world, '/v1/pets/1', { scenario: 'after-sunset' })
  for (const path of ['/v1/pets', '/v1/pets/1']) await send(world, path, { scenario: 'rate-limited' })
  await send(world, '/v1/pets', { method: 'POST', type: JSON_TYPE, body: '{"name":"Rex","categoryId":1}', scenario: 'rate-limited' })
  await send(world, '/v1/pets', { scenario: 'daily-quota-exhausted' })
  await send(world, '/v1/pets', { scenario: 'key-banned' })
}

describe('spec coverage', () => {
  it('starts with nothing covered: 11 documented answers, 4 headers, 15 rules', () => {
    const coverage = createWorld({ clock: NOON }).coverage()
    expect([coverage.covered, coverage.total, coverage.ratio]).toEqual([0, 30, 0])
    expect(coverage.responses.map((item) => item.id)).toEqual([
      'listPets 200',
      'listPets 401',
      'listPets 429',
      'createPet 201',
      'createPet 400',
      'createPet 401',
      'createPet 429',
      'getPet 200',
      'getPet 401',
      'getPet 404',
      'getPet 429',
    ])
    expect(coverage.missing).toHaveLength(30)
  })

  it('counts each answer once for its operation and status, each header, and each rule it shows', async () => {
    const world = createWorld({ clock: NOON })
    await send(world, '/v1/pets?limit=0&status=zzz')
    await send(world, '/v1/pets', { method: 'POST', type: JSON_TYPE, body: '{}' })
    const coverage = world.coverage()
    const counted = (items: readonly { id: string; requests: number }[]) =>
      Object.fromEntries(items.filter((item) => item.requests > 0).map((item) => [item.id, item.requests]))
    // The 400 of GET /pets is not one the spec documents: no response item, but its two rules.
    expect(counted(coverage.responses)).toEqual({ 'createPet 400': 1 })
    expect(counted(coverage.rules)).toEqual({ 'list.limit': 1, 'list.status': 1, 'create.name': 1, 'create.categoryId': 1 })
    expect(counted(coverage.headers)).toEqual({ 'x-ratelimit-limit': 2, 'x-ratelimit-remaining': 2, 'x-ratelimit-reset': 2 })
  })

  it('covers everything after traffic that exercises every item, and toCoverSpec passes', async () => {
    const world = createWorld({ clock: NOON })
    await everything(world)
    const coverage = world.coverage()
    expect(coverage.missing).toEqual([])
    expect(coverage.ratio).toBe(1)
    expect(world).toCoverSpec()
  })

  it("tells the minute window's 429 from the day's by Retry-After, whatever the world's clock", async () => {
    const world = createWorld()
    await send(world, '/v1/pets', { scenario: 'daily-quota-exhausted' })
    const rules = world
      .coverage()
      .rules.filter((item) => item.requests > 0)
      .map((item) => item.id)
    expect(rules).toEqual(['rate.day-window'])
  })

  it('fails toCoverSpec below the threshold, naming what was never exercised', async () => {
    const world = createWorld({ clock: NOON })
    await send(world, '/v1/pets')
    expect(world).toCoverSpec(0.1)
    expect(() => expect(world).toCoverSpec(0.5)).toThrow(
      /^expected the traffic to cover 50% of the spec, it covered 13\.3% \(4 of 30\); never exercised: listPets 401, listPets 429, createPet 201, /,
    )
  })
})
