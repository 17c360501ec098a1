/**
 * Admin routes the control panel reads (docs/spec-decisions.md rows 54-56): one journal entry, the journal as HAR, and
 * the event stream. Each acts on the request's session.
 */
import { createRequire } from 'node:module'
import type { Express } from 'express'
import type { WorldAdmin } from '../../admin/world-admin.js'
import { viewJson } from '../../journal/view.js'
import type { AdminReads } from './admin-reads.js'
import { operate, refuse, sessionOf } from './common.js'
import { eventStreamRoute } from './event-stream.js'
import type { EventStreams } from './event-streams.js'
import { harRoute } from './journal-pages.js'

/** The package's version, for the HAR's `creator`: its own package.json, through the package's `./package.json` export. */
export function packageVersion(): string {
  try {
    return (createRequire(import.meta.url)('petstore-mock/package.json') as { version: string }).version
  } catch {
    return '0.0.0'
  }
}

/**
 * @example
 * addLiveRoutes(app, createWorldAdmin(parts), { streams, reads, serverUrl: () => 'http://127.0.0.1:4010' })
 */
export function addLiveRoutes(
  app: Express,
  admin: WorldAdmin,
  parts: { streams: EventStreams; reads: AdminReads; serverUrl: () => string },
): void {
  app.get('/__mock/requests.har', harRoute(parts.reads, { origin: parts.serverUrl, version: packageVersion(), session: sessionOf }))
  app.get('/__mock/requests/:seq', (req, res) => {
    const seq = req.params.seq
    if (!/^\d{1,15}$/.test(seq))
      return refuse(res, 'invalid_admin_request', `The entry's number must be a whole number, got ${JSON.stringify(seq)}.`)
    return operate(res, admin.request(Number(seq), sessionOf(res)), (entry) => {
      if (entry) return res.type('application/json').send(viewJson(entry))
      refuse(
        res,
        'route_not_found',
        `The journal of this session no longer keeps (or never had) entry ${seq}; GET /__mock/requests lists what it keeps.`,
      )
    })
  })
  app.get('/__mock/events', eventStreamRoute(parts.streams, parts.reads, sessionOf))
}
