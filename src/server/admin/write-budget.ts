/**
 * The bodies of admin changes under way (a state import, an MCP call, a scenario, keys) share one budget of bytes,
 * `ADMIN_WRITE_MAX_BYTES`, the size of the largest body one may send: each takes its Content-Length (a body without
 * one, chunked, takes the whole budget, the most it may grow to) before it is read, and gives it back when its answer
 * is done. A body past what is left is refused with 503 `too_many_admin_writes` and `Retry-After: 1`, unread: so the
 * bodies held and parsed at once never pass what one largest import holds (docs/spec-decisions.md row 68).
 */
import type { NextFunction, Request, Response } from 'express'
import { refuse } from './common.js'

/** The largest admin body, and the budget every body under way shares. */
export const ADMIN_WRITE_MAX_BYTES = 64 * 1024 * 1024

/**
 * A middleware that takes each admin body's bytes from a budget of `maxBytes` (one per admin app: per server).
 * @example
 * app.use(adminWriteBudget(ADMIN_WRITE_MAX_BYTES))
 */
export function adminWriteBudget(maxBytes: number) {
  let held = 0
  return (req: Request, res: Response, next: NextFunction): void => {
    const length = req.headers['content-length']
    const chunked = req.headers['transfer-encoding'] !== undefined
    if (length === undefined && !chunked) {
      next()
      return
    }
    // An unparsable or oversized length is the body parser's to refuse (400, 413): it takes no more than the budget.
    const declared = Number(length)
    const bytes = chunked || !Number.isSafeInteger(declared) || declared < 0 ? maxBytes : Math.min(declared, maxBytes)
    if (bytes === 0) {
      next()
      return
    }
    if (held + bytes > maxBytes) {
      res.set('retry-after', '1')
      // The body is not read: the connection closes after this answer (node does not read what no one asked for).
      res.set('connection', 'close')
      refuse(
        res,
        'too_many_admin_writes',
        `The admin changes under way hold the whole admin write budget (${maxBytes / 1024 / 1024} MiB of bodies at once); retry in a moment.`,
      )
      return
    }
    held += bytes
    // A response closes once, whether it finished or its client went away.
    res.once('close', () => {
      held -= bytes
    })
    next()
  }
}
