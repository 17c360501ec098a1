/**
 * What every admin route shares: the session of a request, Error answers, JSON bodies, and answering with what an
 * admin operation (src/admin/operations.ts) gave or refused.
 */
import type { Request, Response } from 'express'
import { adminFailure } from '../../admin/operations.js'
import { ERRORS, type ErrorCode, problem } from '../../core/errors.js'
import type { ServerWorld } from '../../world/create-world.js'

/** Answers an admin request with an Error body. */
export function refuse(res: Response, code: ErrorCode, message: string): void {
  const response = problem(code, message)
  res.status(response.status).set(response.headers).send(response.body)
}

/** The world of the session the request names (set by the admin app's guard). */
export const worldOf = (res: Response): ServerWorld => res.locals.world as ServerWorld

/** The name of the session the request acts on (set by the admin app's guard). */
export const sessionOf = (res: Response): string => res.locals.session as string

/**
 * Answers with `send(value)` once the operation gives its value, or with the Error body of its refusal. Anything else it
 * throws (the shared store unreachable) goes on to the admin app's error handler.
 */
export async function operate<T>(res: Response, operation: Promise<T>, send: (value: T) => void): Promise<void> {
  let value: T
  try {
    value = await operation
  } catch (error) {
    const code = adminFailure(error)?.code
    if (code === undefined || !Object.hasOwn(ERRORS, code)) throw error
    // A 503 of the admin API is a moment's refusal (a budget, the shared store): retry after a second.
    if (ERRORS[code as ErrorCode].status === 503) res.set('retry-after', '1')
    return refuse(res, code as ErrorCode, (error as Error).message)
  }
  send(value)
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
