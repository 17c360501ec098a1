/**
 * API-key authentication: `Authorization: Bearer <API_KEY>`, scheme case-insensitive.
 * @see ../shared/spec/pet-store-service.md "Authentication"
 */
import type { ApiKey } from './types.js'

export type AuthResult =
  | { ok: true; key: ApiKey }
  | { ok: false; message: string; rule: 'auth.missing' | 'auth.malformed' | 'auth.unknown-key' }

const BEARER = /^[ \t]*bearer[ \t]+([^ \t]+)[ \t]*$/i

/** The token of a `Bearer` Authorization value (scheme case-insensitive), or `undefined`. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return authorization === undefined ? undefined : BEARER.exec(authorization)?.[1]
}

/** The last 4 characters of a key, for messages and logs that must not show the whole key. */
export function redactKey(key: string): string {
  return key.length <= 4 ? '…' : `…${key.slice(-4)}`
}

/**
 * Finds the caller's key.
 *
 * @example
 * const caller = authenticate('Bearer test-pro', keys)
 * if (!caller.ok) return problem('unauthorized', caller.message)
 */
export function authenticate(authorization: string | undefined, keys: ReadonlyMap<string, ApiKey>): AuthResult {
  if (authorization === undefined || authorization.trim() === '') {
    return {
      ok: false,
      message: 'Missing API key: send the header "Authorization: Bearer <API_KEY>".',
      rule: 'auth.missing',
    }
  }
  const token = bearerToken(authorization)
  if (token === undefined) {
    return {
      ok: false,
      message: 'Malformed Authorization header: expected "Bearer <API_KEY>".',
      rule: 'auth.malformed',
    }
  }
  const key = keys.get(token)
  if (!key) {
    return { ok: false, message: `Invalid API key ${redactKey(token)}.`, rule: 'auth.unknown-key' }
  }
  return { ok: true, key }
}
