/**
 * The one admin interface (src/admin/operations.ts): each declared operation has both implementations, an express
 * route, and a use on every surface it names (the MCP tools, the control panel); no route or surface offers an
 * operation the declaration lacks. Then every operation of the HTTP implementation is sent to a live server, so each
 * declared route, method and body is one the server answers.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHttpAdmin } from '../../src/admin/http-admin.js'
import { ADMIN_OPERATIONS, adminFailure, type OperationName } from '../../src/admin/operations.js'
import { createGate, createWorldAdmin } from '../../src/admin/world-admin.js'
import { createPetStore } from '../../src/create-pet-store.js'
import { PANEL_OPERATIONS } from '../../src/panel/operations.js'
import { stringifySnapshot } from '../../src/snapshot.js'
import { createWorld } from '../../src/world/create-world.js'
import { closeServers, ROOT, startServer } from './support.js'

const DECLARED = Object.keys(ADMIN_OPERATIONS).sort()
const offeredOn = (surface: 'mcp' | 'panel') =>
  DECLARED.filter((name) => (ADMIN_OPERATIONS[name as OperationName].surfaces as readonly string[]).includes(surface))
const sourceOf = (folder: string) =>
  readdirSync(join(ROOT, 'src', folder))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .map((file) => readFileSync(join(ROOT, 'src', folder, file), 'utf8'))
    .join('\n')

/** Admin routes that are not operations of the interface: streams and documents of their own, each with its reason. */
const NOT_OPERATIONS = new Map([
  ['GET /__mock/events', 'a live event stream, not a call with an answer (the panel subscribes to it)'],
  ['GET /__mock/metrics', 'Prometheus text for a scraper, of the whole server'],
  ['POST /__mock/mcp', 'the MCP surface itself'],
  ['ALL /__mock/mcp', 'the MCP surface itself'],
  ['GET /__mock/ui', "the control panel's page"],
  ['GET /__mock/ui/', "the control panel's page"],
  ['GET /__mock/ui/:folder/:file', "the control panel's scripts"],
])

describe('the admin interface, declared once', () => {
  it('has exactly the declared operations in both implementations', () => {
    const world = createPetStore({ seed: 1 })
    const overWorld = createWorldAdmin({
      world: () => world,
      onChange: () => true,
      openapi: () => ({}),
      sessions: () => ['default'],
      health: () => ({ status: 'ok', basePath: '/v1' }),
      har: () => ({ origin: 'http://127.0.0.1', version: 'test' }),
    })
    const { statePieces, ...operations } = overWorld
    expect(typeof statePieces).toBe('function')
    expect(Object.keys(operations).sort()).toEqual(DECLARED)
    expect(Object.keys(createHttpAdmin({ url: 'http://127.0.0.1:9' })).sort()).toEqual(DECLARED)
  })

  it('has an express route for every operation, and no admin route that is not one or a listed surface', () => {
    const routes = new Set<string>()
    for (const match of sourceOf('server/admin').matchAll(/\bapp\.(get|post|put|delete|all)\(\s*(\[[^\]]*\]|'[^']*')/g)) {
      for (const path of (match[2] as string).match(/'[^']*'/g) ?? [])
        routes.add(`${(match[1] as string).toUpperCase()} ${path.slice(1, -1)}`)
    }
    const declaredRoutes = new Set(Object.values(ADMIN_OPERATIONS).map(({ method, path }) => `${method} ${path}`))
    expect([...declaredRoutes].filter((route) => !routes.has(route))).toEqual([])
    expect([...routes].filter((route) => !declaredRoutes.has(route) && !NOT_OPERATIONS.has(route))).toEqual([])
  })

  it('offers on MCP exactly the operations declared for it', () => {
    const used = new Set([...sourceOf('mcp').matchAll(/\badmin\.(\w+)\(/g)].map((match) => match[1] as string))
    expect([...used].sort()).toEqual(offeredOn('mcp'))
  })

  it('offers in the control panel exactly the operations declared for it', () => {
    // `sessions` is the server's list; the panel in a page has one world and leaves it out (src/panel/types.ts).
    expect([...PANEL_OPERATIONS, 'sessions'].sort()).toEqual(offeredOn('panel'))
  })

  it('writes down the bound of every operation', () => {
    for (const name of DECLARED) expect(ADMIN_OPERATIONS[name as OperationName].bound.length, name).toBeGreaterThan(10)
  })
})

describe('the HTTP implementation against a live server', () => {
  let url = ''
  beforeAll(async () => {
    ;({ url } = await startServer({ pets: 3 }))
  })
  afterAll(closeServers)

  it('sends every operation to a route the server answers', async () => {
    const admin = createHttpAdmin({ url, session: 'walk' })
    const keys = await admin.keys()
    const key = keys[0]?.key as string
    expect(key).toBeTruthy()
    const calls: Record<OperationName, () => Promise<unknown>> = {
      health: () => admin.health(),
      sessions: () => admin.sessions(),
      openapi: () => admin.openapi(),
      keys: () => admin.keys(),
      setKey: () => admin.setKey(key, { minuteUsed: 'all' }),
      scenarios: () => admin.scenarios(),
      scenario: () => admin.scenario('default'),
      currentScenario: () => admin.currentScenario(),
      useScenario: () => admin.useScenario('default'),
      timeline: () => admin.timeline(),
      coverage: () => admin.coverage(),
      reset: () => admin.reset(),
      clock: () => admin.clock(),
      setClock: () => admin.setClock('2026-06-01T12:00:00Z'),
      advanceClock: () => admin.advanceClock(60),
      realTime: () => admin.realTime(),
      journal: () => admin.journal({ limit: 5 }),
      request: () => admin.request(1),
      clearJournal: () => admin.clearJournal(),
      har: () => admin.har(),
      audit: () => admin.audit(),
      exportState: () => admin.exportState(),
      importState: async () => admin.importState((await admin.exportState()) as string),
      addPets: () => admin.addPets({ count: 2, seed: 3 }),
    }
    expect(Object.keys(calls).sort()).toEqual(DECLARED)
    const failed: string[] = []
    for (const [name, call] of Object.entries(calls)) {
      await call().catch((error: unknown) => failed.push(`${name}: ${adminFailure(error)?.status} ${(error as Error).message}`))
    }
    expect(failed).toEqual([])
    expect((await admin.setClock('2026-06-01T12:00:00Z')).now).toBe('2026-06-01T12:00:00.000Z')
    const used = (await admin.setKey(key, { minuteUsed: 'all' })).find((one) => one.key === key)
    expect(used?.minuteRemaining).toBe(0)
  })

  it('adds pets under the next ids, each as the API then answers it (POST /__mock/pets)', async () => {
    const admin = createHttpAdmin({ url, session: 'add-pets' })
    const added = JSON.parse(await admin.addPets({ count: 3, status: 'pending', seed: 4 })) as { id: number; status: string }[]
    // The world started with 3 pets (ids 1-3): the new ones take the next ids, as POST /pets would.
    expect(added.map((pet) => pet.id)).toEqual([4, 5, 6])
    for (const pet of added) {
      const response = await fetch(`${url}/v1/pets/${pet.id}`, {
        headers: { authorization: 'Bearer test-free', 'x-mock-session': 'add-pets' },
      })
      expect(await response.json()).toEqual(pet)
      expect(pet.status).toBe('pending')
    }
    // The same seed names the same pets.
    const again = JSON.parse(await createHttpAdmin({ url, session: 'add-pets-2' }).addPets({ count: 3, status: 'pending', seed: 4 }))
    expect(again).toEqual(added)
  })

  it.each([
    [{ count: 0 }, '"count" must be a whole number from 1 to 1000'],
    [{ count: 1001 }, '"count" must be a whole number from 1 to 1000'],
    [{ count: 2.5 }, '"count" must be a whole number from 1 to 1000'],
    [{ count: 1, status: 'lost' }, '"status" must be one of available, pending, sold'],
    [{ count: 1, seed: -1 }, '"seed" must be a whole number'],
  ])('refuses POST /__mock/pets with %j: 400 naming the fix', async (body, message) => {
    const response = await fetch(`${url}/__mock/pets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ code: 'invalid_admin_request', status: 400, message: expect.stringContaining(message) })
  })

  it('rejects a refused call with the answer as its cause: the status and the code', async () => {
    const admin = createHttpAdmin({ url })
    const error = await admin.useScenario('no-such-scenario').catch((caught: unknown) => caught)
    expect(adminFailure(error)).toEqual({ status: 400, code: 'unknown_scenario' })
  })
})

describe('the bounds the world implementation keeps', () => {
  it('takes one state import at a time when its host gives a gate: another is refused 503, and goes once the first is done', async () => {
    const base = createWorld({ pets: 2 })
    const state = stringifySnapshot(base.snapshot())
    let finish = () => {}
    // The world's restore waits until the test lets it finish: the first import is under way meanwhile.
    const world = Object.create(base, {
      restore: { value: () => new Promise<void>((resolve) => (finish = resolve)) },
    }) as typeof base
    const parts = {
      world: () => world,
      onChange: () => true,
      openapi: () => ({}),
      sessions: () => [],
      health: () => ({ status: 'ok' as const, basePath: '/v1' }),
    }
    const admin = createWorldAdmin({ ...parts, har: () => ({ origin: '', version: '' }), imports: createGate(1) })
    const first = admin.importState(state)
    const second = await admin.importState(state).catch((error: unknown) => error)
    expect(adminFailure(second)).toEqual({ status: 503, code: 'too_many_admin_writes' })
    finish()
    await first
    finish = () => {}
    const third = admin.importState(state)
    finish()
    await expect(third).resolves.toBeUndefined()
  })
})
