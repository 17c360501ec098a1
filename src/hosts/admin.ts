/**
 * The admin API of the standalone server, under `/__mock` (never under `/v1`), served by express.
 * Every call acts on the session named by `X-Mock-Session` (default: the default world).
 */
import express, { type NextFunction, type Request, type Response } from 'express'
import { toEpochMs } from '../clock.js'
import { type ErrorCode, plainMessage, problem } from '../core/errors.js'
import type { JournalFilter } from '../core/journal.js'
import { stringifyJson } from '../core/json.js'
import type { ApiResponse } from '../core/types.js'
import { openApiDocument } from '../openapi.js'
import { stringifySnapshot } from '../snapshot.js'
import type { World as PetStore } from '../world.js'
import type { Sessions } from './sessions.js'

export interface AdminOptions {
  readonly sessions: Sessions
  /** `undefined`: open (loopback). A string: required as `Authorization: Bearer <token>`. `false`: off. */
  readonly token: string | undefined | false
  readonly serverUrl: () => string
  readonly startedAt: number
  /** Called after a change to any world, for state saving. */
  readonly onChange: () => void
}

function send(res: Response, response: ApiResponse): void {
  res.status(response.status).set(response.headers).send(response.body)
}

const fail = (res: Response, code: ErrorCode, message: string) => send(res, problem(code, message))

function clockState(store: PetStore) {
  const { frozenAt, offset } = store.clock.snapshot()
  return { now: new Date(store.clock.now()).toISOString(), frozen: frozenAt !== null, offsetMs: offset }
}

function journalFilter(query: Request['query']): JournalFilter | string {
  const filter: JournalFilter = {}
  const text = (name: string) => (typeof query[name] === 'string' ? (query[name] as string) : undefined)
  const method = text('method')
  const path = text('path')
  const status = text('status')
  if (method !== undefined) filter.method = method
  if (path !== undefined) filter.path = path
  if (status !== undefined) {
    if (!/^\d{3}$/.test(status)) return `status must be a 3-digit HTTP status, got ${JSON.stringify(status)}.`
    filter.status = Number(status)
  }
  const plan = text('plan')
  if (plan !== undefined) filter.plan = plan as NonNullable<JournalFilter['plan']>
  const code = text('code')
  if (code !== undefined) filter.code = code
  const operation = text('operation')
  if (operation !== undefined) filter.operation = operation
  return filter
}

/**
 * Builds the admin app.
 *
 * @example
 * const admin = createAdminApp({ sessions, token: undefined, serverUrl: () => url, startedAt: Date.now(), onChange })
 */
export function createAdminApp(options: AdminOptions): express.Express {
  const { sessions } = options
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)

  app.use((req, res, next) => {
    if (options.token === false) {
      return fail(res, 'admin_disabled', 'The admin API is off: the server listens on a non-loopback address without --admin-token.')
    }
    if (options.token !== undefined && req.headers.authorization !== `Bearer ${options.token}`) {
      res.set('www-authenticate', 'Bearer')
      return fail(res, 'admin_unauthorized', 'The admin API needs "Authorization: Bearer <admin token>" (the --admin-token value).')
    }
    const store = sessions.get(req.header('x-mock-session'))
    if (!store) return fail(res, 'invalid_session', 'X-Mock-Session must be 1-64 characters of letters, digits, ".", "_", ":" or "-".')
    res.locals.store = store
    next()
  })
  app.use(express.text({ type: () => true, limit: '64mb' }))
  const storeOf = (res: Response): PetStore => res.locals.store as PetStore
  const changed = <T>(value: T): T => {
    options.onChange()
    return value
  }
  const jsonBody = (req: Request): { ok: true; value: Record<string, unknown> } | { ok: false; message: string } => {
    const text = typeof req.body === 'string' ? req.body : ''
    if (text.trim() === '') return { ok: true, value: {} }
    try {
      const value: unknown = JSON.parse(text)
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) return { ok: true, value: value as Record<string, unknown> }
      return { ok: false, message: 'Body must be a JSON object.' }
    } catch (error) {
      return { ok: false, message: `Body is not valid JSON: ${(error as Error).message}` }
    }
  }

  app.get('/__mock/health', (_req, res) => {
    res.json({
      status: 'ok',
      sessions: sessions.size,
      maxSessions: sessions.max,
      uptimeSeconds: Math.round((Date.now() - options.startedAt) / 1000),
    })
  })
  app.post('/__mock/reset', async (_req, res) => {
    await storeOf(res).reset()
    changed(res.status(204).end())
  })
  app.get('/__mock/state', async (_req, res) => {
    await storeOf(res).ready()
    res.type('application/json').send(stringifySnapshot(storeOf(res).snapshot(), 2))
  })
  app.put('/__mock/state', async (req, res) => {
    try {
      await storeOf(res).restore(typeof req.body === 'string' ? req.body : '')
    } catch (error) {
      return fail(res, 'invalid_admin_request', plainMessage(error))
    }
    changed(res.status(204).end())
  })
  app.get('/__mock/clock', (_req, res) => {
    res.json(clockState(storeOf(res)))
  })
  app.post('/__mock/clock', (req, res) => {
    const body = jsonBody(req)
    if (!body.ok) return fail(res, 'invalid_admin_request', body.message)
    const { set, advanceSeconds, real } = body.value
    const given = [set, advanceSeconds, real].filter((value) => value !== undefined).length
    if (given !== 1) {
      return fail(
        res,
        'invalid_admin_request',
        'Send exactly one of { "set": "2026-06-01T12:00:00Z" }, { "advanceSeconds": 60 } or { "real": true }.',
      )
    }
    const clock = storeOf(res).clock
    if (set !== undefined) {
      if (typeof set !== 'string' && typeof set !== 'number')
        return fail(res, 'invalid_admin_request', '"set" must be an ISO 8601 string or ms since the epoch.')
      try {
        clock.set(toEpochMs(set))
      } catch (error) {
        return fail(res, 'invalid_admin_request', plainMessage(error))
      }
    } else if (advanceSeconds !== undefined) {
      if (typeof advanceSeconds !== 'number' || !Number.isFinite(advanceSeconds)) {
        return fail(res, 'invalid_admin_request', '"advanceSeconds" must be a number of seconds.')
      }
      try {
        clock.advance(advanceSeconds * 1000)
      } catch (error) {
        return fail(res, 'invalid_admin_request', plainMessage(error))
      }
    } else if (real === true) {
      clock.useRealTime()
    } else {
      return fail(res, 'invalid_admin_request', '"real" must be true.')
    }
    res.json(changed(clockState(storeOf(res))))
  })
  app.get('/__mock/scenarios', (_req, res) => {
    const store = storeOf(res)
    const list = store.scenarios.names().map((name) => {
      try {
        const scenario = store.scenarios.get(name)
        const chaos = (scenario.faults ?? []).some((rule) => rule.chaos === true)
        return { name, description: scenario.description, chaos, current: name === store.scenario }
      } catch (error) {
        return { name, invalid: plainMessage(error), current: false }
      }
    })
    res.json(list)
  })
  app.put('/__mock/scenario', async (req, res) => {
    const body = jsonBody(req)
    if (!body.ok) return fail(res, 'invalid_admin_request', body.message)
    const name = body.value.name
    if (typeof name !== 'string')
      return fail(res, 'invalid_admin_request', 'Send { "name": "<scenario>" }; GET /__mock/scenarios lists them.')
    const store = storeOf(res)
    try {
      await store.useScenario(name)
    } catch (error) {
      const message = plainMessage(error)
      return fail(res, store.scenarios.has(name) ? 'invalid_admin_request' : 'unknown_scenario', message)
    }
    res.json(changed({ scenario: store.scenario }))
  })
  app.get('/__mock/requests', (req, res) => {
    const filter = journalFilter(req.query)
    if (typeof filter === 'string') return fail(res, 'invalid_admin_request', filter)
    res.type('application/json').send(stringifyJson(storeOf(res).journal.find(filter)))
  })
  app.get('/__mock/audit', (_req, res) => {
    res.json(storeOf(res).audit())
  })
  app.delete('/__mock/requests', (_req, res) => {
    storeOf(res).journal.clear()
    res.status(204).end()
  })
  app.get('/__mock/openapi.json', (_req, res) => {
    res.json(openApiDocument({ serverUrl: `${options.serverUrl()}/v1` }))
  })
  app.use((req, res) =>
    fail(res, 'route_not_found', `No admin operation at ${req.method} ${req.path}. See GET /__mock/health and the README, "Admin API".`),
  )
  app.use((error: Error & { status?: number; type?: string }, _req: Request, res: Response, _next: NextFunction) => {
    if (error.type === 'entity.too.large') return fail(res, 'payload_too_large', 'Admin request body is larger than 64 MiB.')
    // The body parser's own refusals (charset, encoding, aborted body) are the client's mistakes.
    if (error.status !== undefined && error.status >= 400 && error.status < 500) {
      return fail(
        res,
        error.status === 415 ? 'unsupported_media_type' : 'invalid_admin_request',
        `Admin request refused: ${error.message}.`,
      )
    }
    console.error('[petstore-mock] Admin API error:', error)
    fail(res, 'internal_error', 'The admin API failed unexpectedly; the server log has the details.')
  })
  return app
}
