/**
 * The core's cost of one request in-process, with no HTTP and no msw (issue #18): `world.handle` and `markDelivered`
 * for list, get and create, this build against another checkout's build, each in a child process of its own, taking
 * turns round by round so the machine's drift falls on both alike. What the HTTP figures leave out: the share of a
 * request that is petstore-mock's own work.
 *
 *   npm run bench -- --only=core --baseline=/tmp/before      (a checkout with dist/ built; about 2 minutes)
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { median, quick, ROOT, SERVER_NODE, table, verdict } from './lib.js'

const ROUNDS = quick ? 2 : 5
const REQUESTS = quick ? 50_000 : 200_000
const OPS = ['list', 'get', 'create'] as const
type Costs = Record<(typeof OPS)[number], number>

function costs(checkout: string): Costs {
  const run = spawnSync(SERVER_NODE, [join(ROOT, 'bench/servers/core-cost.mjs'), checkout, String(REQUESTS)], {
    encoding: 'utf8',
  })
  if (run.status !== 0) throw new Error(`[bench] core-cost of ${checkout} failed:\n${run.stderr}`)
  return JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as Costs
}

export async function benchCore(): Promise<{ lines: string[]; ok: boolean }> {
  const baseline = process.argv.find((arg) => arg.startsWith('--baseline='))?.slice(11)
  const current = process.argv.find((arg) => arg.startsWith('--this='))?.slice(7) ?? ROOT
  const checkouts = baseline ? [current, baseline] : [current]
  console.log(
    `\n# The core in-process, µs per request (world.handle + markDelivered, 10,000 pets, journal on; ${ROUNDS} rounds, medians)${baseline ? `: ${current} against ${baseline}` : ''}`,
  )
  const samples = checkouts.map(() => OPS.map(() => [] as number[]))
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, checkout] of checkouts.entries()) {
      const measured = costs(checkout)
      for (const [j, op] of OPS.entries()) samples[i]?.[j]?.push(measured[op])
    }
  }
  const rows: (string | number)[][] = [
    baseline ? ['operation', 'this build µs', 'baseline µs', 'this / baseline (<= 1.05)', 'verdict'] : ['operation', 'µs'],
  ]
  let ok = true
  for (const [j, op] of OPS.entries()) {
    const mine = median(samples[0]?.[j] ?? [])
    if (!baseline) {
      rows.push([op, mine.toFixed(2)])
      continue
    }
    const base = median(samples[1]?.[j] ?? [])
    const met = mine <= base * 1.05
    ok &&= met
    rows.push([op, mine.toFixed(2), base.toFixed(2), (mine / base).toFixed(2), verdict(met)])
  }
  return { lines: [table('The core, in-process', rows)], ok }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchCore()
