/**
 * CORS for browser apps on another origin: preflights answered without a key or quota, and the
 * headers a client must read exposed.
 */

const EXPOSED_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'Location',
  'Deprecation',
  'Sunset',
  'Link',
  'WWW-Authenticate',
  'Allow',
  // Only sent when asked for (docs/explain.md): the rule behind the answer.
  'X-Mock-Reason',
].join(', ')

const ALLOWED_HEADERS = 'Authorization, Content-Type, X-Mock-Session, X-Mock-Scenario, X-Mock-Explain'
const ALLOWED_METHODS = 'GET, POST, PUT, DELETE, PATCH, OPTIONS'

/** `'*'` allows any origin; a list allows those origins only. */
export type CorsOrigins = '*' | readonly string[]

/** The CORS headers of a response to a request from `origin` (none when it is not allowed). */
export function corsHeaders(origins: CorsOrigins, origin: string | undefined): Record<string, string> {
  if (origin === undefined) return {}
  if (origins !== '*' && !origins.includes(origin)) return { vary: 'Origin' }
  return { 'access-control-allow-origin': origin, 'access-control-expose-headers': EXPOSED_HEADERS, vary: 'Origin' }
}

/** The headers of a preflight answer. */
export function preflightHeaders(origins: CorsOrigins, origin: string | undefined, requested: string | undefined): Record<string, string> {
  const base = corsHeaders(origins, origin)
  if (!base['access-control-allow-origin']) return base
  return {
    ...base,
    'access-control-allow-methods': ALLOWED_METHODS,
    'access-control-allow-headers': requested && requested.trim() !== '' ? `${ALLOWED_HEADERS}, ${requested}` : ALLOWED_HEADERS,
    'access-control-max-age': '600',
  }
}
