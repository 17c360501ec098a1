/**
 * `node --import ./bench/otel-register.mjs …`: what a user does to trace the standalone server: register an
 * OpenTelemetry SDK before it starts (docs/explain.md, "Traces"). A batch processor and an exporter that drops the
 * spans, so the cost measured is the spans' (the mock's and the SDK's), not an export's.
 */
import { propagation, trace } from '@opentelemetry/api'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace'

const dropping = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {}, forceFlush: async () => {} }
trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter: dropping })] }))
propagation.setGlobalPropagator(new W3CTraceContextPropagator())
