/**
 * Target 6 (issue #8): mixed traffic across 50 sessions at a fixed rate (10 minutes; 45 s with
 * --quick): RSS flat within 10 % after warm-up, no 5xx, every created pet retrievable after.
 */
import { BENCH_KEY, quick, startMock, table, verdict, waitFor } from './lib.js'

const DURATION_S = quick ? 60 : 600
const RATE = 500
/** --quick keeps fewer sessions, so their journals (1,000 entries each) fill within its warm-up too. */
const SESSIONS = quick ? 10 : 50
/** Warm-up: sessions created, journals full, heap grown to its working size. */
const WARM_UP = 0.4
const auth = { Authorization: `Bearer ${BENCH_KEY}` }

export async function benchSoak(): Promise<{ lines: string[]; ok: boolean }> {
  console.log(
    `\n# Soak (${DURATION_S} s at ${RATE} req/s across ${SESSIONS} sessions: 70 % list, 25 % get, 5 % create; warm-up ${WARM_UP * 100} %)`,
  )
  const port = 4900
  const base = `http://127.0.0.1:${port}`
  const proc = startMock(port)
  const created: { session: string; id: number }[] = []
  const statuses = new Map<number, number>()
  const samples: { t: number; rss: number }[] = []
  let failures = 0
  try {
    await waitFor(`${base}/v1/pets?limit=1`, { headers: auth })
    const started = performance.now()
    const inFlight = new Set<Promise<void>>()
    let sent = 0
    let nextSample = 0
    while (performance.now() - started < DURATION_S * 1000) {
      const elapsed = performance.now() - started
      if (elapsed >= nextSample) {
        samples.push({ t: elapsed / 1000, rss: proc.rssMb() })
        nextSample += 5_000
      }
      const due = Math.floor((elapsed / 1000) * RATE)
      while (sent < due) {
        const n = sent++
        const session = `soak-${n % SESSIONS}`
        const headers = { ...auth, 'X-Mock-Session': session, 'content-type': 'application/json' }
        const pick = n % 20
        const request =
          pick === 0
            ? fetch(`${base}/v1/pets`, { method: 'POST', headers, body: `{"name":"Soak ${n}","categoryId":${(n % 10) + 1}}` }).then(
                async (r) => {
                  const body = (await r.json()) as { id: number }
                  if (r.status === 201) created.push({ session, id: body.id })
                  return r.status
                },
              )
            : fetch(pick < 6 ? `${base}/v1/pets/${(n % 50) + 1}` : `${base}/v1/pets?limit=20`, { headers }).then(async (r) => {
                await r.arrayBuffer()
                return r.status
              })
        const tracked = request.then(
          (status) => {
            statuses.set(status, (statuses.get(status) ?? 0) + 1)
          },
          () => {
            failures++
          },
        )
        inFlight.add(tracked)
        void tracked.finally(() => inFlight.delete(tracked))
      }
      await new Promise((resolve) => setTimeout(resolve, 2))
    }
    await Promise.all(inFlight)
    let missing = 0
    for (const { session, id } of created) {
      const response = await fetch(`${base}/v1/pets/${id}`, { headers: { ...auth, 'X-Mock-Session': session } })
      await response.arrayBuffer()
      if (response.status !== 200) missing++
    }
    const warm = samples.filter((s) => s.t >= DURATION_S * WARM_UP)
    const first = warm[0]?.rss ?? Number.NaN
    const peak = Math.max(...warm.map((s) => s.rss))
    const growth = (peak - first) / first
    const fiveXX = [...statuses].filter(([status]) => status >= 500).reduce((sum, [, count]) => sum + count, 0)
    const total = [...statuses.values()].reduce((a, b) => a + b, 0)
    const ok = growth <= 0.1 && fiveXX === 0 && failures === 0 && missing === 0
    return {
      lines: [
        table('Target 6: soak', [
          ['measure', 'value', 'target'],
          ['requests answered', total, ''],
          ['statuses', [...statuses].map(([s, c]) => `${s}: ${c}`).join(', '), ''],
          ['5xx / network failures', `${fiveXX} / ${failures}`, '0 / 0'],
          ['RSS after warm-up, first → peak (MB)', `${first.toFixed(1)} → ${peak.toFixed(1)}`, ''],
          ['RSS growth after warm-up', `${(growth * 100).toFixed(1)} %`, '<= 10 %'],
          ['created pets retrievable after', `${created.length - missing} of ${created.length}`, 'all'],
          ['verdict', verdict(ok), ''],
        ]),
      ],
      ok,
    }
  } finally {
    await proc.stop()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchSoak()
