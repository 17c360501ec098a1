/**
 * The standalone server's Prometheus metrics (`GET /__mock/metrics`, docs/explain.md, "Metrics"): a prom-client
 * registry of the server's own (never prom-client's global one: two servers in one process count apart), fed by every
 * API answer of every session.
 *
 * Where it counts: it listens to the delivery's answers (`answered`, src/server/server-delivery.ts). It sees each answer of
 * every session, those created later and those of `--redis` included, with the core's `meta` (operation, rule, plan,
 * fault) already at hand: nothing is summarised, and it counts with the journal off (`journalLimit: 0`), unlike a
 * `journal.listen` per world. Answers from outside a world (the user's msw handlers, preflights, the admin API, an
 * invalid session) are not API answers of a session and are not counted.
 */
import type { Counter, Registry } from 'prom-client'
import { ruleOf } from '../core/reason.js'
import { INTEGRATIONS, loadIntegration } from './integrations.js'
import type { LoggedAnswer, LoggedRequest } from './request-log.js'
import type { Sessions } from './sessions.js'

export interface ServerMetrics {
  /** Counts one API answer: its status (0 when a fault dropped it) and the response the delivery handed over. */
  answered(request: LoggedRequest, status: number, answer: LoggedAnswer): void
  /** The registry as Prometheus text, and its content type. The first scrape loads prom-client (tens of milliseconds). */
  scrape(): Promise<{ contentType: string; text: string }>
}

/** Seconds: a mock answers in well under a millisecond unless a scenario or `--latency` delays it. */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

/** The window of a rate-limit rule: `rate.ban` answers are a ban's. */
const WINDOWS: Readonly<Record<string, string>> = { 'rate.minute-window': 'minute', 'rate.day-window': 'day', 'rate.ban': 'ban' }

/** One operation's durations: answers per bucket (the last one: above every bound), their sum and count. */
interface Durations {
  readonly buckets: number[]
  sum: number
  count: number
}

/**
 * What the server counts of its answers, as plain numbers keyed by label values: prom-client reads them when scraped.
 * Counting through prom-client itself (`inc`, `observe`) hashed and checked the labels of every answer, which cost the
 * server more than any other part of explaining its answers (docs/benchmarks.md, "Metrics"; decisions/025).
 */
interface Tallies {
  /** operation, then rule, then status: answers. */
  readonly requests: Map<string, Map<string, Map<number, number>>>
  /** plan, then window: answers. */
  readonly limited: Map<string, Map<string, number>>
  readonly bans: Map<string, number>
  readonly faults: Map<string, number>
  readonly durations: Map<string, Durations>
}

/** The map under `key`, made when missing. */
function within<K, K2, V>(map: Map<K, Map<K2, V>>, key: K): Map<K2, V> {
  let inner = map.get(key)
  if (inner === undefined) {
    inner = new Map()
    map.set(key, inner)
  }
  return inner
}

const bump = <K>(counts: Map<K, number>, key: K): void => {
  counts.set(key, (counts.get(key) ?? 0) + 1)
}

function count(tallies: Tallies, status: number, meta: LoggedAnswer['meta'], seconds: number): void {
  const operation = meta?.operation ?? 'none'
  // The core and the proxy name the rule of each answer they make; `ruleOf` names the rest (a scenario's faults).
  const rule = meta?.rule ?? ruleOf({ rule: undefined, status })
  bump(within(within(tallies.requests, operation), rule), status)
  let durations = tallies.durations.get(operation)
  if (durations === undefined) {
    durations = { buckets: new Array<number>(DURATION_BUCKETS.length + 1).fill(0), sum: 0, count: 0 }
    tallies.durations.set(operation, durations)
  }
  let bucket = 0
  while (bucket < DURATION_BUCKETS.length && seconds > (DURATION_BUCKETS[bucket] as number)) bucket++
  durations.buckets[bucket] = (durations.buckets[bucket] as number) + 1
  durations.sum += seconds
  durations.count += 1
  const window = WINDOWS[rule]
  if (window !== undefined) {
    const plan = meta?.plan ?? 'none'
    bump(within(tallies.limited, plan), window)
    // The core marks the answer that started a ban (src/core/types.ts, `banStarted`; decision 30).
    if (window === 'ban' && meta?.banStarted) bump(tallies.bans, plan)
  }
  // A request's faults are one label a chain (`latency+status-503`, src/core/faults.ts): counted here each by its type.
  if (meta?.fault !== undefined) for (const fault of meta.fault.split('+')) bump(tallies.faults, fault)
}

/** Each count of `counts` (keys nested as deep as `labelNames`), with its labels. */
function* flatten(
  counts: Map<unknown, unknown>,
  labelNames: readonly string[],
  labels: Record<string, string> = {},
): Generator<[Record<string, string>, number]> {
  const [name, ...rest] = labelNames
  for (const [key, value] of counts) {
    const next = { ...labels, [name as string]: String(key) }
    if (rest.length === 0) yield [next, value as number]
    else yield* flatten(value as Map<unknown, unknown>, rest, next)
  }
}

const DURATION = 'petstore_mock_request_duration_seconds'
const DURATION_HELP = "Seconds from a request's arrival until its answer was handed to the connection, injected delays included."

/** The duration histogram's samples, as prom-client's `Histogram.get()` gives them: cumulative buckets, sum and count. */
function durationValues(durations: Tallies['durations']) {
  return [...durations].flatMap(([operation, { buckets, sum, count }]) => {
    let cumulative = 0
    const bounds = buckets.map((answers, i) => {
      cumulative += answers
      const le = i < DURATION_BUCKETS.length ? (DURATION_BUCKETS[i] as number) : '+Inf'
      return { labels: { le, operation }, value: cumulative, metricName: `${DURATION}_bucket` }
    })
    return [
      ...bounds,
      { labels: { operation }, value: sum, metricName: `${DURATION}_sum` },
      { labels: { operation }, value: count, metricName: `${DURATION}_count` },
    ]
  })
}

/** The registry (prom-client loaded): each metric reads its tally when scraped. */
function registryOf(prom: typeof import('prom-client'), sessions: Sessions, tallies: Tallies): Registry {
  const registry: Registry = new prom.Registry()
  const registers = [registry]
  const counter = (name: string, help: string, labelNames: string[], counts: Map<unknown, unknown>): Counter =>
    new prom.Counter({
      name: `petstore_mock_${name}`,
      help,
      labelNames,
      registers,
      collect() {
        this.reset()
        for (const [labels, answers] of flatten(counts, labelNames)) this.inc(labels, answers)
      },
    })
  counter(
    'requests_total',
    'API answers by operation, status (0: dropped by a fault) and the rule that decided them.',
    ['operation', 'rule', 'status'],
    tallies.requests,
  )
  counter('rate_limited_total', 'Rate-limit answers (429) by plan and window (minute, day, ban).', ['plan', 'window'], tallies.limited)
  counter('bans_total', 'Bans earned: the rate.ban answers that started a ban (not those during one), by plan.', ['plan'], tallies.bans)
  counter('faults_total', 'Faults a scenario injected, by type (latency, status-503, network-error, …).', ['fault'], tallies.faults)
  // A histogram whose buckets are already counted: the registry takes any metric with a name and `get()`, and formats
  // what `get()` gives as it formats a prom-client Histogram's (whose own `get()` has this shape).
  const histogram = { name: DURATION, help: DURATION_HELP, type: 'histogram', aggregator: 'sum' } as const
  registry.registerMetric({ ...histogram, get: async () => ({ ...histogram, values: durationValues(tallies.durations) }) } as never)
  new prom.Gauge({
    name: 'petstore_mock_journal_bytes',
    help: "Bytes the sessions' journals hold together (their shared budget).",
    registers,
    collect() {
      this.set(sessions.journalBudget.bytes)
    },
  })
  new prom.Gauge({
    name: 'petstore_mock_sessions',
    help: 'Live sessions, the default one included.',
    registers,
    collect() {
      this.set(sessions.size)
    },
  })
  return registry
}

/**
 * @example
 * const metrics = createServerMetrics(sessions)
 * const delivery = serverDelivery(options, saver, log, [metrics.answered])
 */
export function createServerMetrics(sessions: Sessions): ServerMetrics {
  const tallies: Tallies = { requests: new Map(), limited: new Map(), bans: new Map(), faults: new Map(), durations: new Map() }
  let registry: Promise<Registry> | undefined
  return {
    answered({ started }, status, { meta }) {
      count(tallies, status, meta, (performance.now() - started) / 1000)
    },
    async scrape() {
      registry ??= loadIntegration('prom-client', INTEGRATIONS['prom-client'], () => import('prom-client')).then((prom) =>
        registryOf(prom, sessions, tallies),
      )
      // A missing prom-client is said again at the next scrape (it may be installed meanwhile: no restart needed).
      registry.catch(() => {
        registry = undefined
      })
      const loaded = await registry
      return { contentType: loaded.contentType, text: await loaded.metrics() }
    },
  }
}
