/**
 * Issue #16's figure: what the control panel's event stream costs the API. One server, API throughput
 * (wrk) with no subscriber and with one `GET /__mock/events` stream being read (as an open panel does),
 * alternating round by round. Target: with a subscriber, every operation keeps >= 0.9x its throughput.
 * Without a subscriber the world listens to nothing: the `builds` bench compares that against an older build.
 */
import { existsSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { BENCH_KEY, LOAD_CORE, median, quick, ROOT, startMock, startPinned, table, tempDir, verdict, waitFor, wrk } from './lib.js'

const auth = { Authorization: `Bearer ${BENCH_KEY}` }

/**
 * An open panel's stream: curl reading `/__mock/events` on the load core (as a browser elsewhere would), so the
 * subscriber's own reading is not charged to the server's core. Resolves once the stream answers.
 */
async function subscribe(base: string): Promise<{ stop: () => Promise<number> }> {
  const dir = tempDir('petstore-events-bench-')
  const out = join(dir, 'stream.txt')
  const proc = startPinned(LOAD_CORE, 'curl', ['-sN', '-o', out, `${base}/__mock/events`])
  const deadline = Date.now() + 5_000
  while (!existsSync(out) || statSync(out).size === 0) {
    if (Date.now() > deadline) throw new Error('[bench] the event stream did not answer within 5 s')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return {
    async stop() {
      await proc.stop()
      const bytes = statSync(out).size
      rmSync(dir, { recursive: true, force: true })
      return bytes
    },
  }
}

export async function benchEvents(): Promise<{ lines: string[]; ok: boolean }> {
  console.log("\n# The control panel's event stream (issue #16)")
  const port = 4340
  const base = `http://127.0.0.1:${port}`
  const proc = startMock(port)
  const seconds = quick ? 2 : 5
  const count = quick ? 2 : 5
  const operations = [
    { name: 'GET /v1/pets (list)', url: `${base}/v1/pets?limit=20` },
    { name: 'GET /v1/pets/{id}', url: `${base}/v1/pets/1` },
    { name: 'POST /v1/pets (create)', url: `${base}/v1/pets`, script: join(ROOT, 'bench/servers/post.lua') },
  ]
  const rows: (string | number)[][] = []
  let ok = true
  let streamed = 0
  try {
    await waitFor(`${base}/v1/pets?limit=1`, { headers: auth })
    for (const op of operations) {
      const without: number[] = []
      const withOne: number[] = []
      const ratios: number[] = []
      for (let round = 0; round < count; round++) {
        const measure = async () => {
          const r = await wrk(op.url, seconds, { headers: auth, ...(op.script ? { script: op.script } : {}) })
          if (r.errors > 0) throw new Error(`[bench] ${op.name}: ${r.errors} errors`)
          return r.rps
        }
        // Alternate which goes first, so a drift of the machine does not favour one side.
        const first = round % 2 === 0
        const a = first ? await measure() : undefined
        const stream = await subscribe(base)
        const b = await measure()
        streamed += await stream.stop()
        const c = first ? (a as number) : await measure()
        without.push(c)
        withOne.push(b)
        ratios.push(b / c)
      }
      const ratio = median(ratios)
      ok &&= ratio >= 0.9
      rows.push([op.name, median(without), median(withOne), ratio, `>= 0.9: ${verdict(ratio >= 0.9)}`])
    }
  } finally {
    await proc.stop()
  }
  return {
    lines: [
      table(`API throughput with an open event stream (${(streamed / 2 ** 20).toFixed(0)} MiB streamed in all)`, [
        ['operation', 'req/s, no subscriber', 'req/s, one subscriber', 'x (median of rounds)', 'target'],
        ...rows,
      ]),
    ],
    ok,
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchEvents()
