/**
 * Target 2 (issue #8): list, get and create cost the same at 100,000 pets as at 100 (within 1.5x):
 * indexes by id and status, early stop at `limit`, no full scans. Measured on the core
 * (`petStore.handle`), where the store's cost shows without host noise.
 */

import type { ApiRequest } from '../src/index.js'
import { createPetStore } from '../src/index.js'
import { median, quick, table, verdict } from './lib.js'

const N = quick ? 5_000 : 20_000
const ROUNDS = quick ? 3 : 7
const keys = [{ key: 'bench-key', plan: 'enterprise' as const, limits: { perMinute: 1e12, perDay: 1e15 } }]
const headers = { authorization: 'Bearer bench-key', 'content-type': 'application/json' }

const operations = (size: number): Record<string, () => ApiRequest> => ({
  'list limit=20': () => ({ method: 'GET', path: '/v1/pets', query: 'limit=20', headers, body: undefined }),
  'list status=sold limit=20': () => ({ method: 'GET', path: '/v1/pets', query: 'status=sold&limit=20', headers, body: undefined }),
  'get by id': () => ({ method: 'GET', path: `/v1/pets/${Math.ceil(size / 2)}`, query: '', headers, body: undefined }),
  create: () => ({ method: 'POST', path: '/v1/pets', query: '', headers, body: '{"name":"Rex","categoryId":3,"status":"sold"}' }),
})

async function cost(size: number, name: string): Promise<number> {
  const petStore = createPetStore({ pets: size, keys, journalLimit: 1000 })
  await petStore.ready()
  const make = operations(size)[name] as () => ApiRequest
  const request = make()
  const samples: number[] = []
  for (let r = 0; r < ROUNDS + 1; r++) {
    const started = performance.now()
    for (let i = 0; i < N; i++) {
      const result = petStore.handle(request)
      if (result instanceof Promise) await result
    }
    if (r > 0) samples.push(((performance.now() - started) * 1000) / N)
  }
  return median(samples)
}

export async function benchFlatCost(): Promise<{ lines: string[]; ok: boolean }> {
  console.log(`\n# Flat cost (core, ${N.toLocaleString('en-US')} requests x ${ROUNDS} rounds, medians)`)
  const rows: (string | number)[][] = [['operation', 'µs at 100 pets', 'µs at 100,000 pets', 'ratio (<= 1.5)', 'target']]
  let ok = true
  for (const name of Object.keys(operations(0))) {
    const small = await cost(100, name)
    const large = await cost(100_000, name)
    const met = large / small <= 1.5
    ok &&= met
    rows.push([name, small, large, large / small, verdict(met)])
  }
  return { lines: [table('Target 2: cost at 100 and 100,000 pets', rows)], ok }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchFlatCost()
