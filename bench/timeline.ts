/**
 * A 60-minute incident played in-process on the manual clock (docs/scenarios.md, "Timelines"): target, the whole
 * hour in under 2 s. Four clients (one per test key) each send one request per virtual second, 14,400 requests,
 * through `petStore.handle` (the world's whole pipeline; the delays a stage draws are recorded, not waited: a
 * test that wants them waited uses `petStore.fetch` and fake timers). Baseline: the same traffic on the default
 * scenario, measured in the same run.
 */
import { createPetStore, type ScenarioInput } from '../src/index.js'
import { median, quick, table, verdict } from './lib.js'

const ROUNDS = quick ? 3 : 7
const MINUTES = 60
const KEYS = ['test-free', 'test-pro', 'test-business', 'test-enterprise']
const TARGET_MS = 2_000

const INCIDENT: ScenarioInput = {
  name: 'bench-hour',
  description: 'A 60-minute incident: slow, down, quota gone and banned, recovered.',
  clock: { start: '2026-06-01T12:00:00Z', frozen: true },
  timeline: [
    { name: 'slow', after: '0m', for: '15m', faults: [{ fault: { type: 'latency', distribution: 'lognormal', median: 80, p99: 900 } }] },
    { name: 'down', after: '15m', for: '15m', faults: [{ chaos: true, fault: { type: 'status', status: 503, retryAfter: 30 } }] },
    {
      name: 'quota-gone',
      after: '30m',
      for: '15m',
      keys: { start: { 'test-free': { minuteUsed: 'all' }, 'test-pro': { bannedForSeconds: 300 } } },
    },
    { name: 'recovered', after: '45m' },
  ],
}

/** Plays the hour on a fresh world in `scenario`; returns the ms it took and the answers' statuses. */
async function playHour(scenario: string): Promise<{ ms: number; requests: number; statuses: Record<number, number> }> {
  const petStore = createPetStore({ scenarios: [INCIDENT], scenario, clock: '2026-06-01T12:00:00Z' })
  const statuses: Record<number, number> = {}
  let requests = 0
  const started = performance.now()
  for (let second = 0; second < MINUTES * 60; second++) {
    for (const key of KEYS) {
      const request = { method: 'GET', path: '/v1/pets', query: 'limit=5', headers: { authorization: `Bearer ${key}` }, body: undefined }
      const response = await petStore.handle(request)
      statuses[response.status] = (statuses[response.status] ?? 0) + 1
      requests += 1
    }
    petStore.clock.advance(1_000)
  }
  return { ms: performance.now() - started, requests, statuses }
}

export async function benchTimeline(): Promise<{ lines: string[]; ok: boolean }> {
  console.log(`\n# A 60-minute timeline in-process on the manual clock (${ROUNDS} rounds, medians)`)
  const samples = { incident: [] as number[], plain: [] as number[] }
  let last: Awaited<ReturnType<typeof playHour>> | undefined
  for (let round = 0; round < ROUNDS + 1; round++) {
    const incident = await playHour('bench-hour')
    const plain = await playHour('default')
    if (round === 0) continue // warms up
    samples.incident.push(incident.ms)
    samples.plain.push(plain.ms)
    last = incident
  }
  const incident = median(samples.incident)
  const plain = median(samples.plain)
  const ok = incident < TARGET_MS
  const text = table(`${last?.requests.toLocaleString('en-US')} requests; statuses of the incident: ${JSON.stringify(last?.statuses)}`, [
    ['run', 'ms for the hour', 'ratio to baseline', 'target', 'verdict'],
    ['default scenario (baseline)', plain, 1, '', ''],
    ['60-minute incident timeline', incident, incident / plain, `< ${TARGET_MS} ms`, verdict(ok)],
  ])
  return { lines: [text], ok }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchTimeline()
