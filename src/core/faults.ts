/**
 * Faults a scenario injects: latency, a 5xx Error, a reset connection, no answer at all, or a
 * broken JSON body. Which request gets which fault is drawn from a generator seeded by the
 * scenario's seed, so the same run fails the same way every time.
 */
import { type Api, operationOf } from './api.js'
import { bearerToken } from './auth.js'
import { type ErrorCode, problem } from './errors.js'
import { drawLatency, type LatencySpec, type Random } from './random.js'
import type { ApiRequest, ApiResponse, ApiResult, ResponseMeta } from './types.js'

export type Fault =
  | ({ type: 'latency' } & LatencySpec)
  | { type: 'network-error' }
  | { type: 'timeout' }
  | { type: 'status'; status: 500 | 502 | 503 | 504; retryAfter?: number | undefined; message?: string | undefined }
  | { type: 'malformed-body' }
  | { type: 'truncated-body' }

export interface FaultRule {
  readonly match?:
    | {
        readonly operation?: string | undefined
        readonly method?: string | undefined
        /** A path (with `*` matching any run of characters), e.g. `/v1/pets/*`. */
        readonly path?: string | undefined
        /** The API key the request is sent with. */
        readonly key?: string | undefined
      }
    | undefined
  /** Which matching requests: a probability, every Nth, the first N, or all (default). */
  readonly when?: { probability: number } | { every: number } | { first: number } | { always: true } | undefined
  /** One fault, or several of which one is drawn per request. */
  readonly fault: Fault | readonly Fault[]
}

/** A `timeout` fault holds the request at most this long, then fails it like a dropped connection. */
export const TIMEOUT_FAULT_MAX_MS = 5 * 60_000

const STATUS_CODES: Record<number, ErrorCode> = {
  500: 'internal_error',
  502: 'bad_gateway',
  503: 'service_unavailable',
  504: 'gateway_timeout',
}

function globToRegExp(glob: string): RegExp {
  return new RegExp(
    `^${glob
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  )
}

/**
 * Wraps an API with a scenario's fault rules. Latency rules add up and let the request go on;
 * the first other rule that fires decides the outcome.
 *
 * @example
 * const api = withFaults(createApi(world), { rules: scenario.faults, random: createRandom(seed), basePath: '/v1', scenario: 'flaky' })
 */
export function withFaults(
  api: Api,
  { rules, random, basePath, scenario }: { rules: readonly FaultRule[]; random: Random; basePath: string; scenario: string },
): Api {
  const compiled = rules.map((rule) => ({
    rule,
    path: rule.match?.path === undefined ? undefined : globToRegExp(rule.match.path),
    seen: 0,
  }))

  const fires = (entry: (typeof compiled)[number], request: ApiRequest): boolean => {
    const { match, when } = entry.rule
    if (match?.method !== undefined && match.method.toUpperCase() !== request.method) return false
    if (entry.path && !entry.path.test(request.path)) return false
    if (match?.operation !== undefined && operationOf(request, basePath) !== match.operation) return false
    if (match?.key !== undefined) {
      const authorization = request.headers.authorization
      const token = bearerToken(typeof authorization === 'string' ? authorization : undefined)
      if (token !== match.key) return false
    }
    entry.seen += 1
    if (when === undefined || 'always' in when) return true
    if ('probability' in when) return random() < when.probability
    if ('every' in when) return entry.seen % when.every === 0
    return entry.seen <= when.first
  }

  const pick = (fault: Fault | readonly Fault[]): Fault => {
    if (!Array.isArray(fault)) return fault as Fault
    return fault[Math.min(fault.length - 1, Math.floor(random() * fault.length))] as Fault
  }

  return {
    handle(request): ApiResult {
      let delayMs = 0
      const labels: string[] = []
      let terminal: Fault | undefined
      // The rule a reason names (src/core/reason.ts): the one whose fault ended the request, else the first latency.
      let faultRule: number | undefined
      for (const [index, entry] of compiled.entries()) {
        if (!fires(entry, request)) continue
        const fault = pick(entry.rule.fault)
        faultRule ??= index
        if (fault.type === 'latency') {
          delayMs += drawLatency(random, fault)
          labels.push('latency')
          continue
        }
        faultRule = index
        terminal = fault
        labels.push(fault.type === 'status' ? `status-${fault.status}` : fault.type)
        break
      }
      if (labels.length === 0) return api.handle(request)
      // A rule fired (labels has one), so faultRule is set.
      const meta = { scenario, fault: labels.join('+'), faultRule: faultRule as number }
      return answerWith(api, request, { terminal, meta, delayMs, basePath })
    },
  }
}

/**
 * The answer once the rules fired: the terminal fault's (a status, a dropped connection, the core's answer with a broken
 * body), else the core's answer delayed. A fault that decides the answer is its rule (`scenario.fault`,
 * src/core/reason.ts); a latency only delays the core's.
 */
function answerWith(
  api: Api,
  request: ApiRequest,
  {
    terminal,
    meta,
    delayMs,
    basePath,
  }: { terminal: Fault | undefined; meta: ResponseMeta & { scenario: string }; delayMs: number; basePath: string },
): ApiResult {
  // A status or a dropped connection answers in the core's place: it names the operation the core would have (the
  // journal, metrics and spans count the request under it; test/explain/metrics.test.ts).
  const marked =
    terminal === undefined
      ? meta
      : terminal.type === 'status' || terminal.type === 'network-error' || terminal.type === 'timeout'
        ? { ...meta, rule: 'scenario.fault' as const, operation: operationOf(request, basePath) }
        : { ...meta, rule: 'scenario.fault' as const }
  const delay = delayMs > 0 ? { delayMs } : {}
  if (terminal?.type === 'status') {
    const headers: Record<string, string> = terminal.retryAfter === undefined ? {} : { 'retry-after': String(terminal.retryAfter) }
    const code = STATUS_CODES[terminal.status] ?? 'internal_error'
    const message = terminal.message ?? `Injected by scenario "${meta.scenario}" (chaos: not a response the spec documents).`
    return { ...problem(code, message, headers), meta: marked, ...delay }
  }
  if (terminal?.type === 'network-error' || terminal?.type === 'timeout') {
    return { status: 0, headers: {}, body: '', drop: terminal.type, meta: marked, ...delay }
  }
  const finish = (response: ApiResponse): ApiResponse => {
    let body = response.body
    if (terminal?.type === 'malformed-body') body = `${body.slice(0, Math.max(1, Math.floor(body.length / 2)))}<!-- not JSON -->`
    else if (terminal?.type === 'truncated-body') body = body.slice(0, Math.floor(body.length / 2))
    return { ...response, body, meta: { ...response.meta, ...marked }, ...delay }
  }
  const result = api.handle(request)
  return result instanceof Promise ? result.then(finish) : finish(result)
}
