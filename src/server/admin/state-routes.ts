/**
 * Admin routes of a world's state: reset, export and import (`/__mock/state`), and the clock.
 */
import type { Express } from 'express'
import { toEpochMs } from '../../clock.js'
import { plainMessage } from '../../core/errors.js'
import { snapshotPieces } from '../../snapshot.js'
import { clockView } from '../../world/events.js'
import { type AdminReads, streamPieces } from './admin-reads.js'
import { jsonBody, type RouteContext, refuse, worldOf } from './common.js'

/**
 * @example
 * addStateRoutes(app, { changed: (value) => value }, createAdminReads({ stallMs: 30_000 }))
 */
export function addStateRoutes(app: Express, ctx: RouteContext, reads: AdminReads): void {
  app.post('/__mock/reset', async (_req, res) => {
    await worldOf(res).reset()
    ctx.changed(res, undefined)
    res.status(204).end()
  })
  // Streamed piece by piece under the admin read budget (decision 020): a state of a million pets is never one text.
  // The snapshot is taken at once, so the pets written are the ones of that moment even as requests go on.
  app.get('/__mock/state', async (_req, res) => {
    await worldOf(res).ready()
    streamPieces(res, reads, snapshotPieces(worldOf(res).snapshot()))
  })
  app.put('/__mock/state', async (req, res) => {
    try {
      await worldOf(res).restore(typeof req.body === 'string' ? req.body : '')
    } catch (error) {
      return refuse(res, 'invalid_admin_request', plainMessage(error))
    }
    ctx.changed(res, undefined)
    res.status(204).end()
  })
  app.get('/__mock/clock', (_req, res) => {
    res.json(clockView(worldOf(res).clock))
  })
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
    const clock = worldOf(res).clock
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
    try {
      if (set !== undefined) clock.set(toEpochMs(set), { running: running === true })
      else if (advanceSeconds !== undefined) clock.advance(advanceSeconds * 1000)
      else clock.useRealTime()
    } catch (error) {
      return refuse(res, 'invalid_admin_request', plainMessage(error))
    }
    res.json(ctx.changed(res, clockView(clock)))
  })
}
