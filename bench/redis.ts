/**
 * Issue #17's figures: what `--redis` costs and gives. Throughput (wrk -t1 -c10 per server, 10,000 pets, the bench
 * key, rate limiting and the journal on) of the embedded world, of one process with Redis, and of two processes on
 * one Redis (two wrk at once, one per replica: their sum), beside WireMock and Prism as in the http bench. Writes the
 * table and `docs/images/throughput.svg`, a bar chart of every server per operation.
 *
 * On this 2-core machine the servers share core 0 with redis-server and the load runs on core 1: the shared world is
 * bound by its round trips to Redis (one script for the quota, one for the operation) and by that one core.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { measure, ops, ours, prism, type Target, wiremock } from './http.js'
import { BENCH_KEY, median, quick, ROOT, SERVER_CORE, startMock, table, waitFor, wrk } from './lib.js'

const PETS = 10_000
const SECONDS = quick ? 3 : 8
const ROUNDS = quick ? 1 : 3
const auth = { Authorization: `Bearer ${BENCH_KEY}` }
type Results = Record<string, { rps: number; p99: number }>

/** A private redis-server on the server core, saving nothing. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'taskset',
    ['-c', SERVER_CORE, 'redis-server', '--port', String(port), '--save', '', '--appendonly', 'no', '--bind', '127.0.0.1'],
    {
      stdio: 'ignore',
    },
  )
  await new Promise((resolve) => setTimeout(resolve, 300))
  return child
}

function withRedis(port: number, redisPort: number, name: string): Target {
  return {
    name,
    base: `http://127.0.0.1:${port}`,
    async start() {
      const proc = startMock(port, ['--pets', String(PETS), '--redis', `redis://127.0.0.1:${redisPort}`])
      await waitFor(`http://127.0.0.1:${port}/v1/pets?limit=1`, { headers: auth })
      return proc.stop
    },
  }
}

/** Two replicas on one Redis, each loaded by its own wrk at the same time: the sum of their throughputs. */
async function measurePair(a: Target, b: Target): Promise<Results> {
  process.stdout.write('  two replicas on one Redis…\n')
  const stops = [await a.start(), await b.start()]
  const results: Results = {}
  try {
    for (const op of ops) {
      const options = { headers: auth, ...('script' in op ? { script: op.script } : {}) }
      const sums: number[] = []
      const p99s: number[] = []
      for (let round = 0; round < ROUNDS; round++) {
        const [ra, rb] = await Promise.all([wrk(`${a.base}${op.path}`, SECONDS, options), wrk(`${b.base}${op.path}`, SECONDS, options)])
        if (ra.errors + rb.errors > 0) throw new Error(`[bench] two replicas ${op.name}: ${ra.errors + rb.errors} errors`)
        sums.push(ra.rps + rb.rps)
        p99s.push(Math.max(ra.p99, rb.p99))
      }
      results[op.name] = { rps: median(sums), p99: median(p99s) }
    }
  } finally {
    for (const stop of stops) await stop()
  }
  return results
}

/** A grouped bar chart: one group per operation, one bar per server, labelled with its req/s. */
export function barChart(title: string, servers: readonly { name: string; results: Results }[]): string {
  const colours = ['#1a5fb4', '#26a269', '#63452c', '#c64600', '#613583', '#5e5c64']
  const groupWidth = 60 + servers.length * 46
  const width = 80 + ops.length * groupWidth
  const height = 420
  const top = Math.max(...servers.flatMap(({ results }) => Object.values(results).map((r) => r.rps)))
  const scale = (rps: number) => (rps / top) * 260
  const bars = ops.flatMap((op, g) =>
    servers.map(({ results }, i) => {
      const rps = results[op.name]?.rps ?? 0
      const x = 70 + g * groupWidth + i * 46
      const h = scale(rps)
      return `<rect x="${x}" y="${320 - h}" width="38" height="${h}" fill="${colours[i % colours.length]}"/><text x="${x + 19}" y="${314 - h}" font-size="10" text-anchor="middle">${Math.round(rps / 100) / 10}k</text>`
    }),
  )
  const labels = ops.map(
    (op, g) =>
      `<text x="${70 + g * groupWidth + (servers.length * 46) / 2}" y="340" font-size="12" text-anchor="middle">${op.name.replace('{', '&#123;').replace('}', '&#125;')}</text>`,
  )
  const legend = servers.map(
    ({ name }, i) =>
      `<rect x="${70 + (i % 3) * 260}" y="${360 + Math.floor(i / 3) * 20}" width="12" height="12" fill="${colours[i % colours.length]}"/><text x="${88 + (i % 3) * 260}" y="${370 + Math.floor(i / 3) * 20}" font-size="12">${name}</text>`,
  )
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" role="img" aria-label="${title}">
<title>${title}</title>
<rect width="100%" height="100%" fill="#fff"/>
<text x="20" y="28" font-size="15" font-weight="600">${title}</text>
<line x1="60" y1="320" x2="${width - 20}" y2="320" stroke="#999"/>
<text x="20" y="${height - 8}" font-size="10" fill="#555">requests per second (higher is better); wrk -t1 -c10 per server, one core for the servers and Redis, one for the load</text>
${[...bars, ...labels, ...legend].join('\n')}
</svg>
`
}

export async function benchRedis(): Promise<{ lines: string[]; ok: boolean }> {
  console.log(
    `\n# Several servers, one world (issue #17: ${PETS.toLocaleString('en-US')} pets, wrk -t1 -c10, ${SECONDS} s x ${ROUNDS} rounds, medians)`,
  )
  const redisPorts = [6390, 6391]
  const embedded = await measure(ours(4410))
  const one = await startRedis(redisPorts[0] as number)
  let single: Results
  try {
    single = await measure(withRedis(4411, redisPorts[0] as number, 'petstore-mock, one process with Redis'))
  } finally {
    one.kill('SIGKILL')
  }
  const two = await startRedis(redisPorts[1] as number)
  let pair: Results
  try {
    pair = await measurePair(withRedis(4412, redisPorts[1] as number, 'A'), withRedis(4413, redisPorts[1] as number, 'B'))
  } finally {
    two.kill('SIGKILL')
  }
  const reference = ours(4414)
  const stopReference = await reference.start()
  const wm = await wiremock(4415, reference.base)
  await stopReference()
  const wiremockResults = await measure(wm)
  const prismResults = await measure(prism(4416))
  const servers = [
    { name: 'petstore-mock (embedded world)', results: embedded },
    { name: 'petstore-mock --redis, 1 process', results: single },
    { name: 'petstore-mock --redis, 2 processes', results: pair },
    { name: 'WireMock 3.13 (warmed)', results: wiremockResults },
    { name: 'Prism 5.14 mock', results: prismResults },
  ]
  const rows: (string | number)[][] = [['operation', ...servers.map((s) => s.name), '1 process with Redis x embedded', '2 processes x 1']]
  for (const op of ops) {
    const rps = servers.map((s) => s.results[op.name]?.rps ?? Number.NaN)
    rows.push([op.name, ...rps, (rps[1] as number) / (rps[0] as number), (rps[2] as number) / (rps[1] as number)])
  }
  const svg = join(ROOT, 'docs/images/throughput.svg')
  writeFileSync(svg, barChart('petstore-mock with and without Redis, beside its peers', servers))
  console.log(`  chart written to ${svg}`)
  return { lines: [table('Throughput, req/s (medians of rounds)', rows)], ok: true }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchRedis()
