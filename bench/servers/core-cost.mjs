// The core's cost of one request in-process, no HTTP (issue #18): `world.handle` and `markDelivered` of a checkout's
// built world, with the journal on (the default) and the bench's enterprise key. Prints one JSON line of µs per
// request for list, get and create, the median of 5 passes.
//   node bench/servers/core-cost.mjs <checkout> [passes of N requests]
const [checkout = '.', requests = '200000'] = process.argv.slice(2)
const { createWorld } = await import(
  new URL(`${checkout.replace(/\/?$/, '/')}dist/src/world/create-world.js`, `file://${process.cwd()}/`).href
)
const N = Number(requests)
const world = createWorld({
  seed: 1,
  pets: 10_000,
  keys: [{ key: 'bench-key', plan: 'enterprise', limits: { perMinute: 1e12, perDay: 1e15 } }],
})
const headers = { host: '127.0.0.1:4310', authorization: 'Bearer bench-key' }
const requestOf = {
  list: () => ({ method: 'GET', path: '/v1/pets', query: 'limit=20', headers, body: undefined }),
  get: () => ({ method: 'GET', path: '/v1/pets/5000', query: '', headers, body: undefined }),
  create: () => ({
    method: 'POST',
    path: '/v1/pets',
    query: '',
    headers: { ...headers, 'content-type': 'application/json' },
    body: '{"name":"Rex","categoryId":3,"status":"available"}',
  }),
}
const expected = { list: 200, get: 200, create: 201 }
const result = {}
for (const [op, make] of Object.entries(requestOf)) {
  // Creates grow the store: fewer of them, so every checkout ends at about the same size.
  const n = op === 'create' ? Math.ceil(N / 4) : N
  const first = world.handle(make())
  if (first instanceof Promise || first.status !== expected[op]) throw new Error(`${op}: ${first.status ?? 'a promise'}`)
  const passes = []
  for (let pass = 0; pass < 5; pass++) {
    const started = performance.now()
    for (let i = 0; i < n; i++) world.markDelivered(world.handle(make()))
    passes.push(((performance.now() - started) * 1000) / n)
  }
  passes.sort((a, b) => a - b)
  result[op] = passes[2]
}
console.log(JSON.stringify(result))
