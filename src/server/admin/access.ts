/**
 * Who may use the admin API (docs/spec-decisions.md rows 36 and 45). Without `--admin-token`, only the machine itself: the
 * `Host` must be a loopback name or address (or the host the server was started with), so a
 * DNS-rebinding page is refused, and an `Origin`, when sent, must be the server's own, so a page of
 * another site is refused. A browser sends no `Origin` with what a page loads as an image, a script or a frame, so
 * those are told by the Fetch Metadata header `Sec-Fetch-Site` instead (W3C Fetch Metadata Request Headers): another
 * site's, refused; a link followed to the panel (a top-level navigation) still opens it. Requests without these headers
 * (curl, SDKs, test suites) and same-origin pages keep working. With a token, the token decides. Health and the
 * OpenAPI document are public.
 */
import { timingSafeEqual } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import { bearerToken } from '../../core/auth.js'
import type { ErrorCode } from '../../core/errors.js'

/** Whether a host name or address is the machine itself. */
export const isLoopback = (host: string): boolean =>
  /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|\[::1\]|localhost|[a-z0-9-]+\.localhost)$/i.test(host)

/** The host of a `Host` header, without its port (`[::1]:4010` -> `[::1]`). */
export function hostOf(header: string): string {
  if (header.startsWith('[')) return header.slice(0, header.indexOf(']') + 1)
  const colon = header.indexOf(':')
  return colon === -1 || header.indexOf(':', colon + 1) !== -1 ? header : header.slice(0, colon)
}

/** Whether `authorization` carries `token` as a Bearer token (scheme case-insensitive, as in the API; compared in constant time). */
export function hasAdminToken(authorization: string | undefined, token: string): boolean {
  const given = Buffer.from(bearerToken(authorization) ?? '')
  const expected = Buffer.from(token)
  // Always compare, equal lengths only, so the time says nothing about the token.
  const same = timingSafeEqual(given.length === expected.length ? given : expected, expected)
  return same && given.length === expected.length
}

export interface AccessRule {
  /** `undefined`: open to the machine itself. A string: required as a Bearer token. `false`: off. */
  readonly token: string | undefined | false
  /** The address the server listens on. */
  readonly host: string
}

export type Access = { ok: true } | { ok: false; code: ErrorCode; message: string; headers?: Record<string, string> }

const refused = (code: ErrorCode, message: string, headers?: Record<string, string>): Access =>
  headers === undefined ? { ok: false, code, message } : { ok: false, code, message, headers }

/** Admin paths anyone may read: no secrets, nothing changes. */
export const PUBLIC_ADMIN_PATHS: ReadonlySet<string> = new Set(['/__mock/health', '/__mock/openapi.json'])

/** The control panel's page and scripts (`/__mock/ui`, `/__mock/ui/panel/<file>.js`, `/__mock/ui/admin/<file>.js`). */
export const isPanelFile = (path: string): boolean =>
  path === '/__mock/ui' || path === '/__mock/ui/' || /^\/__mock\/ui\/(panel|admin)\/[a-z][a-z0-9-]*\.js$/.test(path)

/**
 * @example
 * adminAccess('GET', '/__mock/state', { host: '127.0.0.1:4010', origin: 'https://evil.test' }, { token: undefined, host: '127.0.0.1' })
 * // { ok: false, code: 'admin_forbidden', … }
 */
export function adminAccess(method: string, path: string, headers: IncomingHttpHeaders, rule: AccessRule): Access {
  const reading = method === 'GET' || method === 'HEAD'
  if (reading && PUBLIC_ADMIN_PATHS.has(path)) return { ok: true }
  // With a token, the panel's page and scripts hold no data: a browser loads them, then the page asks for the token
  // and sends it on every call (spec decision 54). Without one, the page follows the rule below like every call.
  if (reading && typeof rule.token === 'string' && isPanelFile(path)) return { ok: true }
  if (rule.token === false)
    return refused(
      'admin_disabled',
      'The admin API is off: the server listens beyond loopback without --admin-token. Start it with --admin-token to use it.',
    )
  if (typeof rule.token === 'string') {
    if (hasAdminToken(headers.authorization, rule.token)) return { ok: true }
    return refused('admin_unauthorized', 'The admin API needs "Authorization: Bearer <admin token>" (the --admin-token value).', {
      'www-authenticate': 'Bearer',
    })
  }
  const host = headers.host ?? ''
  const name = hostOf(host)
  if (!isLoopback(name) && name.toLowerCase() !== rule.host.toLowerCase())
    return refused(
      'admin_forbidden',
      `The admin API answers only requests addressed to this machine (Host ${JSON.stringify(host)} is not a loopback name). Use http://127.0.0.1:<port>, or start the server with --admin-token.`,
    )
  const site = headers['sec-fetch-site']
  if ((site === 'cross-site' || site === 'same-site') && headers['sec-fetch-dest'] !== 'document')
    return refused(
      'admin_forbidden',
      `The admin API refuses what another site's page loads (Sec-Fetch-Site: ${site}, Sec-Fetch-Dest: ${String(headers['sec-fetch-dest'])}). Call it from the server's own pages, from curl or from tests, or start the server with --admin-token.`,
    )
  const origin = headers.origin
  if (origin !== undefined && origin !== `http://${host}`)
    return refused(
      'admin_forbidden',
      `The admin API refuses requests from other sites (Origin ${JSON.stringify(origin)}). Call it from the server's own pages, from curl or from tests, or start the server with --admin-token.`,
    )
  return { ok: true }
}
