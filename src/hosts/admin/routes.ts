/**
 * Admin routes that read or steer a world's behaviour: scenarios, the journal and its retry audit,
 * and what anyone may read (health, the OpenAPI document).
 */
import type { Express, Request } from 'express'
import { plainMessage, StoreUnavailableError } from '../../core/errors.js'
import type { JournalFilter } from '../../core/journal.js'
import { stringifyJson } from '../../core/json.js'
import { openApiDocument } from '../../openapi.js'
import { listScenarios } from '../../scenarios/catalogue.js'
import type { Sessions } from '../sessions.js'
import { jsonBody, type RouteContext, refuse, worldOf } from './common.js'

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

/** The default and largest page of `GET /__mock/requests` (issue #13: no read builds a giant string). */
const PAGE = { default: 100, max: 1_000 }

type Paging = { limit: number; before?: number; after?: number }

/** `?limit=` (1..1000, default 100), and one cursor: `?before=SEQ` (older entries) or `?after=SEQ` (newer ones). */
function pagingOf(query: Request['query']): Paging | string {
  const read = (name: string, min: number, max: number): number | string | undefined => {
    const text = query[name]
    if (text === undefined) return undefined
    if (typeof text !== 'string' || !/^\d+$/.test(text) || Number(text) < min || Number(text) > max)
      return `${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(text)}.`
    return Number(text)
  }
  const limit = read('limit', 1, PAGE.max)
  const before = read('before', 1, Number.MAX_SAFE_INTEGER)
  const after = read('after', 0, Number.MAX_SAFE_INTEGER)
  for (const value of [limit, before, after]) if (typeof value === 'string') return value
  if (before !== undefined && after !== undefined) return 'Send one cursor: before or after, not both.'
  const paging: Paging = { limit: (limit as number | undefined) ?? PAGE.default }
  if (before !== undefined) paging.before = before as number
  if (after !== undefined) paging.after = after as number
  return paging
}

/** The link to the page after this one: older entries, or with `after` newer ones. */
function nextPageUrl(query: Request['query'], paging: Paging, entries: readonly { seq: number }[]): string {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query))
    if (typeof value === 'string' && name !== 'before' && name !== 'after') params.set(name, value)
  if (paging.after !== undefined) params.set('after', String(entries.at(-1)?.seq ?? paging.after))
  else params.set('before', String(entries[0]?.seq ?? 1))
  params.set('limit', String(paging.limit))
  return `/__mock/requests?${params}`
}

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

/** The journal (`/__mock/requests`) and the retry audit. */
export function addJournalRoutes(app: Express): void {
  app.get('/__mock/requests', (req, res) => {
    const filter = journalFilter(req.query)
    if (typeof filter === 'string') return refuse(res, 'invalid_admin_request', filter)
    const paging = pagingOf(req.query)
    if (typeof paging === 'string') return refuse(res, 'invalid_admin_request', paging)
    const page = worldOf(res).journal.page(filter, paging)
    if (page.more) res.set('link', `<${nextPageUrl(req.query, paging, page.entries)}>; rel="next"`)
    res.type('application/json').send(stringifyJson(page.entries))
  })
  app.get('/__mock/audit', (_req, res) => {
    res.json(worldOf(res).audit())
  })
  app.delete('/__mock/requests', (_req, res) => {
    worldOf(res).journal.clear()
    res.status(204).end()
  })
}

/** Health and the OpenAPI document. */
export function addInfoRoutes(
  app: Express,
  info: { sessions: Sessions; startedAt: number; serverUrl: () => string; degraded: () => string | undefined },
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
      journal: { bytes, maxBytes, dropped },
      uptimeSeconds: Math.round((Date.now() - info.startedAt) / 1000),
    })
  })
  app.get('/__mock/openapi.json', (_req, res) => {
    res.json(openApiDocument({ serverUrl: `${info.serverUrl()}/v1` }))
  })
}
