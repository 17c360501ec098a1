/**
 * The steps a world puts around its core, each a wrapper like `withFaults`, so one request reads
 * top to bottom: journal -> scenario step (`X-Mock-Scenario`) -> faults -> core.
 * See docs/architecture.md for the whole path, hosts included.
 */
import { type Api, operationOf } from '../core/api.js'
import { plainMessage, problem, StoreUnavailableError } from '../core/errors.js'
import { reasonHeader, reasonOf } from '../core/reason.js'
import type { ApiRequest, ApiResponse, ApiResult } from '../core/types.js'
import type { JournalRecorder } from '../journal/journal.js'
import type { ScenarioCatalogue } from '../scenarios/catalogue.js'
import { unknownScenarioMessage } from '../scenarios/catalogue.js'
import type { ActiveScenario } from './scenario-switch.js'

export interface ScenarioStep extends Api {
  /** Forgets the one-off worlds (the scenario catalogue or the current scenario changed). */
  forget(): void
}

/** The answer to an `X-Mock-Scenario` that names no scenario (src/core/reason.ts, `scenario.unknown`). */
const unknown = (message: string): ApiResponse => ({ ...problem('unknown_scenario', message), meta: { rule: 'scenario.unknown' } })

/** Marks a response with the scenario that answered it, for the journal. */
const answeredIn = (response: ApiResponse, scenario: string): ApiResponse => ({ ...response, meta: { ...response.meta, scenario } })

/**
 * The `X-Mock-Scenario` step: a request naming another scenario than the current one is answered by
 * a one-off world in that scenario, made on first use and kept; the others go on to `next()`.
 *
 * @example
 * const step = withScenarioHeader(scenarios.active, { catalogue, oneOff: (name) => createWorld({ ...options, scenario: name }) })
 */
export function withScenarioHeader(
  active: ActiveScenario,
  { catalogue, oneOff }: { catalogue: ScenarioCatalogue; oneOff: (name: string) => Api },
): ScenarioStep {
  const worlds = new Map<string, Api>()
  const inScenario = (name: string, request: ApiRequest): ApiResult => {
    if (!catalogue.has(name)) return answeredIn(unknown(unknownScenarioMessage(name, catalogue.names())), name)
    let world = worlds.get(name)
    if (!world) {
      try {
        world = oneOff(name)
      } catch (error) {
        return answeredIn(unknown(plainMessage(error)), name)
      }
      worlds.set(name, world)
    }
    const result = world.handle(request)
    return result instanceof Promise ? result.then((response) => answeredIn(response, name)) : answeredIn(result, name)
  }
  return {
    handle(request) {
      const requested = request.headers['x-mock-scenario']
      if (typeof requested === 'string' && requested !== '' && requested !== active.scenario.name) return inScenario(requested, request)
      return active.api.handle(request)
    },
    forget: () => worlds.clear(),
  }
}

export interface JournalStep extends Api {
  /** The host handed `response` to the client: requests arriving from now on were sent after it was seen. */
  markDelivered(response: ApiResponse): void
}

/**
 * Records every answer of `next` in the journal, with the order requests arrived in (for the retry audit).
 *
 * @example
 * const step = withJournal(api, journal, scenarios.active)
 */
export function withJournal(next: Api, journal: JournalRecorder, active: Pick<ActiveScenario, 'scenario'>): JournalStep {
  let arrivals = 0
  const record = (request: ApiRequest, response: ApiResponse, arrival: number, started: number): ApiResponse => {
    const durationMs = performance.now() - started
    journal.record(request, response, {
      arrival,
      scenario: response.meta?.scenario ?? active.scenario.name,
      fault: response.meta?.fault,
      durationMs,
    })
    return response
  }
  return {
    handle(request) {
      const arrival = ++arrivals
      const started = performance.now()
      const result = next.handle(request)
      return result instanceof Promise
        ? result.then((response) => record(request, response, arrival, started))
        : record(request, result, arrival, started)
    },
    markDelivered: (response) => journal.delivered(response, arrivals + 1),
  }
}

/**
 * Answers 503 `store_unavailable` with `Retry-After: 1` when the shared store (`--redis`) is unreachable, instead of
 * failing the request: its writes are single scripts, so it changed nothing. Only results that are promises pass here.
 *
 * @example
 * const step = withStoreFailures(api, '/v1')
 */
export function withStoreFailures(next: Api, basePath: string): Api {
  const answer = (request: ApiRequest, error: unknown): ApiResponse => {
    if (!(error instanceof StoreUnavailableError)) throw error
    const response = problem('store_unavailable', `${error.message}. Nothing was changed; retry in a moment.`, { 'retry-after': '1' })
    return { ...response, meta: { rule: 'store.unavailable', operation: operationOf(request, basePath) } }
  }
  return {
    handle(request) {
      const result = next.handle(request)
      return result instanceof Promise ? result.catch((error: unknown) => answer(request, error)) : result
    },
  }
}

/**
 * Adds `X-Mock-Reason` (the rule behind the answer and its facts, src/core/reason.ts) to every answer when `always`,
 * else to those whose request sent `X-Mock-Explain: 1`. Off by default: the spec's answers stay exactly as it defines
 * them (docs/spec-decisions.md row 63).
 *
 * @example
 * const step = withExplain(api, { always: false, active: scenarios.active })
 */
export function withExplain(next: Api, { always, active }: { always: boolean; active: Pick<ActiveScenario, 'scenario'> }): Api {
  const explain = (response: ApiResponse): ApiResponse => {
    // A dropped connection has no headers to carry it; the journal still records its reason.
    if (response.drop !== undefined) return response
    const { meta } = response
    const reason = reasonOf({
      status: response.status,
      headers: response.headers,
      rule: meta?.rule,
      plan: meta?.plan,
      keyHint: meta?.keyHint,
      scenario: meta?.scenario ?? active.scenario.name,
      stage: meta?.stage,
      fault: meta?.fault,
      faultRule: meta?.faultRule,
    })
    return { ...response, headers: { ...response.headers, 'x-mock-reason': reasonHeader(reason) } }
  }
  return {
    handle(request) {
      const asked = request.headers['x-mock-explain']
      if (!always && asked !== '1' && asked !== 'true') return next.handle(request)
      const result = next.handle(request)
      return result instanceof Promise ? result.then(explain) : explain(result)
    },
  }
}
