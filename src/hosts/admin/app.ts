/**
 * The admin API of the standalone server, under `/__mock` (never under `/v1`), served by express.
 * Every call acts on the session named by `X-Mock-Session` (default: the default world).
 */
import { timingSafeEqual } from 'node:crypto'
import express, { type NextFunction, type Request, type Response } from 'express'
import { bearerToken } from '../../core/auth.js'
import type { Sessions } from '../sessions.js'
import { type RouteContext, refuse } from './common.js'
import { addInfoRoutes, addJournalRoutes, addScenarioRoutes } from './routes.js'
import { addClockRoute, addStateRoutes } from './state-routes.js'

export interface AdminOptions {
  readonly sessions: Sessions
  /** `undefined`: open (loopback). A string: required as `Authorization: Bearer <token>`. `false`: off. */
  readonly token: string | undefined | false
  readonly serverUrl: () => string
  readonly startedAt: number
  /** Called after a change to any world, for state saving. */
  readonly onChange: () => void
}

/** Whether `authorization` carries `token` as a Bearer token (scheme case-insensitive, as in the API; compared in constant time). */
export function hasAdminToken(authorization: string | undefined, token: string): boolean {
  const given = Buffer.from(bearerToken(authorization) ?? '')
  const expected = Buffer.from(token)
  // Always compare, equal lengths only, so the time says nothing about the token.
  const same = timingSafeEqual(given.length === expected.length ? given : expected, expected)
  return same && given.length === expected.length
}

/** Who may use the admin API, and which session a request acts on. */
function guard(options: AdminOptions) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (options.token === false) {
      return refuse(res, 'admin_disabled', 'The admin API is off: the server listens on a non-loopback address without --admin-token.')
    }
    if (options.token !== undefined && !hasAdminToken(req.headers.authorization, options.token)) {
      res.set('www-authenticate', 'Bearer')
      return refuse(res, 'admin_unauthorized', 'The admin API needs "Authorization: Bearer <admin token>" (the --admin-token value).')
    }
    const world = options.sessions.get(req.header('x-mock-session'))
    if (!world) return refuse(res, 'invalid_session', 'X-Mock-Session must be 1-64 characters of letters, digits, ".", "_", ":" or "-".')
    res.locals.world = world
    next()
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
  app.use(express.text({ type: () => true, limit: '64mb' }))
  const ctx: RouteContext = {
    changed(value) {
      options.onChange()
      return value
    },
  }
  addInfoRoutes(app, options)
  addStateRoutes(app, ctx)
  addClockRoute(app, ctx)
  addScenarioRoutes(app, ctx)
  addJournalRoutes(app)
  app.use((req, res) =>
    refuse(res, 'route_not_found', `No admin operation at ${req.method} ${req.path}. See GET /__mock/health and the README, "Admin API".`),
  )
  app.use((error: Error & { status?: number; type?: string }, _req: Request, res: Response, _next: NextFunction) => {
    if (error.type === 'entity.too.large') return refuse(res, 'payload_too_large', 'Admin request body is larger than 64 MiB.')
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
