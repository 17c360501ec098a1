/**
 * What every admin route shares: the session's world of a request, Error answers, JSON bodies, and
 * telling the server a world changed (for the state file).
 */
import type { Request, Response } from 'express'
import { type ErrorCode, problem } from '../../core/errors.js'
import type { ServerWorld } from '../../world/create-world.js'

/** Answers an admin request with an Error body. */
export function refuse(res: Response, code: ErrorCode, message: string): void {
  const response = problem(code, message)
  res.status(response.status).set(response.headers).send(response.body)
}

/** The world of the session the request names (set by the admin app's guard). */
export const worldOf = (res: Response): ServerWorld => res.locals.world as ServerWorld

export interface RouteContext {
  /** Passes `value` through after telling the server the request's world changed (call before answering). */
  changed<T>(res: Response, value: T): T
}

export type JsonBody = { ok: true; value: Record<string, unknown> } | { ok: false; message: string }

/** The request body as a JSON object (an empty body is `{}`). */
export function jsonBody(req: Request): JsonBody {
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
