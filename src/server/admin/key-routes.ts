/**
 * `POST /__mock/keys/:key` sets a key's counters as a scenario's `keys.start` does (a window used up, a ban), and
 * `GET /__mock/keys` reads every key's: the admin operations `setKey` and `keys` (src/admin/operations.ts). The MCP
 * tools `exhaust_quota` and `ban_key` and the panel's Keys table are the same operations (docs/mcp.md).
 */
import type { Express } from 'express'
import type { WorldAdmin } from '../../admin/world-admin.js'
import type { KeyStartInput } from '../../world/key-start.js'
import { jsonBody, operate, refuse, sessionOf } from './common.js'

/**
 * @example
 * addKeyRoutes(app, createWorldAdmin(parts))
 */
export function addKeyRoutes(app: Express, admin: WorldAdmin): void {
  app.get('/__mock/keys', (_req, res) => operate(res, admin.keys(sessionOf(res)), (keys) => res.json(keys)))
  app.post('/__mock/keys/:key', (req, res) => {
    const body = jsonBody(req)
    if (!body.ok) return refuse(res, 'invalid_admin_request', body.message)
    return operate(res, admin.setKey(req.params.key, body.value as KeyStartInput, sessionOf(res)), (keys) => res.json(keys))
  })
}
