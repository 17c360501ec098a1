/**
 * This build of the standalone server against another checkout's build, measured round by round in one run
 * (A B, then B A, …), so the machine's drift falls on both alike: the before/after figures of a refactoring. Which
 * build goes first turns each round: on a shared machine the one measured first in every pair can be favoured or
 * penalised throughout (swap --this and --baseline to see it), and turning the order gives both builds each place.
 *
 *   git worktree add /tmp/before <commit> && (cd /tmp/before && npm ci && npm run build)
 *   npm run bench -- --only=builds --baseline=/tmp/before
 *
 * `--this=DIR` measures another checkout's build in place of this one.
 */
import { BENCH_KEY, median, quick, ROOT, startMock, table, waitFor, wrk } from './lib.js'

const PETS = 10_000
const SECONDS = quick ? 2 : 5
/** Even, so each build goes first in as many rounds as the other. */
const ROUNDS = quick ? 2 : 6
const auth = { Authorization: `Bearer ${BENCH_KEY}` }
const ops = [
  { name: 'GET /v1/pets?limit=20', path: '/v1/pets?limit=20' },
  { name: 'GET /v1/pets/{id}', path: '/v1/pets/5000' },
  { name: 'POST /v1/pets', path: '/v1/pets', script: `${ROOT}bench/servers/post.lua` },
] as const

export async function benchBuilds(): Promise<{ lines: string[]; ok: boolean }> {
  const baseline = process.argv.find((arg) => arg.startsWith('--baseline='))?.slice(11)
  const current = process.argv.find((arg) => arg.startsWith('--this='))?.slice(7) ?? ROOT
  if (!baseline) {
    console.log('\n# Builds: skipped (pass --baseline=DIR, a checkout with dist/ built, to compare this build with it)')
    return { lines: [], ok: true }
  }
  console.log(
    `\n# ${current} against ${baseline} (${PETS.toLocaleString('en-US')} pets, ${ROUNDS} rounds of ${SECONDS} s each, which goes first alternating)`,
  )
  const servers = [
    { name: 'this build', proc: startMock(4220, ['--pets', String(PETS)], current), port: 4220 },
    { name: 'baseline', proc: startMock(4221, ['--pets', String(PETS)], baseline), port: 4221 },
  ]
  const rows: (string | number)[][] = [
    [
      'operation',
      'this build req/s',
      'baseline req/s',
      'ratio (>= 0.95)',
      'p99 ms this / baseline',
      'server CPU µs/request this / baseline',
      'verdict',
    ],
  ]
  let ok = true
  try {
    for (const server of servers) await waitFor(`http://127.0.0.1:${server.port}/v1/pets?limit=1`, { headers: auth })
    for (const op of ops) {
      const options = { headers: auth, ...('script' in op ? { script: op.script } : {}) }
      const results = servers.map(() => ({ rps: [] as number[], p99: [] as number[], cpu: [] as number[], ratio: [] as number[] }))
      for (const server of servers) await wrk(`http://127.0.0.1:${server.port}${op.path}`, 1, options)
      for (let round = 0; round < ROUNDS; round++) {
        const pair: number[] = []
        for (const i of round % 2 === 0 ? [0, 1] : [1, 0]) {
          const server = servers[i] as (typeof servers)[0]
          const cpuBefore = server.proc.cpuMs()
          const r = await wrk(`http://127.0.0.1:${server.port}${op.path}`, SECONDS, options)
          // The server's own CPU per answer: what its code costs, where req/s also holds the load generator's share.
          results[i]?.cpu.push(((server.proc.cpuMs() - cpuBefore) * 1000) / Math.max(1, r.requests))
          results[i]?.rps.push(r.rps)
          results[i]?.p99.push(r.p99)
          pair[i] = r.rps
        }
        results[0]?.ratio.push((pair[0] as number) / (pair[1] as number))
      }
      const [mine, base] = results as [(typeof results)[0], (typeof results)[0]]
      // The median of the round-by-round ratios: each ratio compares two runs a few seconds apart.
      const ratio = median(mine.ratio)
      const met = ratio >= 0.95
      ok &&= met
      rows.push([
        op.name,
        median(mine.rps),
        median(base.rps),
        ratio,
        `${median(mine.p99).toFixed(2)} / ${median(base.p99).toFixed(2)}`,
        `${median(mine.cpu).toFixed(1)} / ${median(base.cpu).toFixed(1)}`,
        met ? 'no worse' : 'WORSE',
      ])
    }
  } finally {
    await Promise.all(servers.map((server) => server.proc.stop()))
  }
  return { lines: [table('This build against the baseline', rows)], ok }
}
