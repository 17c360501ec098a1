/**
 * Admin routes of a world's state: reset, export and import (`/__mock/state`), and the clock. Each is the admin
 * operation of the same name (src/admin/operations.ts) over the request's session.
 */
import type { Express } from 'express'
import type { AddPetsRequest } from '../../admin/operations.js'
import type { WorldAdmin } from '../../admin/world-admin.js'
import { type AdminReads, streamPieces } from './admin-reads.js'
import { jsonBody, operate, refuse, sessionOf } from './common.js'

/**
 * @example
 * addStateRoutes(app, createWorldAdmin(parts), createAdminReads({ stallMs: 30_000 }))
 */
export function addStateRoutes(app: Express, admin: WorldAdmin, reads: AdminReads): void {
  app.post('/__mock/reset', (_req, res) => operate(res, admin.reset(sessionOf(res)), () => res.status(204).end()))
  // Streamed piece by piece under the admin read budget (decision 020): a state of a million pets is never one text.
  app.get('/__mock/state', async (_req, res) => {
    streamPieces(res, reads, await admin.statePieces(sessionOf(res)))
  })
  app.put('/__mock/state', (req, res) =>
    operate(res, admin.importState(typeof req.body === 'string' ? req.body : '', sessionOf(res)), () => res.status(204).end()),
  )
  // Generated pets under the next ids (the MCP create_pets tool): the pets as GET /v1/pets/{id} writes them, 201. The
  // world admin checks the body's fields (`addPetsProblem`), for this route as for every other surface.
  app.post('/__mock/pets', (req, res) => {
    const body = jsonBody(req)
    if (!body.ok) return refuse(res, 'invalid_admin_request', body.message)
    const request = body.value as unknown as AddPetsRequest
    return operate(res, admin.addPets(request, sessionOf(res)), (pets) => res.status(201).type('application/json').send(pets))
  })
  app.get('/__mock/clock', (_req, res) => operate(res, admin.clock(sessionOf(res)), (view) => res.json(view)))
  // Exactly one of `set` (with `running: true`, the clock runs on from there), `advanceSeconds` or `real`.
  app.post('/__mock/clock', (req, res) => {
    const body = jsonBody(req)
    if (!body.ok) return refuse(res, 'invalid_admin_request', body.message)
    const { set, running, advanceSeconds, real } = body.value
    const given = [set, advanceSeconds, real].filter((value) => value !== undefined).length
    if (given !== 1) {
      return refuse(
        res,
        'invalid_admin_request',
        'Send exactly one of { "set": "2026-06-01T12:00:00Z" }, { "advanceSeconds": 60 } or { "real": true }.',
      )
    }
    if (set !== undefined && typeof set !== 'string' && typeof set !== 'number')
      return refuse(res, 'invalid_admin_request', '"set" must be an ISO 8601 string or ms since the epoch.')
    if (advanceSeconds !== undefined && (typeof advanceSeconds !== 'number' || !Number.isFinite(advanceSeconds)))
      return refuse(res, 'invalid_admin_request', '"advanceSeconds" must be a number of seconds.')
    if (real !== undefined && real !== true) return refuse(res, 'invalid_admin_request', '"real" must be true.')
    if (running !== undefined && (typeof running !== 'boolean' || set === undefined))
      return refuse(
        res,
        'invalid_admin_request',
        '"running" goes with "set" and is true or false: { "set": "2026-06-01T12:00:00Z", "running": true }.',
      )
    const session = sessionOf(res)
    const moved =
      set !== undefined
        ? admin.setClock(set, running === true, session)
        : advanceSeconds !== undefined
          ? admin.advanceClock(advanceSeconds, session)
          : admin.realTime(session)
    return operate(res, moved, (view) => res.json(view))
  })
}
