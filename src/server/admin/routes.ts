/**
 * Admin routes that read or steer a world's behaviour: scenarios, the journal and its retry audit, and what anyone may
 * read (health, the OpenAPI document). Each is the admin operation of the same name (src/admin/operations.ts).
 */
import type { Express } from 'express'
import type { WorldAdmin } from '../../admin/world-admin.js'
import type { AdminReads } from './admin-reads.js'
import { jsonBody, operate, refuse, sessionOf } from './common.js'
import { journalPageRoute } from './journal-pages.js'

/**
 * @example
 * addScenarioRoutes(app, createWorldAdmin(parts))
 */
export function addScenarioRoutes(app: Express, admin: WorldAdmin): void {
  app.get('/__mock/scenarios', (_req, res) => operate(res, admin.scenarios(sessionOf(res)), (list) => res.json(list)))
  app.get('/__mock/scenarios/:name', (req, res) => operate(res, admin.scenario(req.params.name, sessionOf(res)), (file) => res.json(file)))
  // The session's current scenario, in the shape PUT answers, so a client can read it back before or after a switch.
  app.get('/__mock/scenario', (_req, res) => operate(res, admin.currentScenario(sessionOf(res)), (scenario) => res.json({ scenario })))
  app.put('/__mock/scenario', (req, res) => {
    const body = jsonBody(req)
    if (!body.ok) return refuse(res, 'invalid_admin_request', body.message)
    const name = body.value.name
    if (typeof name !== 'string')
      return refuse(res, 'invalid_admin_request', 'Send { "name": "<scenario>" }; GET /__mock/scenarios lists them.')
    return operate(res, admin.useScenario(name, sessionOf(res)), (scenario) => res.json({ scenario }))
  })
}

/** The journal (`/__mock/requests`, streamed under the admin read budget), its retry audit, coverage and timeline. */
export function addJournalRoutes(app: Express, admin: WorldAdmin, reads: AdminReads): void {
  app.get('/__mock/requests', journalPageRoute(reads))
  app.get('/__mock/audit', (_req, res) => operate(res, admin.audit(sessionOf(res)), (audit) => res.json(audit)))
  app.get('/__mock/coverage', (_req, res) => operate(res, admin.coverage(sessionOf(res)), (coverage) => res.json(coverage)))
  app.get('/__mock/timeline', (_req, res) => operate(res, admin.timeline(sessionOf(res)), (timeline) => res.json(timeline)))
  app.delete('/__mock/requests', (_req, res) => operate(res, admin.clearJournal(sessionOf(res)), () => res.status(204).end()))
}

/** Health, the sessions and the OpenAPI document: the server's, not a session's. */
export function addInfoRoutes(app: Express, admin: WorldAdmin): void {
  app.get('/__mock/health', (_req, res) => operate(res, admin.health(), (health) => res.json(health)))
  app.get('/__mock/sessions', (_req, res) => operate(res, admin.sessions(), (names) => res.json(names)))
  app.get('/__mock/openapi.json', (_req, res) => operate(res, admin.openapi(), (document) => res.json(document)))
}
