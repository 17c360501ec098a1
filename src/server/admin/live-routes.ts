/**
 * Admin routes the control panel reads (docs/spec-decisions.md rows 54-56): the live sessions, the keys' quota, one journal
 * entry, the journal as HAR, and the event stream. Each acts on the request's session.
 */
import { createRequire } from 'node:module'
import type { Express, Response } from 'express'
import { entryView, viewJson } from '../../journal/view.js'
import type { Sessions } from '../sessions.js'
import type { AdminReads } from './admin-reads.js'
import { refuse, worldOf } from './common.js'
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

const sessionOf = (res: Response): string => res.locals.session as string

/**
 * @example
 * addLiveRoutes(app, { sessions, streams, reads, serverUrl: () => 'http://127.0.0.1:4010' })
 */
export function addLiveRoutes(
  app: Express,
  parts: { sessions: Sessions; streams: EventStreams; reads: AdminReads; serverUrl: () => string },
): void {
  const version = packageVersion()
  app.get('/__mock/sessions', (_req, res) => {
    res.json(parts.sessions.names())
  })
  app.get('/__mock/keys', (_req, res) => {
    res.json(worldOf(res).keyStatuses())
  })
  app.get(
    '/__mock/requests.har',
    harRoute(parts.reads, {
      origin: parts.serverUrl,
      version,
      session: sessionOf,
    }),
  )
  app.get('/__mock/requests/:seq', (req, res) => {
    const seq = req.params.seq
    if (!/^\d{1,15}$/.test(seq))
      return refuse(res, 'invalid_admin_request', `The entry's number must be a whole number, got ${JSON.stringify(seq)}.`)
    const entry = worldOf(res).journal.get(Number(seq))
    if (!entry) {
      return refuse(
        res,
        'route_not_found',
        `The journal of this session no longer keeps (or never had) entry ${seq}; GET /__mock/requests lists what it keeps.`,
      )
    }
    res.type('application/json').send(viewJson(entryView(entry)))
  })
  app.get('/__mock/events', eventStreamRoute(parts.streams, parts.reads, sessionOf))
}
