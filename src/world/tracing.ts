/**
 * OpenTelemetry traces of the API's requests (docs/explain.md, "Traces"), for the Node hosts that are asked for them
 * (`tracing: true`, `--tracing`): a listener of each world's answers (src/world/answers.ts), which makes one SERVER span
 * per request after the fact, from the request's arrival to its decided answer, named after its operation, under the
 * context the registered propagator reads from the request, with the answer's reason (src/core/reason.ts) as
 * attributes. Only `@opentelemetry/api`'s public calls: a world without `tracing` never loads it, and has no listener
 * on its requests. The browser bundle never loads this file (test/browser/bundle.test.ts).
 */
import type { Attributes, Tracer, TracerProvider } from '@opentelemetry/api'
import { operationOf } from '../core/api.js'
import { bearerToken } from '../core/auth.js'
import { reasonFacts } from '../core/reason.js'
import type { ApiRequest, ApiResponse } from '../core/types.js'
import { OPERATIONS } from '../spec.js'
import type { Answered, AnswerListener } from './answers.js'
import { misuse } from './options.js'

/** What the listener reads of its world: where the API lives, and the scenario an answer without one came from. */
export interface TracedWorld {
  readonly basePath: string
  scenario(): string
}

/** The name of a request's span when it reaches no operation (a 404 or 405 of the routes, a proxied request). */
export const UNROUTED_SPAN = 'petstore-mock request'

type Otel = typeof import('@opentelemetry/api')

const ROUTES = new Map<string, string>(OPERATIONS.map((operation) => [operation.id, operation.path]))

/**
 * Node's own modules, reached without a static import: the package's main entry loads this file and must stay loadable
 * by a browser bundler (it finds no `node:` import here).
 */
const nodeBuiltin = <T>(name: string): T | undefined =>
  (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.(name) as T | undefined

/**
 * `@opentelemetry/api` and this package's version, loaded when a world asks for traces. Loaded with `require` so the
 * world is traced from its first request; another copy of the API in the process (the user's ES module) shares what an
 * SDK registered, as the API keeps it in one global registry for every copy.
 */
interface LoadedOtel {
  readonly api: Otel
  /** What the global proxy delegates to while no SDK is registered. */
  readonly noop: TracerProvider
  readonly version: string | undefined
}

function loadOtel(): LoadedOtel {
  const module = nodeBuiltin<typeof import('node:module')>('node:module')
  if (module === undefined) misuse('tracing: true needs a Node host (petstore-mock or petstore-mock/node), not a browser.')
  const require = module.createRequire(import.meta.url)
  let api: Otel
  try {
    api = require('@opentelemetry/api') as Otel
  } catch {
    return misuse('tracing: true needs @opentelemetry/api: npm i @opentelemetry/api (and an SDK that registers a tracer provider).')
  }
  let version: string | undefined
  try {
    version = (require('petstore-mock/package.json') as { version: string }).version
  } catch {
    version = undefined
  }
  return { api, noop: new api.ProxyTracerProvider().getDelegate(), version }
}

/** What one world's listener keeps: the tracer of the provider last seen, its keys' hashes, the last reset's ISO text. */
interface TracingState {
  tracerOf: { provider: TracerProvider; tracer: Tracer } | undefined
  readonly hashes: Map<string, string>
  /** A window's reset as ISO 8601, remembered: it is the same string for a whole minute of answers. */
  readonly isoOf: (seconds: number) => string
}

/** `seconds` as ISO 8601, the last one remembered. */
function rememberingIso(): (seconds: number) => string {
  let last = { seconds: Number.NaN, iso: '' }
  return (seconds) => {
    if (last.seconds !== seconds) last = { seconds, iso: new Date(seconds * 1000).toISOString() }
    return last.iso
  }
}

/**
 * The tracer of the provider registered now, or `undefined` while none is (the global proxy delegates to the no-op
 * provider): an SDK may register, or `trace.disable()`, at any time, and the global provider is a new object each time,
 * so the tracer is asked again only when it changed. Nothing is allocated while none is registered.
 */
function currentTracer({ api, noop, version }: LoadedOtel, state: TracingState): Tracer | undefined {
  const global = api.trace.getTracerProvider()
  const provider = global instanceof api.ProxyTracerProvider ? global.getDelegate() : global
  if (provider === noop) return undefined
  if (state.tracerOf?.provider !== provider) state.tracerOf = { provider, tracer: provider.getTracer('petstore-mock', version) }
  return state.tracerOf.tracer
}

/** The first 16 hex digits of the key's SHA-256: tells keys apart (even two with the same last 4 characters), never shows one. */
function keyHash(key: string, hashes: Map<string, string>): string | undefined {
  let hash = hashes.get(key)
  if (hash === undefined) {
    const crypto = nodeBuiltin<typeof import('node:crypto')>('node:crypto')
    if (crypto === undefined) return undefined
    hash = crypto.createHash('sha256').update(key).digest('hex').slice(0, 16)
    // Only keys the world knows are hashed (the answer names a plan): a bound for worlds with very many of them.
    if (hashes.size >= 1024) hashes.clear()
    hashes.set(key, hash)
  }
  return hash
}

/** The attribute each fact of a reason (src/core/reason.ts) is written to; a fact not listed (the key hint) is not. */
const ATTRIBUTE_OF: Readonly<Record<string, string>> = {
  plan: 'petstore.plan',
  window: 'petstore.window',
  used: 'petstore.window.used',
  limit: 'petstore.window.limit',
  resetsAt: 'petstore.window.resets_at',
  stage: 'petstore.stage',
  fault: 'petstore.fault',
  faultRule: 'petstore.fault_rule',
  decision: 'petstore.decision',
}

/** The facts of an answer, from its reason (src/core/reason.ts), read as the journal reads it (src/journal/entry.ts). */
function addReason(response: ApiResponse, scenario: string, attributes: Attributes, isoOf: (seconds: number) => string): void {
  const { meta } = response
  const { rule, facts } = reasonFacts(
    {
      status: response.status,
      headers: response.headers,
      rule: meta?.rule,
      plan: meta?.plan,
      keyHint: meta?.keyHint,
      scenario,
      stage: meta?.stage,
      fault: meta?.fault,
      faultRule: meta?.faultRule,
    },
    isoOf,
  )
  attributes['petstore.rule'] = rule
  for (const fact in facts) {
    const attribute = ATTRIBUTE_OF[fact]
    if (attribute !== undefined) attributes[attribute] = facts[fact]
  }
}

/** The span's attributes from the answer: its status, and its rule and facts. */
function answerAttributes(request: ApiRequest, response: ApiResponse, world: TracedWorld, state: TracingState): Attributes {
  const { meta } = response
  const scenario = meta?.scenario ?? world.scenario()
  const attributes: Attributes = { 'petstore.scenario': scenario }
  addReason(response, scenario, attributes, state.isoOf)
  if (response.drop === undefined) attributes['http.response.status_code'] = response.status
  const authorization = meta?.keyHint === undefined ? undefined : request.headers.authorization
  const key = typeof authorization === 'string' ? bearerToken(authorization) : undefined
  const hash = key === undefined ? undefined : keyHash(key, state.hashes)
  if (hash !== undefined) attributes['petstore.key.hash'] = hash
  return attributes
}

/** The span's status and error type: ERROR for a 5xx (OTel HTTP server semantic conventions), a dropped connection and a failure. */
function setOutcome(api: Otel, span: import('@opentelemetry/api').Span, { response, error }: Answered): void {
  const { SpanStatusCode } = api
  if (response === undefined) {
    span.recordException(error instanceof Error ? error : String(error))
    span.setAttribute('error.type', error instanceof Error ? error.name : 'Error')
    span.setStatus({ code: SpanStatusCode.ERROR })
  } else if (response.drop !== undefined) {
    span.setAttribute('error.type', response.drop)
    span.setStatus({ code: SpanStatusCode.ERROR, message: `connection dropped (${response.drop})` })
  } else if (response.status >= 500) {
    span.setAttribute('error.type', String(response.status))
    span.setStatus({ code: SpanStatusCode.ERROR })
  }
}

/**
 * The tracing listener of a world (src/world/create-world.ts, `WorldShared.traceAnswers`): each answer becomes a span
 * from the request's arrival to its answer. At creation only what a sampler may read (the HTTP server semantic
 * conventions' sampling-relevant attributes); a span its sampler drops gets nothing more.
 *
 * @example
 * const world = createWorld({ tracing: true }, data, { traceAnswers })
 */
export function traceAnswers(world: TracedWorld): AnswerListener {
  const otel = loadOtel()
  const { api } = otel
  const state: TracingState = { tracerOf: undefined, hashes: new Map(), isoOf: rememberingIso() }
  const { basePath } = world
  return (answered) => {
    const tracer = currentTracer(otel, state)
    if (tracer === undefined) return
    const { request, response, startedAt, endedAt } = answered
    const operation = operationOf(request, basePath)
    const attributes: Attributes = { 'http.request.method': request.method, 'url.path': request.path }
    const parent = api.propagation.extract(api.context.active(), request.headers)
    const options = { kind: api.SpanKind.SERVER, attributes, startTime: startedAt }
    const span = tracer.startSpan(operation ?? UNROUTED_SPAN, options, parent)
    if (!span.isRecording()) return
    if (operation !== undefined) span.setAttribute('http.route', `${basePath}${ROUTES.get(operation)}`)
    if (response !== undefined) span.setAttributes(answerAttributes(request, response, world, state))
    setOutcome(api, span, answered)
    span.end(endedAt)
  }
}
