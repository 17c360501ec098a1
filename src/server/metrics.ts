/**
 * The standalone server's Prometheus metrics (`GET /__mock/metrics`, docs/explain.md, "Metrics"): a prom-client
 * registry of the server's own (never prom-client's global one: two servers in one process count apart), fed by every
 * API answer of every session.
 *
 * Where it counts: the delivery's `onAnswered` hook, through the request log (`watchAnswers`). It sees each answer of
 * every session, those created later and those of `--redis` included, with the core's `meta` (operation, rule, plan,
 * fault) already at hand: nothing is summarised, and it counts with the journal off (`journalLimit: 0`), unlike a
 * `journal.listen` per world. Answers from outside a world (the user's msw handlers, preflights, the admin API, an
 * invalid session) are not API answers of a session and are not counted.
 */
import type { Counter, Histogram, Registry } from 'prom-client'
import { ruleOf } from '../core/reason.js'
import type { LoggedAnswer, LoggedRequest, RequestLog } from './request-log.js'
import type { Sessions } from './sessions.js'

export interface ServerMetrics {
  /**
   * Loads prom-client and makes the registry. The server starts it once it listens (prom-client takes tens of
   * milliseconds to load, which the first answer would otherwise wait for); answers before then are kept and counted.
   */
  load(): Promise<void>
  /** Counts one API answer: its status (0 when a fault dropped it) and the response the delivery handed over. */
  answered(request: LoggedRequest, status: number, answer: LoggedAnswer): void
  /** The registry as Prometheus text, and its content type. */
  scrape(): Promise<{ contentType: string; text: string }>
}

/** Seconds: a mock answers in well under a millisecond unless a scenario or `--latency` delays it. */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

/** The window of a rate-limit rule: `rate.ban` answers are a ban's. */
const WINDOWS: Readonly<Record<string, string>> = { 'rate.minute-window': 'minute', 'rate.day-window': 'day', 'rate.ban': 'ban' }

/** A child of a labelled metric per label set, made once: label values are a few short strings (plans, rules, faults). */
function cached<T>(make: (...labels: string[]) => T): (...labels: string[]) => T {
  const children = new Map<string, T>()
  return (...labels) => {
    const key = labels.join('\u0000')
    let child = children.get(key)
    if (child === undefined) {
      child = make(...labels)
      children.set(key, child)
    }
    return child
  }
}

type Children = ReturnType<typeof childrenOf>

/** The registry and its metrics (prom-client loaded). */
function childrenOf(prom: typeof import('prom-client'), sessions: Sessions) {
  const registry: Registry = new prom.Registry()
  const registers = [registry]
  const counter = (name: string, help: string, labelNames: string[]): Counter =>
    new prom.Counter({ name: `petstore_mock_${name}`, help, labelNames, registers })
  const requests = counter('requests_total', 'API answers by operation, status (0: dropped by a fault) and the rule that decided them.', [
    'operation',
    'status',
    'rule',
  ])
  const limited = counter('rate_limited_total', 'Rate-limit answers (429) by plan and window (minute, day, ban).', ['plan', 'window'])
  const bans = counter('bans_total', 'Bans earned: the rate.ban answers that started a ban (not those during one), by plan.', ['plan'])
  const faults = counter('faults_total', 'Faults a scenario injected, by type (latency, status-503, network-error, …).', ['fault'])
  const duration: Histogram = new prom.Histogram({
    name: 'petstore_mock_request_duration_seconds',
    help: "Seconds from a request's arrival until its answer was handed to the connection, injected delays included.",
    labelNames: ['operation'],
    buckets: DURATION_BUCKETS,
    registers,
  })
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
  return {
    registry,
    requests: cached((operation, status, rule) => requests.labels(operation as string, status as string, rule as string)),
    limited: cached((plan, window) => limited.labels(plan as string, window as string)),
    bans: cached((plan) => bans.labels(plan as string)),
    faults: cached((fault) => faults.labels(fault as string)),
    duration: cached((operation) => duration.labels(operation as string)),
  }
}

/**
 * @example
 * const metrics = createServerMetrics(sessions)
 * await metrics.load()
 * const log = watchAnswers(createRequestLog('silent', write), metrics)
 */
export function createServerMetrics(sessions: Sessions): ServerMetrics {
  let children: Children | undefined
  let loading: Promise<void> | undefined
  // What came before prom-client loaded, counted once it has: a few answers at most (it loads as the server opens its
  // port); the bound keeps a server that is never scraped and never loads from holding them all.
  const pending: Answered[] = []
  const load = (): Promise<void> => {
    loading ??= import('prom-client').then((prom) => {
      children = childrenOf(prom, sessions)
      for (const answered of pending.splice(0)) count(children, answered)
    })
    return loading
  }
  return {
    load,
    answered({ started }, status, answer) {
      const answered: Answered = { status, meta: answer.meta, seconds: (performance.now() - started) / 1000 }
      if (children !== undefined) count(children, answered)
      else if (pending.length < MAX_PENDING) pending.push(answered)
    },
    async scrape() {
      await load()
      const { registry } = children as Children
      return { contentType: registry.contentType, text: await registry.metrics() }
    },
  }
}

/** The most answers kept while prom-client loads. */
const MAX_PENDING = 10_000

/** One API answer as the metrics count it. */
interface Answered {
  readonly status: number
  readonly meta: LoggedAnswer['meta']
  readonly seconds: number
}

function count(children: Children, { status, meta, seconds }: Answered): void {
  const operation = meta?.operation ?? 'none'
  // The core and the proxy name the rule of each answer they make; `ruleOf` names the rest (a scenario's faults).
  const rule = meta?.rule ?? ruleOf({ rule: undefined, status })
  children.requests(operation, String(status), rule).inc()
  children.duration(operation).observe(seconds)
  const window = WINDOWS[rule]
  if (window !== undefined) {
    const plan = meta?.plan ?? 'none'
    children.limited(plan, window).inc()
    // The core marks the answer that started a ban (src/core/types.ts, `banStarted`; decision 30).
    if (window === 'ban' && meta?.banStarted) children.bans(plan).inc()
  }
  if (meta?.fault !== undefined) children.faults(meta.fault).inc()
}

/** `log`, also counting each API answer in `metrics`: the delivery calls `answered` for every one, even when silent. */
export function watchAnswers(log: RequestLog, metrics: ServerMetrics): RequestLog {
  return {
    silent: false,
    start: log.start,
    line: log.line,
    answered(request, status, answer) {
      metrics.answered(request, status, answer)
      // A silent log writes nothing: not calling it keeps an answer out of its file (scripts/files-per-request.mjs).
      if (!log.silent) log.answered(request, status, answer)
    },
  }
}
