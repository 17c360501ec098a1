/**
 * The catalogue of error codes petstore-mock answers with: stable lower_snake strings, one place.
 * The spec leaves "the set of values of the `code` field" open (docs/spec-decisions.md), so this
 * list is the mock's own, documented in docs/errors.md.
 */
import type { ApiResponse } from './types.js'

export const ERRORS = {
  invalid_query_parameter: { status: 400, title: 'A query parameter is missing or invalid' },
  invalid_json: { status: 400, title: 'The request body is not valid JSON' },
  invalid_body: { status: 400, title: 'The request body is missing required fields or has invalid values' },
  invalid_session: { status: 400, title: 'The X-Mock-Session name is invalid' },
  invalid_admin_request: { status: 400, title: 'The admin request is invalid' },
  bad_request: { status: 400, title: 'The HTTP request is malformed' },
  unknown_scenario: { status: 400, title: 'No scenario has this name' },
  unauthorized: { status: 401, title: 'Missing or invalid API key' },
  admin_unauthorized: { status: 401, title: 'Missing or invalid admin token' },
  admin_forbidden: { status: 403, title: 'The admin API refuses requests from other sites' },
  pet_not_found: { status: 404, title: 'No pet has the requested id' },
  route_not_found: { status: 404, title: 'No operation is defined at this path' },
  admin_disabled: { status: 404, title: 'The admin API is off on this address' },
  method_not_allowed: { status: 405, title: 'The path does not support this method' },
  request_timeout: { status: 408, title: 'The request did not arrive in time' },
  gone: { status: 410, title: 'The operation has been removed after its sunset date' },
  payload_too_large: { status: 413, title: 'The request body is larger than the limit' },
  unsupported_media_type: { status: 400, title: 'The request body is not application/json (UTF-8, uncompressed)' },
  rate_limited: { status: 429, title: 'The rate limit of the API key is exceeded' },
  key_temporarily_banned: { status: 429, title: 'The API key is temporarily banned' },
  internal_error: { status: 500, title: 'The mock failed unexpectedly' },
  id_space_exhausted: { status: 507, title: 'No int64 id is left for a new pet' },
  not_implemented: { status: 501, title: 'The spec does not define this operation' },
  integration_missing: { status: 501, title: 'An optional package this tool needs is not installed (docs/server.md, "Optional tools")' },
  bad_gateway: { status: 502, title: 'Bad gateway: injected by a scenario, or the --proxy upstream could not be reached' },
  service_unavailable: { status: 503, title: 'Injected by a scenario: service unavailable' },
  too_many_event_streams: { status: 503, title: 'The server holds as many event streams as it allows' },
  too_many_admin_reads: { status: 503, title: 'The journal reads under way hold the whole admin read budget' },
  too_many_admin_writes: { status: 503, title: 'The admin changes under way hold the whole admin write budget' },
  store_unavailable: { status: 503, title: 'The shared store (Redis) is unreachable' },
  state_file_unavailable: { status: 503, title: 'The state file (--state-file) could not be written: the change is not kept' },
  gateway_timeout: { status: 504, title: 'Gateway timeout: injected by a scenario, or the --proxy upstream did not answer in time' },
} as const satisfies Record<string, { status: number; title: string }>

export type ErrorCode = keyof typeof ERRORS

const JSON_TYPE = 'application/json'

/**
 * A copy of `headers` with the JSON content type. Copied by `Object.assign`, not spread: a spread then a new key gives
 * each answer a hidden class of its own in V8, which keeps the collector busy under load.
 */
function jsonHeaders(headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const own: Record<string, string> = Object.assign({}, headers)
  own['content-type'] = JSON_TYPE
  return own
}

/**
 * The one writer of the spec's Error body `{ code, message, status }`: every error response
 * of every host goes through it. `status` overrides the catalogue's where an option chooses it. The response gets
 * headers of its own (`headers` copied, `content-type` added): a caller's object is never written into.
 *
 * @example
 * problem('pet_not_found', 'No pet with id 42.')
 * // { status: 404, headers: { 'content-type': 'application/json' }, body: '{"code":"pet_not_found",...}' }
 */
export function problem(
  code: ErrorCode,
  message: string = ERRORS[code].title,
  headers?: Readonly<Record<string, string>>,
  status: number = ERRORS[code].status,
): ApiResponse {
  return { status, headers: jsonHeaders(headers), body: JSON.stringify({ code, message, status }) }
}

/** A thrown error's message for a client or a command line: without the `[petstore-mock]` prefix of library errors. */
export function plainMessage(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/^\[petstore-mock\] /, '')
}

/**
 * The base of the package's own errors: each class sets its `name` (kept in minified bundles) and a stable
 * lower_snake `code`. Tell them apart by class (`error instanceof StateFileError`), never by the text of `name`.
 */
export abstract class PetStoreMockError extends Error {
  abstract readonly code: string
}

/** The shared store (`--redis`) could not be reached: the request is answered 503 with `Retry-After`, and changed nothing. */
export class StoreUnavailableError extends PetStoreMockError {
  override readonly name = 'StoreUnavailableError'
  readonly code = 'store_unavailable'
}

/**
 * Redis (`--redis`) could not be reached at start: the server does not start (exit 2). Here rather than beside the
 * Redis code so the command line can tell it by class without loading the Redis client.
 */
export class RedisStartError extends PetStoreMockError {
  override readonly name = 'RedisStartError'
  readonly code = 'redis_start_failed'
}
