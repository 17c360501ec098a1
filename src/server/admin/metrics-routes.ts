/**
 * `GET /__mock/metrics`: the server's Prometheus metrics (docs/explain.md, "Metrics"), under the admin API's rules like
 * every `/__mock` call (access.ts): they name the operations, plans and faults a test suite exercised.
 */
import type { Express } from 'express'
import type { ServerMetrics } from '../metrics.js'

/**
 * @example
 * addMetricsRoutes(app, createServerMetrics(sessions))
 */
export function addMetricsRoutes(app: Express, metrics: ServerMetrics): void {
  app.get('/__mock/metrics', async (_req, res) => {
    const { contentType, text } = await metrics.scrape()
    res.set('content-type', contentType).set('cache-control', 'no-store').send(text)
  })
}
