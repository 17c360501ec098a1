/**
 * Target 3 (issue #8): a request through msw's setupServer costs at most 1.3x a bare msw handler
 * returning a fixed JSON body, and petStore.fetch (no interception) is at least 2x faster than
 * going through setupServer. Target 4 (first half): createPetStore() with 50 pets under 5 ms.
 */
import { HttpResponse, http } from 'msw'
import { setupServer } from 'msw/node'
import { createPetStore } from '../src/index.js'
import { median, quick, table, verdict } from './lib.js'

const N = quick ? 2_000 : 10_000
const ROUNDS = quick ? 3 : 7
const URL_LIST = 'https://api.petstore.test/v1/pets?limit=20'
const init = { headers: { authorization: 'Bearer bench-key' } }
const keys = [{ key: 'bench-key', plan: 'enterprise' as const, limits: { perMinute: 1e12, perDay: 1e15 } }]

/** µs per request of `send`, over N sequential requests. */
async function timeRound(send: () => Promise<Response>): Promise<number> {
  const started = performance.now()
  for (let i = 0; i < N; i++) await (await send()).text()
  return ((performance.now() - started) * 1000) / N
}

export async function benchInProcess(): Promise<{ lines: string[]; ok: boolean }> {
  console.log(`\n# In-process (${N.toLocaleString('en-US')} sequential requests x ${ROUNDS} rounds, medians)`)
  const petStore = createPetStore({ keys })
  const fixed = await (await petStore.fetch(URL_LIST, init)).json()

  // The three paths take turns, round after round, so JIT warm-up and machine load fall on all alike.
  const bareServer = setupServer(http.get('https://api.petstore.test/v1/pets', () => HttpResponse.json(fixed)))
  const server = setupServer(...petStore.handlers)
  const paths = {
    bare: async () => {
      bareServer.listen()
      try {
        return await timeRound(() => fetch(URL_LIST, init))
      } finally {
        bareServer.close()
      }
    },
    viaMsw: async () => {
      server.listen()
      try {
        return await timeRound(() => fetch(URL_LIST, init))
      } finally {
        server.close()
      }
    },
    direct: () => timeRound(() => petStore.fetch(URL_LIST, init)),
  }
  const samples: Record<keyof typeof paths, number[]> = { bare: [], viaMsw: [], direct: [] }
  for (let r = 0; r < ROUNDS + 1; r++) {
    for (const [name, run] of Object.entries(paths) as [keyof typeof paths, () => Promise<number>][]) {
      const value = await run()
      if (r > 0) samples[name].push(value) // round 0 warms up
    }
  }
  const bare = median(samples.bare)
  const viaMsw = median(samples.viaMsw)
  const direct = median(samples.direct)

  const creates: number[] = []
  for (let i = 0; i < (quick ? 50 : 200); i++) {
    const started = performance.now()
    const store = createPetStore()
    await store.ready()
    creates.push(performance.now() - started)
  }
  const create = median(creates)

  const mswOk = viaMsw / bare <= 1.3
  const fetchOk = viaMsw / direct >= 2
  const createOk = create < 5
  const lines = [
    table('Target 3: in-process cost per GET /v1/pets?limit=20', [
      ['path', 'µs/request', 'ratio', 'target'],
      ['bare msw handler, fixed JSON (baseline)', bare, 1, ''],
      ['petStore.handlers via setupServer', viaMsw, viaMsw / bare, `<= 1.3x baseline: ${verdict(mswOk)}`],
      ['petStore.fetch, no interception', direct, viaMsw / direct, `>= 2x faster than setupServer: ${verdict(fetchOk)}`],
    ]),
    table('Target 4a: a fresh world per test', [
      ['measure', 'ms (median)', 'target'],
      ['createPetStore() with 50 pets, until ready()', create, `< 5 ms: ${verdict(createOk)}`],
    ]),
  ]
  return { lines, ok: mswOk && fetchOk && createOk }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchInProcess()
