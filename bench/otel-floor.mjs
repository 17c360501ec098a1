/**
 * `node --import ./bench/otel-floor.mjs …`: the least one span per request can cost the standalone server: the same SDK
 * as bench/otel-register.mjs (batch processor, an exporter that drops), but not registered globally (and the mock runs
 * without `--tracing`), and a bare SERVER span with no attributes started and ended around each request from Node's
 * `http.server.request.start` and `http.server.response.finish` diagnostics channels (the way HTTP instrumentations do).
 */
import { subscribe } from 'node:diagnostics_channel'
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace'

const dropping = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {}, forceFlush: async () => {} }
const tracer = new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter: dropping })] }).getTracer('floor')
const spans = new WeakMap()
subscribe('http.server.request.start', ({ request }) => spans.set(request, tracer.startSpan('request', { kind: 1 })))
subscribe('http.server.response.finish', ({ request }) => spans.get(request)?.end())
