/**
 * OpenTelemetry traces of the API's requests, for Node hosts only (the standalone server, `createPetStore` and
 * `setupPetStoreServer` of the Node entries): the browser bundle never loads it (test/browser/bundle.test.ts).
 * One SERVER span per request, named after its operation, continuing the caller's `traceparent`, with the answer's
 * reason (src/core/reason.ts) as attributes (docs/explain.md, "Traces"). Opt-in through `@opentelemetry/api`: while no
 * SDK registered a tracer provider, a request costs one property read and allocates nothing, and the API is not even
 * loaded (importing it costs tens of milliseconds, paid by every test file that imports the package).
 */
import type { Attributes, Context, Span, Tracer, TracerProvider } from '@opentelemetry/api'
import type { Api } from '../core/api.js'
import { operationOf } from '../core/api.js'
import { bearerToken } from '../core/auth.js'
import { reasonFacts } from '../core/reason.js'
import type { ApiRequest, ApiResponse, ApiResult } from '../core/types.js'
import { OPERATIONS } from '../spec.js'

/** What the step reads of its world: where the API lives, and the scenario an answer without one came from. */
export interface TracedWorld {
  readonly basePath: string
  scenario(): string
}

/** The name of a request's span when it reaches no operation (a 404 or 405 of the routes, a proxied request). */
export const UNROUTED_SPAN = 'petstore-mock request'

/** `@opentelemetry/api`, loaded once a tracer provider is registered. */
type Otel = typeof import('@opentelemetry/api')

/**
 * Where `@opentelemetry/api` 1.x keeps what an SDK registered (its `internal/global-utils`): `trace` is set by
 * `trace.setGlobalTracerProvider` and removed by `trace.disable()`. Read to learn, without loading the API, whether
 * there is anything to trace.
 */
const OTEL_GLOBAL = Symbol.for('opentelemetry.js.api.1')
const providerRegistered = (): boolean => (globalThis as { [OTEL_GLOBAL]?: { trace?: unknown } })[OTEL_GLOBAL]?.trace !== undefined
const ROUTES = new Map<string, string>(OPERATIONS.map((operation) => [operation.id, operation.path]))

/**
 * Node's own modules, reached without a static import: the package's main entry loads this file and must stay loadable
 * by a browser bundler (it finds no `node:` import here); in a browser nothing is traced anyway.
 */
const nodeBuiltin = <T>(name: string): T | undefined =>
  (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.(name) as T | undefined

/** This package's version, for the tracer's instrumentation scope; read once per world, when tracing first starts. */
function packageVersion(): string | undefined {
  try {
    const module = nodeBuiltin<typeof import('node:module')>('node:module')
    return (module?.createRequire(import.meta.url)('petstore-mock/package.json') as { version: string } | undefined)?.version
  } catch {
    return undefined
  }
}

/** What one world's tracing step keeps: the API once loaded, the tracer of the provider last seen, its keys' hashes. */
interface TracingState {
  otel: { api: Otel; noop: TracerProvider } | undefined
  loading: Promise<void> | undefined
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
 * The tracer of the registered provider, or `undefined` while none is registered. Read on every request (an SDK may
 * register or `trace.disable()` at any time), with no allocation: the global proxy's delegate is compared with the no-op.
 */
function currentTracer(state: TracingState, { api, noop }: NonNullable<TracingState['otel']>): Tracer | undefined {
  const global = api.trace.getTracerProvider()
  const provider = global instanceof api.ProxyTracerProvider ? global.getDelegate() : global
  if (provider === noop) return undefined
  if (state.tracerOf?.provider !== provider) state.tracerOf = { provider, tracer: provider.getTracer('petstore-mock', packageVersion()) }
  return state.tracerOf.tracer
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/

/**
 * The caller's context: through the registered propagator, or, when none is registered (`propagation.fields()` is
 * empty), from the W3C `traceparent` and `tracestate` headers read here (W3C Trace Context, section 3.2), so a span
 * continues its caller's trace with a bare `trace.setGlobalTracerProvider` too (docs/spec-decisions.md row 64).
 */
function parentOf(api: Otel, headers: ApiRequest['headers']): Context {
  const { context, propagation, trace } = api
  const active = context.active()
  if (propagation.fields().length > 0) return propagation.extract(active, headers)
  const parent = headers.traceparent
  const match = typeof parent === 'string' ? TRACEPARENT.exec(parent.trim()) : null
  // Version ff is invalid; version 00 has exactly four fields.
  if (!match || match[1] === 'ff' || (match[1] === '00' && match[5] !== undefined)) return active
  const state = headers.tracestate
  const spanContext = {
    traceId: match[2] as string,
    spanId: match[3] as string,
    traceFlags: Number.parseInt(match[4] as string, 16) & 1,
    isRemote: true,
    ...(typeof state === 'string' && state !== '' ? { traceState: api.createTraceState(state) } : {}),
  }
  return api.isSpanContextValid(spanContext) ? trace.setSpanContext(active, spanContext) : active
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

/** Ends the span with the answer: ERROR for a 5xx (OTel HTTP server semantic conventions) and for a dropped connection. */
function endWith(span: Span, request: ApiRequest, response: ApiResponse, world: TracedWorld, state: TracingState): ApiResponse {
  const { SpanStatusCode } = (state.otel as NonNullable<TracingState['otel']>).api
  span.setAttributes(answerAttributes(request, response, world, state))
  if (response.drop !== undefined) {
    span.setAttribute('error.type', response.drop)
    span.setStatus({ code: SpanStatusCode.ERROR, message: `connection dropped (${response.drop})` })
  } else if (response.status >= 500) {
    span.setAttribute('error.type', String(response.status))
    span.setStatus({ code: SpanStatusCode.ERROR })
  }
  span.end()
  return response
}

/** Ends the span of a request the pipeline failed on (a bug, or a store error no step answered), and rethrows. */
function endFailed(span: Span, error: unknown, { SpanStatusCode }: Otel): never {
  span.recordException(error instanceof Error ? error : String(error))
  span.setAttribute('error.type', error instanceof Error ? error.name : 'Error')
  span.setStatus({ code: SpanStatusCode.ERROR })
  span.end()
  throw error
}

/** Starts the request's span: named after the operation its method and path route to, under the caller's context. */
function startSpan(api: Otel, tracer: Tracer, request: ApiRequest, world: TracedWorld): { span: Span; parent: Context } {
  const { basePath } = world
  const operation = operationOf(request, basePath)
  // At creation only what a sampler may read (the HTTP server semantic conventions' sampling-relevant attributes): the
  // SDK checks creation attributes twice, each value allocating as it goes, so the route is set after.
  const attributes: Attributes = { 'http.request.method': request.method, 'url.path': request.path }
  const parent = parentOf(api, request.headers)
  const span = tracer.startSpan(operation ?? UNROUTED_SPAN, { kind: api.SpanKind.SERVER, attributes }, parent)
  if (operation !== undefined) span.setAttribute('http.route', `${basePath}${ROUTES.get(operation)}`)
  return { span, parent }
}

/**
 * The tracing step, outermost in a world's pipeline (src/world/create-world.ts, `WorldShared.trace`): with no tracer
 * provider registered, or a span its sampler drops, the request goes straight on.
 *
 * @example
 * const world = createWorld(options, data, { trace: withTracing })
 */
export function withTracing(next: Api, world: TracedWorld): Api {
  const state: TracingState = { otel: undefined, loading: undefined, tracerOf: undefined, hashes: new Map(), isoOf: rememberingIso() }
  const traced = (request: ApiRequest, otel: NonNullable<TracingState['otel']>): ApiResult => {
    const tracer = currentTracer(state, otel)
    if (tracer === undefined) return next.handle(request)
    const { span, parent } = startSpan(otel.api, tracer, request, world)
    if (!span.isRecording()) {
      span.end()
      return next.handle(request)
    }
    try {
      const result = otel.api.context.with(otel.api.trace.setSpan(parent, span), () => next.handle(request))
      return result instanceof Promise
        ? result.then(
            (response) => endWith(span, request, response, world, state),
            (error: unknown) => endFailed(span, error, otel.api),
          )
        : endWith(span, request, result, world, state)
    } catch (error) {
      return endFailed(span, error, otel.api)
    }
  }
  return {
    handle(request) {
      if (state.otel !== undefined) return traced(request, state.otel)
      if (!providerRegistered()) return next.handle(request)
      // The first request after an SDK registered waits for the API to load, then is traced like the rest.
      state.loading ??= import('@opentelemetry/api').then((api) => {
        state.otel = { api, noop: new api.ProxyTracerProvider().getDelegate() }
      })
      return state.loading.then(() => traced(request, state.otel as NonNullable<TracingState['otel']>))
    },
  }
}
