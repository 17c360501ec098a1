/**
 * Admin routes that read or steer a world's behaviour: scenarios, the journal and its retry audit,
 * and what anyone may read (health, the OpenAPI document).
 */
import type { Express } from 'express'
import { plainMessage, StoreUnavailableError } from '../../core/errors.js'
import { openApiDocument } from '../../openapi.js'
import { listScenarios } from '../../scenarios/catalogue.js'
import type { Sessions } from '../sessions.js'
import type { AdminReads } from './admin-reads.js'
import { jsonBody, type RouteContext, refuse, worldOf } from './common.js'
import { journalPageRoute } from './journal-pages.js'

/**
 * @example
 * addScenarioRoutes(app, { changed: (value) => value })
 */
export function addScenarioRoutes(app: Express, ctx: RouteContext): void {
  app.get('/__mock/scenarios', (_req, res) => {
    const store = worldOf(res)
    const list = listScenarios(store.scenarios, store.scenario)
    res.json(list)
  })
  // The session's current scenario, in the shape PUT answers, so a client can read it back before or after a switch.
  app.get('/__mock/scenario', (_req, res) => {
    res.json({ scenario: worldOf(res).scenario })
  })
  app.put('/__mock/scenario', async (req, res) => {
    const body = jsonBody(req)
    if (!body.ok) return refuse(res, 'invalid_admin_request', body.message)
    const name = body.value.name
    if (typeof name !== 'string')
      return refuse(res, 'invalid_admin_request', 'Send { "name": "<scenario>" }; GET /__mock/scenarios lists them.')
    const store = worldOf(res)
    try {
      await store.useScenario(name)
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw error
      const message = plainMessage(error)
      return refuse(res, store.scenarios.has(name) ? 'invalid_admin_request' : 'unknown_scenario', message)
    }
    res.json(ctx.changed(res, { scenario: store.scenario }))
  })
}

/** The journal (`/__mock/requests`, streamed under the admin read budget) and the retry audit. */
export function addJournalRoutes(app: Express, reads: AdminReads): void {
  app.get('/__mock/requests', journalPageRoute(reads))
  app.get('/__mock/audit', (_req, res) => {
    res.json(worldOf(res).audit())
  })
  app.get('/__mock/coverage', (_req, res) => {
    res.json(worldOf(res).coverage())
  })
  app.get('/__mock/timeline', (_req, res) => {
    const world = worldOf(res)
    // A scenario without a timeline has no stages (docs/scenarios.md, "Timelines").
    res.json(world.timeline() ?? { scenario: world.scenario, current: null, stages: [] })
  })
  app.delete('/__mock/requests', (_req, res) => {
    worldOf(res).journal.clear()
    res.status(204).end()
  })
}

/** Health and the OpenAPI document. */
export function addInfoRoutes(
  app: Express,
  info: {
    sessions: Sessions
    startedAt: number
    serverUrl: () => string
    degraded: () => string | undefined
    maxNameLength?: number | undefined
  },
): void {
  const { sessions } = info
  app.get('/__mock/health', (_req, res) => {
    const reason = info.degraded()
    const { bytes, maxBytes, dropped } = sessions.journalBudget
    res.json({
      status: reason === undefined ? 'ok' : 'degraded',
      ...(reason === undefined ? {} : { reason }),
      sessions: sessions.size,
      maxSessions: sessions.max,
      // Where the API lives (`baseUrl`): the panel's first-request hint names it.
      basePath: sessions.main.basePath,
      journal: { bytes, maxBytes, dropped },
      uptimeSeconds: Math.round((Date.now() - info.startedAt) / 1000),
    })
  })
  app.get('/__mock/openapi.json', (_req, res) => {
    // The API lives under the world's base path (`baseUrl`, e.g. `/api/v1`), not always `/v1`.
    res.json(openApiDocument({ serverUrl: `${info.serverUrl()}${sessions.main.basePath}`, maxNameLength: info.maxNameLength }))
  })
}
