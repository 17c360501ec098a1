/**
 * What tracing costs a request in-process (docs/explain.md, "Traces"): petStore.fetch of GET /v1/pets?limit=10 without
 * `tracing` (no listener at all: the baseline), with `tracing: true` and no SDK registered ("off"), and with an SDK
 * registered (a TracerProvider, a BatchSpanProcessor and an exporter that drops what it gets: "on").
 * Targets: off within noise of the baseline, on at most 10 % slower. A fourth path measures what no tracing listener can
 * go below: the world without `tracing`, with the same SDK registered and a bare span (no attributes, no context)
 * started before and ended after each request by the bench itself ("floor"). Reads the build: `npm run build` first, then
 * `node bench/tracing.mjs` (`--quick` for fewer requests).
 */
import { propagation, SpanKind, trace } from '@opentelemetry/api'
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace'
import { createPetStore } from '../dist/src/index.js'

const quick = process.argv.includes('--quick')
const N = quick ? 2_000 : 10_000
const ROUNDS = quick ? 3 : 7
const URL_LIST = '/v1/pets?limit=10'
const init = { headers: { authorization: 'Bearer bench-key' } }
const keys = [{ key: 'bench-key', plan: 'enterprise', limits: { perMinute: 1e12, perDay: 1e15 } }]
/** Within noise: the rounds' medians of two identical paths differ by about this much on a quiet machine. */
const NOISE = 0.03

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}
const format = (n) => (typeof n === 'number' ? (Math.abs(n) >= 10 ? n.toFixed(1) : n.toFixed(2)) : n)

function table(title, rows) {
  const cells = rows.map((row) => row.map(format))
  const widths = cells[0].map((_, i) => Math.max(...cells.map((row) => row[i].length)))
  const line = (row) => `| ${row.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`
  const [head, ...body] = cells
  console.log([`\n${title}`, line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n'))
}

/** µs per request over N sequential requests; every 256 a macrotask turn, so the batch processor's timer runs, as in a suite. */
async function timeRound(petStore, tracer) {
  const started = performance.now()
  for (let i = 0; i < N; i++) {
    const span = tracer?.startSpan('listPets', { kind: SpanKind.SERVER })
    await (await petStore.fetch(URL_LIST, init)).text()
    span?.end()
    if ((i & 255) === 255) await new Promise((done) => setImmediate(done))
  }
  return ((performance.now() - started) * 1000) / N
}

/** An exporter that keeps nothing: the cost measured is the mock's and the SDK's, not an export's. */
const dropping = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {}, forceFlush: async () => {} }

/** Runs `measure` with an SDK registered (a fresh one each round, as a suite's setup file would), then unregisters it. */
async function withSdk(exporter, measure) {
  const processor = new BatchSpanProcessor({ exporter, maxQueueSize: 4096 })
  trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [processor] }))
  try {
    return await measure()
  } finally {
    await processor.shutdown()
    trace.disable()
    propagation.disable()
  }
}

async function main() {
  console.log(`# Tracing (${N.toLocaleString('en-US')} sequential requests x ${ROUNDS} rounds, medians)`)
  const before = createPetStore({ keys, collection: false })
  const traced = createPetStore({ keys, collection: false, tracing: true })
  let spans = 0
  const counting = {
    ...dropping,
    export: (batch, done) => {
      spans += batch.length
      done({ code: 0 })
    },
  }
  const paths = {
    before: () => timeRound(before),
    off: () => timeRound(traced),
    on: () => withSdk(counting, () => timeRound(traced)),
    floor: () => withSdk(dropping, () => timeRound(before, trace.getTracer('bench'))),
  }
  const samples = { before: [], off: [], on: [], floor: [] }
  // The paths take turns, round after round, so JIT warm-up and machine load fall on all alike; round 0 warms up.
  for (let r = 0; r < ROUNDS + 1; r++) {
    for (const [name, run] of Object.entries(paths)) {
      const value = await run()
      if (r > 0) samples[name].push(value)
    }
  }
  const base = median(samples.before)
  const off = median(samples.off)
  const on = median(samples.on)
  const floor = median(samples.floor)
  const offOk = off / base <= 1 + NOISE
  const onOk = base / on >= 0.9
  table('petStore.fetch, GET /v1/pets?limit=10', [
    ['path', 'µs/request', 'requests/s', 'ratio to baseline', 'target'],
    ['no tracing (baseline)', base, 1e6 / base, 1, ''],
    ['tracing: true, no SDK (off)', off, 1e6 / off, base / off, `within noise (${NOISE * 100} %): ${offOk ? 'met' : 'NOT met'}`],
    ['SDK registered, batch processor (on)', on, 1e6 / on, base / on, `>= 0.9x: ${onOk ? 'met' : 'NOT met'}`],
    ['baseline + a bare span per request (SDK floor)', floor, 1e6 / floor, base / floor, 'what a span costs with no mock work'],
  ])
  console.log(`\nthe tracing listener costs ${format(on - floor)} µs a request above the SDK's bare span (${format(floor - base)} µs)`)
  console.log(`\nspans exported while on: ${spans.toLocaleString('en-US')} (expected ${((ROUNDS + 1) * N).toLocaleString('en-US')})`)
}

await main()
