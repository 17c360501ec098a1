/**
 * Admin routes of one key and one scenario: `POST /__mock/keys/:key` sets a key's counters as a scenario's `keys.start`
 * does (a window used up, a ban), and `GET /__mock/scenarios/:name` reads a scenario's definition. The MCP tools
 * `exhaust_quota`, `ban_key` and the scenario resources go through them (docs/mcp.md).
 */
import type { Express } from 'express'
import { plainMessage, StoreUnavailableError } from '../../core/errors.js'
import { startKey } from '../../world/key-start.js'
import { jsonBody, type RouteContext, refuse, worldOf } from './common.js'

/**
 * @example
 * addKeyRoutes(app, { changed: (_res, value) => value })
 */
export function addKeyRoutes(app: Express, ctx: RouteContext): void {
  app.post('/__mock/keys/:key', async (req, res) => {
    const body = jsonBody(req)
    if (!body.ok) return refuse(res, 'invalid_admin_request', body.message)
    const world = worldOf(res)
    try {
      await startKey(world.keys, world.rateLimiter, world.clock.now(), req.params.key, body.value)
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw error
      return refuse(res, 'invalid_admin_request', plainMessage(error))
    }
    res.json(ctx.changed(res, world.keyStatuses()))
  })
  app.get('/__mock/scenarios/:name', (req, res) => {
    const world = worldOf(res)
    const name = req.params.name
    try {
      res.json(world.scenarios.get(name))
    } catch (error) {
      refuse(res, world.scenarios.has(name) ? 'invalid_admin_request' : 'unknown_scenario', plainMessage(error))
    }
  })
}
