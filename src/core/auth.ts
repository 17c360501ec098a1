/**
 * API-key authentication: `Authorization: Bearer <API_KEY>`, scheme case-insensitive.
 * @see ../shared/spec/pet-store-service.md "Authentication"
 */
import type { ApiKey } from './types.js'

export type AuthResult = { ok: true; key: ApiKey } | { ok: false; message: string }

const BEARER = /^[ \t]*bearer[ \t]+([^ \t]+)[ \t]*$/i

/** Whether `text` has a space or a tab from `from` on. */
function hasBlank(text: string, from: number): boolean {
  for (let i = from; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === 32 || code === 9) return true
  }
  return false
}

/** The token of a `Bearer` Authorization value (scheme case-insensitive), or `undefined`. */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined
  // The usual form, `Bearer <token>`, read without the regular expression (issue #18); the same answer.
  if (authorization.length > 7 && authorization.startsWith('Bearer ') && !hasBlank(authorization, 7)) return authorization.slice(7)
  return BEARER.exec(authorization)?.[1]
}

/**
 * `bearerToken`, keeping its last answer: a client sends the same header again and again, and the same token string
 * then finds its key without being hashed again (issue #18). One per API.
 */
export function createTokenReader(): (authorization: string) => string | undefined {
  let lastAuthorization: string | undefined
  let lastToken: string | undefined
  return (authorization) => {
    if (authorization !== lastAuthorization) {
      lastAuthorization = authorization
      lastToken = bearerToken(authorization)
    }
    return lastToken
  }
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
export function authenticate(
  authorization: string | undefined,
  keys: ReadonlyMap<string, ApiKey>,
  tokenOf: (authorization: string) => string | undefined = bearerToken,
): AuthResult {
  if (authorization === undefined || authorization.trim() === '') {
    return {
      ok: false,
      message: 'Missing API key: send the header "Authorization: Bearer <API_KEY>".',
    }
  }
  const token = tokenOf(authorization)
  if (token === undefined) {
    return {
      ok: false,
      message: 'Malformed Authorization header: expected "Bearer <API_KEY>".',
    }
  }
  const key = keys.get(token)
  if (!key) {
    return { ok: false, message: `Invalid API key ${redactKey(token)}.` }
  }
  return { ok: true, key }
}
