/**
 * Tracing on the standalone server (docs/explain.md, "Traces"): `GET /v1/pets?limit=20` under wrk, the server as
 * before against the same server started with `--tracing` and an OpenTelemetry SDK registered (`node --import
 * bench/otel-register.mjs`), rounds alternating. Target: at most 10 % lower throughput with the SDK. A third server
 * measures what no tracing listener can go below: the same SDK, not registered, the mock without `--tracing`, and a bare span per
 * request started and ended from Node's HTTP diagnostics channels (`bench/otel-floor.mjs`).
 */
import { join } from 'node:path'
import {
  BENCH_KEY,
  benchFixtures,
  median,
  ONE_CORE_FLAGS,
  quick,
  ROOT,
  SERVER_CORE,
  SERVER_NODE,
  startPinned,
  table,
  verdict,
  waitFor,
  wrk,
} from './lib.js'

const ROUNDS = quick ? 2 : 5
const SECONDS = quick ? 3 : 10

/** What each server imports before it starts: nothing, the registered SDK, or the floor's bare spans. */
const IMPORTS: Record<string, string | undefined> = { plain: undefined, traced: 'otel-register.mjs', floor: 'otel-floor.mjs' }

function server(port: number, name: string) {
  const script = IMPORTS[name]
  const importing = script === undefined ? [] : [`--import=${join(ROOT, 'bench', script)}`]
  const tracing = name === 'traced' ? ['--tracing'] : []
  const args = [...ONE_CORE_FLAGS, ...importing, join(ROOT, 'dist/src/cli/main.js'), '--port', String(port), '--log', 'silent', ...tracing]
  return startPinned(SERVER_CORE, SERVER_NODE, [...args, '--fixtures', benchFixtures()])
}

export async function benchTracingHttp(): Promise<{ lines: string[]; ok: boolean }> {
  console.log(`\n# Tracing on the standalone server (wrk -t1 -c10, ${SECONDS} s x ${ROUNDS} rounds, alternating, medians)`)
  const headers = { authorization: `Bearer ${BENCH_KEY}` }
  const runs = {
    plain: { port: 4710, rps: [] as number[], p99: [] as number[] },
    traced: { port: 4711, rps: [] as number[], p99: [] as number[] },
    floor: { port: 4712, rps: [] as number[], p99: [] as number[] },
  }
  for (let round = 0; round < ROUNDS + 1; round++) {
    for (const [name, run] of Object.entries(runs)) {
      const proc = server(run.port, name)
      try {
        const url = `http://127.0.0.1:${run.port}/v1/pets?limit=20`
        await waitFor(url, { headers })
        await wrk(url, 2, { headers }) // warms up
        const result = await wrk(url, SECONDS, { headers })
        if (round > 0) {
          run.rps.push(result.rps)
          run.p99.push(result.p99)
        }
      } finally {
        await proc.stop()
      }
    }
  }
  const plain = median(runs.plain.rps)
  const traced = median(runs.traced.rps)
  const floor = median(runs.floor.rps)
  const ok = traced / plain >= 0.9
  const text = table('GET /v1/pets?limit=20 over 50 pets', [
    ['server', 'req/s', 'p99 ms', 'ratio to baseline', 'target', 'verdict'],
    ['no SDK (baseline)', plain, median(runs.plain.p99), 1, '', ''],
    ['an SDK registered (--import, batch processor)', traced, median(runs.traced.p99), traced / plain, '>= 0.9x', verdict(ok)],
    ['SDK floor: a bare span per request, mock untraced', floor, median(runs.floor.p99), floor / plain, '', ''],
  ])
  return { lines: [text], ok }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchTracingHttp()
