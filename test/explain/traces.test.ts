/**
 * Traces (docs/explain.md, "Traces"): with `tracing: true` and an OpenTelemetry SDK registered, every request of the
 * Node hosts (in-process and the standalone server) is one SERVER span named after its operation, continuing the
 * caller's `traceparent` through the registered propagator, carrying the answer's reason as the journal records it, and
 * never a key. With no SDK, or without `tracing`, nothing is recorded.
 */
import { createHash } from 'node:crypto'
import { type Attributes, propagation, SamplingDecision, SpanStatusCode, trace } from '@opentelemetry/api'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace'
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createPetStore, type JournalEntry } from '../../src/index.js'
import { setupPetStoreServer } from '../../src/node.js'
import { closeServers, startServer } from '../http/support.js'
import { type Driver, type Played, playSequence, SEQUENCE_KEYS } from './sequence.js'

const exporter = new InMemorySpanExporter()
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
const PARENT_ID = '00f067aa0ba902b7'
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`

/** Registers an SDK as a user's vitest setup file would; `w3c: false` leaves the propagator unregistered. */
function registerSdk({ w3c }: { w3c: boolean }): void {
  trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }))
  if (w3c) propagation.setGlobalPropagator(new W3CTraceContextPropagator())
}

function unregisterSdk(): void {
  trace.disable()
  propagation.disable()
  exporter.reset()
}

const OPTIONS = { keys: SEQUENCE_KEYS, clock: '2026-06-01T12:00:00Z', tracing: true }
const headersOf = (init: { key?: string; headers?: Record<string, string> } = {}) => ({
  ...(init.key ? { authorization: `Bearer ${init.key}` } : {}),
  ...init.headers,
})
const hashOf = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 16)

/** Counts the requests a driver sent: the run sends more than it plays (the requests that fill a window). */
function counting(driver: Driver): Driver & { sent: () => number } {
  let sent = 0
  return {
    send: (path, init) => {
      sent += 1
      return driver.send(path, init)
    },
    setClock: (iso) => driver.setClock(iso),
    sent: () => sent,
  }
}

/** The attribute each fact of a reason is written to (src/world/tracing.ts). */
const ATTRIBUTE_OF: Record<string, string> = {
  plan: 'petstore.plan',
  window: 'petstore.window',
  used: 'petstore.window.used',
  limit: 'petstore.window.limit',
  resetsAt: 'petstore.window.resets_at',
  scenario: 'petstore.scenario',
  stage: 'petstore.stage',
  fault: 'petstore.fault',
  faultRule: 'petstore.fault_rule',
  decision: 'petstore.decision',
}

/** The span of each played step (spans end in the order of the requests: the run sends one at a time). */
function checkRun(played: Played[], spans: ReadableSpan[], entries: readonly JournalEntry[] | undefined): void {
  for (const { step, response, seq } of played) {
    const span = spans[seq - 1]
    expect(span, step.label).toBeDefined()
    if (!span) continue
    const path = new URL(response.url || 'http://x/').pathname
    const { attributes } = span
    expect(span.kind, step.label).toBe(1) // SpanKind.SERVER
    expect(attributes['petstore.rule'], step.label).toBe(step.rule)
    expect(attributes['http.response.status_code'], step.label).toBe(step.status)
    expect(attributes['http.request.method'], step.label).toBe('GET')
    expect(span.status.code, step.label).toBe(step.status >= 500 ? SpanStatusCode.ERROR : SpanStatusCode.UNSET)
    const facts = Object.fromEntries(Object.entries(step.facts ?? {}).map(([fact, value]) => [ATTRIBUTE_OF[fact] ?? fact, value]))
    expect(attributes, step.label).toMatchObject(facts)
    if (path !== '/') expect(attributes['url.path'], step.label).toBe(path)
    const entry = entries?.find((candidate) => candidate.seq === seq)
    if (entries) {
      expect(entry?.rule, step.label).toBe(attributes['petstore.rule'])
      for (const [fact, value] of Object.entries(entry?.reason.facts ?? {}))
        if (ATTRIBUTE_OF[fact]) expect(attributes[ATTRIBUTE_OF[fact]], `${step.label}: ${fact}`).toBe(value)
    }
  }
  const byLabel = new Map(played.map(({ step, seq }) => [step.label, spans[seq - 1]]))
  expect(byLabel.get('200')?.name).toBe('listPets')
  expect(byLabel.get('200')?.attributes['http.route']).toBe('/v1/pets')
  expect(byLabel.get('200')?.attributes['petstore.key.hash']).toBe(hashOf('test-free'))
  expect(byLabel.get('404')?.name).toBe('getPet')
  expect(byLabel.get('404')?.attributes['http.route']).toBe('/v1/pets/{petId}')
  expect(byLabel.get('404')?.attributes['petstore.key.hash']).toBe(hashOf('test-pro'))
  expect(byLabel.get('429 day')?.attributes['petstore.key.hash']).toBe(hashOf('test-day-once'))
  expect(byLabel.get('401')?.attributes['petstore.key.hash']).toBeUndefined()
  expect(byLabel.get('seeded 503')?.attributes['petstore.scenario']).toBe('outage')
  // No key, whole or as `Bearer <key>`, in any attribute of any span.
  const values = spans.flatMap((span) => Object.values(span.attributes).map(String))
  for (const { key } of SEQUENCE_KEYS) expect(values.filter((value) => value.includes(key))).toEqual([])
}

afterEach(unregisterSdk)
afterAll(closeServers)

describe('traces in-process (createPetStore)', () => {
  beforeEach(() => registerSdk({ w3c: true }))

  it('records one SERVER span per request, with the answer’s rule and facts as the journal records them', async () => {
    const petStore = createPetStore(OPTIONS)
    const driver = counting({
      send: (path, init) => petStore.fetch(path, { headers: headersOf(init) }),
      setClock: async (iso) => petStore.clock.set(iso),
    })
    const played = await playSequence(driver)
    const spans = exporter.getFinishedSpans()
    expect(spans).toHaveLength(driver.sent())
    expect(new Set(spans.map((span) => span.instrumentationScope.name))).toEqual(new Set(['petstore-mock']))
    checkRun(played, spans, petStore.journal.all())
  })

  it('continues the caller’s traceparent, and names a request routed to no operation "petstore-mock request"', async () => {
    const petStore = createPetStore(OPTIONS)
    await petStore.fetch('/v1/pets', { headers: { authorization: 'Bearer test-pro', traceparent: TRACEPARENT } })
    await petStore.fetch('/v1/nowhere', { headers: { authorization: 'Bearer test-pro' } })
    const [traced, unrouted] = exporter.getFinishedSpans()
    expect(traced?.spanContext().traceId).toBe(TRACE_ID)
    expect(traced?.parentSpanContext?.spanId).toBe(PARENT_ID)
    expect(traced?.parentSpanContext?.isRemote).toBe(true)
    expect(unrouted?.name).toBe('petstore-mock request')
    expect(unrouted?.attributes['petstore.rule']).toBe('route.not-found')
    expect(unrouted?.attributes['http.route']).toBeUndefined()
    expect(unrouted?.parentSpanContext).toBeUndefined()
  })

  it('records nothing for a request its sampler drops, and answers it as usual', async () => {
    // The SDK's default sampler follows the parent: flags 00 in traceparent mean "not sampled" (W3C Trace Context 3.2.2.5).
    const petStore = createPetStore(OPTIONS)
    const unsampled = `00-${TRACE_ID}-${PARENT_ID}-00`
    const response = await petStore.fetch('/v1/pets?limit=1', { headers: { authorization: 'Bearer test-pro', traceparent: unsampled } })
    expect(response.status).toBe(200)
    expect(await response.json()).toHaveLength(1)
    expect(exporter.getFinishedSpans()).toEqual([])
    expect(petStore.journal.all().map((entry) => entry.rule)).toEqual(['ok'])
  })

  it('gives a sampler the method and path at the span’s creation (the sampling-relevant HTTP server attributes)', async () => {
    trace.disable()
    const seen: { name: string; attributes: Attributes }[] = []
    const sampler = {
      shouldSample: (_context: unknown, _traceId: string, name: string, _kind: unknown, attributes: Attributes) => {
        seen.push({ name, attributes: { ...attributes } })
        return { decision: SamplingDecision.RECORD_AND_SAMPLED }
      },
      toString: () => 'recording',
    }
    trace.setGlobalTracerProvider(new TracerProvider({ sampler, spanProcessors: [new SimpleSpanProcessor({ exporter })] }))
    const petStore = createPetStore(OPTIONS)
    await petStore.fetch('/v1/pets/3', { headers: { authorization: 'Bearer test-pro' } })
    expect(seen).toEqual([{ name: 'getPet', attributes: { 'http.request.method': 'GET', 'url.path': '/v1/pets/3' } }])
    expect(exporter.getFinishedSpans()[0]?.attributes['http.route']).toBe('/v1/pets/{petId}')
  })

  it('ends the span of a dropped connection with an error status', async () => {
    const drops = { name: 'drops', description: 'every request dropped', faults: [{ chaos: true, fault: { type: 'network-error' } }] }
    const petStore = createPetStore({ ...OPTIONS, scenarios: [drops], scenario: 'drops' })
    await expect(petStore.fetch('/v1/pets', { headers: { authorization: 'Bearer test-pro' } })).rejects.toThrow()
    const [span] = exporter.getFinishedSpans()
    expect(span?.status.code).toBe(SpanStatusCode.ERROR)
    expect(span?.attributes['error.type']).toBe('network-error')
    expect(span?.attributes['petstore.fault']).toBe('network-error')
    expect(span?.attributes['http.response.status_code']).toBeUndefined()
  })

  it('traces the requests msw answers (setupPetStoreServer)', async () => {
    const { server } = setupPetStoreServer(OPTIONS)
    server.listen({ onUnhandledRequest: 'error' })
    try {
      const response = await fetch('https://api.petstore.test/v1/pets/1', {
        headers: { authorization: 'Bearer test-free', traceparent: TRACEPARENT },
      })
      expect(response.status).toBe(200)
    } finally {
      server.close()
    }
    const [span] = exporter.getFinishedSpans()
    expect(span?.name).toBe('getPet')
    expect(span?.attributes).toMatchObject({ 'petstore.rule': 'ok', 'petstore.plan': 'free', 'http.route': '/v1/pets/{petId}' })
    expect(span?.parentSpanContext?.spanId).toBe(PARENT_ID)
  })
})

describe('traces over HTTP (the standalone server)', () => {
  beforeEach(() => registerSdk({ w3c: true }))

  it('records the same spans for the scripted run, and continues the caller’s traceparent', async () => {
    const { server, url } = await startServer(OPTIONS)
    const driver = counting({
      send: (path, init) => fetch(`${url}${path}`, { headers: headersOf(init) }),
      setClock: async (iso) => server.petStore.clock.set(iso),
    })
    const played = await playSequence(driver)
    expect(exporter.getFinishedSpans()).toHaveLength(driver.sent())
    checkRun(played, exporter.getFinishedSpans(), server.petStore.journal.all())
    exporter.reset()
    await (await fetch(`${url}/v1/pets`, { headers: { authorization: 'Bearer test-pro', traceparent: TRACEPARENT } })).arrayBuffer()
    const [span] = exporter.getFinishedSpans()
    expect(span?.spanContext().traceId).toBe(TRACE_ID)
    expect(span?.parentSpanContext?.spanId).toBe(PARENT_ID)
  })
})

describe('traces with a tracer provider and no propagator registered', () => {
  beforeEach(() => registerSdk({ w3c: false }))

  it('starts a new trace: only a registered propagator reads traceparent (docs/spec-decisions.md row 64)', async () => {
    const petStore = createPetStore(OPTIONS)
    await petStore.fetch('/v1/pets', { headers: { authorization: 'Bearer test-pro', traceparent: TRACEPARENT } })
    const [span] = exporter.getFinishedSpans()
    expect(span?.name).toBe('listPets')
    expect(span?.spanContext().traceId).not.toBe(TRACE_ID)
    expect(span?.parentSpanContext).toBeUndefined()
  })
})

describe('without tracing: true', () => {
  beforeEach(() => registerSdk({ w3c: true }))

  it('records no span though an SDK is registered, in-process and over HTTP', async () => {
    const { tracing: _, ...untraced } = OPTIONS
    const petStore = createPetStore(untraced)
    expect((await petStore.fetch('/v1/pets', { headers: { authorization: 'Bearer test-pro' } })).status).toBe(200)
    const { url } = await startServer(untraced)
    expect((await fetch(`${url}/v1/pets`, { headers: { authorization: 'Bearer test-pro' } })).status).toBe(200)
    expect(exporter.getFinishedSpans()).toEqual([])
  })

  it('is refused by the browser entry, which has no tracing, with a message naming the Node entries', async () => {
    const { createPetStore: createBrowserPetStore } = await import('../../src/browser.js')
    expect(() => createBrowserPetStore({ tracing: true })).toThrow(
      /tracing: true needs a Node host \(petstore-mock or petstore-mock\/node\)/,
    )
  })
})

describe('without an SDK', () => {
  it('answers as before and records no span, also once an SDK that was registered is disabled', async () => {
    const petStore = createPetStore(OPTIONS)
    const send = (path: string, init?: { key?: string; headers?: Record<string, string> }) =>
      petStore.fetch(path, { headers: { ...headersOf(init), traceparent: TRACEPARENT } })
    registerSdk({ w3c: true })
    await (await send('/v1/pets', { key: 'test-pro' })).arrayBuffer()
    expect(exporter.getFinishedSpans()).toHaveLength(1)
    trace.disable()
    propagation.disable()
    exporter.reset()
    const played = await playSequence({ send, setClock: async (iso) => petStore.clock.set(iso) })
    expect(played.map(({ response }) => response.status)).toEqual(played.map(({ step }) => step.status))
    expect(exporter.getFinishedSpans()).toEqual([])
    expect(trace.getActiveSpan()).toBeUndefined()
  })
})
