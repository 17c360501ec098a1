/**
 * Target 2 (issue #8): list, get and create cost the same at 100,000 pets as at 100 (within 1.5x):
 * indexes by id and status, early stop at `limit`, no full scans. Measured on the core
 * (`world.handle`), where the store's cost shows without host noise. The two sizes take turns,
 * round after round, in one process, so JIT state and heap size fall on both alike; creates run
 * on fresh worlds each round, so "at 100 pets" stays true.
 *
 * Two storages: the server's worlds (indexes only: the target), and `createPetStore`, whose pets
 * are also in an @msw/data collection (for information).
 */
import type { ApiRequest } from '../src/index.js'
import { createPetStore } from '../src/index.js'
import { createWorld, type World } from '../src/world/create-world.js'
import { median, quick, table, verdict } from './lib.js'

const READS = quick ? 20_000 : 100_000
const CREATES = quick ? 2_000 : 5_000
const ROUNDS = quick ? 3 : 7
const keys = [{ key: 'bench-key', plan: 'enterprise' as const, limits: { perMinute: 1e12, perDay: 1e15 } }]
const headers = { authorization: 'Bearer bench-key', 'content-type': 'application/json' }
const STORAGES = { indexes: 'server world (indexes only)', collection: 'createPetStore (+ @msw/data collection)' } as const
type Storage = keyof typeof STORAGES
const SIZES = [100, 100_000] as const

const reads = (size: number): Record<string, ApiRequest> => ({
  'list limit=20': { method: 'GET', path: '/v1/pets', query: 'limit=20', headers, body: undefined },
  'list status=sold limit=20': { method: 'GET', path: '/v1/pets', query: 'status=sold&limit=20', headers, body: undefined },
  'get by id': { method: 'GET', path: `/v1/pets/${Math.ceil(size / 2)}`, query: '', headers, body: undefined },
})
const create: ApiRequest = { method: 'POST', path: '/v1/pets', query: '', headers, body: '{"name":"Rex","categoryId":3,"status":"sold"}' }

async function makeWorld(storage: Storage, size: number): Promise<World> {
  const world = storage === 'indexes' ? createWorld({ pets: size, keys }) : createPetStore({ pets: size, keys })
  await world.ready()
  return world
}

/** µs per request of `count` requests. */
async function time(world: World, request: ApiRequest, count: number): Promise<number> {
  const started = performance.now()
  for (let i = 0; i < count; i++) {
    const result = world.handle(request)
    world.markDelivered(result instanceof Promise ? await result : result)
  }
  return ((performance.now() - started) * 1000) / count
}

async function compare(storage: Storage, name: string): Promise<[number, number]> {
  const samples: [number[], number[]] = [[], []]
  const worlds = name === 'create' ? undefined : await Promise.all(SIZES.map((size) => makeWorld(storage, size)))
  for (let round = 0; round <= ROUNDS; round++) {
    for (const [i, size] of SIZES.entries()) {
      const world = worlds?.[i] ?? (await makeWorld(storage, size))
      const value = await time(world, name === 'create' ? create : (reads(size)[name] as ApiRequest), name === 'create' ? CREATES : READS)
      if (round > 0) samples[i]?.push(value) // round 0 warms up
    }
  }
  return [median(samples[0]), median(samples[1])]
}

export async function benchFlatCost(): Promise<{ lines: string[]; ok: boolean }> {
  console.log(
    `\n# Flat cost (core, ${READS.toLocaleString('en-US')} reads or ${CREATES.toLocaleString('en-US')} creates x ${ROUNDS} rounds, medians)`,
  )
  const rows: (string | number)[][] = [['storage', 'operation', 'µs at 100 pets', 'µs at 100,000 pets', 'ratio (<= 1.5)', 'target']]
  let ok = true
  for (const storage of Object.keys(STORAGES) as Storage[]) {
    for (const name of [...Object.keys(reads(0)), 'create']) {
      const [small, large] = await compare(storage, name)
      const met = large / small <= 1.5
      if (storage === 'indexes') ok &&= met
      rows.push([STORAGES[storage], name, small, large, large / small, storage === 'indexes' ? verdict(met) : '(information)'])
    }
  }
  return { lines: [table('Target 2: cost at 100 and 100,000 pets', rows)], ok }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchFlatCost()
