/**
 * The admin API of the standalone server, under `/__mock` (never under `/v1`), served by express.
 * Every call acts on the session named by `X-Mock-Session` (default: the default world).
 */
import express, { type NextFunction, type Request, type Response } from 'express'
import { createGate, createWorldAdmin, type WorldAdminParts } from '../../admin/world-admin.js'
import { StoreUnavailableError } from '../../core/errors.js'
import { SESSION_NAME_RULE } from '../../core/refusals.js'
import { openApiDocument } from '../../openapi.js'
import type { ServerWorld } from '../../world/create-world.js'
import { IntegrationMissingError } from '../integrations.js'
import type { ServerMetrics } from '../metrics.js'
import { DEFAULT_SESSION, type Sessions } from '../sessions.js'
import { type AccessRule, adminAccess } from './access.js'
import type { AdminReads } from './admin-reads.js'
import { refuse } from './common.js'
import type { EventStreams } from './event-streams.js'
import { addKeyRoutes } from './key-routes.js'
import { addLiveRoutes, packageVersion } from './live-routes.js'
import { addMcpRoute } from './mcp-route.js'
import { addMetricsRoutes } from './metrics-routes.js'
import { addInfoRoutes, addJournalRoutes, addScenarioRoutes } from './routes.js'
import { addStateRoutes } from './state-routes.js'
import { addUiRoutes } from './ui-routes.js'
import { ADMIN_WRITE_MAX_BYTES, adminWriteBudget } from './write-budget.js'

export interface AdminOptions extends AccessRule {
  readonly sessions: Sessions
  readonly serverUrl: () => string
  /** The server's `maxNameLength`, stated by the OpenAPI document it serves. */
  readonly maxNameLength?: number | undefined
  readonly startedAt: number
  /**
   * Called after an admin call changed a session's world (before it answers), for the state file; `false`: it could not
   * be written there, and the call answers 503 `state_file_unavailable` (docs/spec-decisions.md row 65).
   */
  readonly onChange: (session: string, world: ServerWorld) => boolean
  /** The server's health beyond "ok": a reason when it is degraded (a state file that cannot be written). */
  readonly degraded: () => string | undefined
  /** The open event streams, which the server ends when it closes. */
  readonly streams: EventStreams
  /** The journal reads under way: their shared budget and their turns (admin-reads.ts). */
  readonly reads: AdminReads
  /** Why the shared store (`--redis`) is unreachable, if it is: changes are refused before they touch anything. */
  readonly storeProblem?: () => string | undefined
  /** The server's Prometheus metrics (`GET /__mock/metrics`). */
  readonly metrics?: ServerMetrics
}

/**
 * The admin reads of the whole server, not of a session: a session named with them (`X-Mock-Session`, `?session=`) is
 * not created, so a scraper or a health check never evicts a session under `maxSessions` (test/explain/metrics.test.ts).
 */
const SERVER_WIDE = new Set(['/__mock/metrics', '/__mock/health', '/__mock/openapi.json', '/__mock/sessions'])

/** Who may use the admin API, and which session a request acts on. */
function guard(options: AdminOptions) {
  return (req: Request, res: Response, next: NextFunction) => {
    const access = adminAccess(req.method, req.path, req.headers, options)
    if (!access.ok) {
      if (access.headers) res.set(access.headers)
      return refuse(res, access.code, access.message)
    }
    if (SERVER_WIDE.has(req.path)) return next()
    // `?session=` for what cannot send headers: the panel's links, `EventSource`, a HAR download.
    const query = req.query['session']
    const session = req.header('x-mock-session') ?? (typeof query === 'string' ? query : undefined)
    const problem = req.method === 'GET' || req.method === 'HEAD' ? undefined : options.storeProblem?.()
    if (problem !== undefined) {
      // A change now would reach this replica and not the shared world: refused whole, like an API request.
      res.set('retry-after', '1')
      return refuse(res, 'store_unavailable', `${problem}. Nothing was changed; retry in a moment.`)
    }
    const name = session === undefined || session === '' ? DEFAULT_SESSION : session
    const created = !options.sessions.has(name)
    const world = options.sessions.get(session)
    if (!world) return refuse(res, 'invalid_session', `X-Mock-Session must be ${SESSION_NAME_RULE}.`)
    // A refused call changes nothing: the session it named is not kept when this call made it.
    if (created) res.on('finish', () => res.statusCode >= 400 && options.sessions.drop(name))
    res.locals.world = world
    res.locals.session = name
    next()
  }
}

/** The server's sessions as the world admin sees them: each admin operation's world, health and documents. */
function worldAdminParts(options: AdminOptions): WorldAdminParts<ServerWorld> {
  const { sessions } = options
  const version = packageVersion()
  return {
    world: (name) => sessions.get(name),
    onChange: options.onChange,
    imports: createGate(1),
    // A state import gives the API a turn between slices of pets (src/snapshot-slices.ts).
    pause: () => new Promise<void>((resolve) => setImmediate(resolve)),
    // The API lives under the world's base path (`baseUrl`, e.g. `/api/v1`), not always `/v1`.
    openapi: () => openApiDocument({ serverUrl: `${options.serverUrl()}${sessions.main.basePath}`, maxNameLength: options.maxNameLength }),
    sessions: () => sessions.names(),
    health() {
      const reason = options.degraded()
      const { bytes, maxBytes, dropped } = sessions.journalBudget
      return {
        status: reason === undefined ? 'ok' : 'degraded',
        ...(reason === undefined ? {} : { reason }),
        sessions: sessions.size,
        maxSessions: sessions.max,
        // Where the API lives (`baseUrl`): the panel's first-request hint names it.
        basePath: sessions.main.basePath,
        journal: { bytes, maxBytes, dropped },
        uptimeSeconds: Math.round((Date.now() - options.startedAt) / 1000),
      }
    },
    har: () => ({ origin: options.serverUrl(), version }),
  }
}

/**
 * Builds the admin app.
 *
 * @example
 * const admin = createAdminApp({ sessions, token: undefined, serverUrl: () => url, startedAt: Date.now(), onChange })
 */
export function createAdminApp(options: AdminOptions): express.Express {
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  app.use(guard(options))
  app.use(adminWriteBudget(ADMIN_WRITE_MAX_BYTES))
  app.use(express.text({ type: () => true, limit: ADMIN_WRITE_MAX_BYTES }))
  const parts = worldAdminParts(options)
  // Every admin route is an operation of the one admin interface (src/admin/operations.ts) over this server's sessions.
  const admin = createWorldAdmin(parts)
  addInfoRoutes(app, admin)
  addStateRoutes(app, admin, options.reads)
  addScenarioRoutes(app, admin)
  addLiveRoutes(app, admin, options)
  addKeyRoutes(app, admin)
  addMcpRoute(app, parts)
  addJournalRoutes(app, admin, options.reads)
  if (options.metrics) addMetricsRoutes(app, options.metrics)
  addUiRoutes(app)
  app.use((req, res) =>
    refuse(
      res,
      'route_not_found',
      `No admin operation at ${req.method} ${req.path}. See GET /__mock/health and docs/server.md, "Admin API".`,
    ),
  )
  app.use((error: Error & { status?: number; type?: string }, _req: Request, res: Response, _next: NextFunction) => {
    if (error.type === 'entity.too.large')
      return refuse(res, 'payload_too_large', `Admin request body is larger than ${ADMIN_WRITE_MAX_BYTES / 1024 / 1024} MiB.`)
    if (error instanceof IntegrationMissingError) return refuse(res, 'integration_missing', `${error.message}.`)
    if (error instanceof StoreUnavailableError) {
      res.set('retry-after', '1')
      return refuse(res, 'store_unavailable', `${error.message}. Retry in a moment.`)
    }
    // The body parser's own refusals (charset, encoding, aborted body) are the client's mistakes.
    if (error.status !== undefined && error.status >= 400 && error.status < 500) {
      return refuse(
        res,
        error.status === 415 ? 'unsupported_media_type' : 'invalid_admin_request',
        `Admin request refused: ${error.message}.`,
      )
    }
    console.error('[petstore-mock] Admin API error:', error)
    refuse(res, 'internal_error', 'The admin API failed unexpectedly; the server log has the details.')
  })
  return app
}
