/**
 * Validation of what clients send: the request as a host read it (`apiRequestOf`), the query of `GET /pets`, the body
 * of `POST /pets` and the `petId` path parameter. Each returns a result; the caller turns failures into Error responses.
 * @see ../shared/spec/pet-store-service.md "Endpoints"
 */
import { INT64_MAX, INT64_MIN, type NewPetRecord, NewPetSchema, type PetStatus } from '../schemas.js'
import { DEFAULT_MAX_NAME_LENGTH, PAGE_SIZE, PET_STATUSES } from '../spec.js'
import { parseJson } from './json.js'
import type { ApiRequest, QueryValidation } from './types.js'

export type { QueryValidation } from './types.js'

/** What a host read of a request's body: its text, or why it has none. */
export interface HostBody {
  readonly text: string | undefined
  /** The host stopped reading past the body limit. */
  readonly tooLarge?: boolean | undefined
  /** The bytes were not valid UTF-8 (`text` is `undefined`). */
  readonly notUtf8?: boolean | undefined
}

/**
 * The one place a host's request becomes the core's. A GET or HEAD body is dropped in every host alike: RFC 9110
 * sections 9.3.1 and 9.3.2 give it no meaning, so it is never read, never counted against the body limit and never
 * journaled (test/http/get-body-ignored.test.ts).
 *
 * @example
 * apiRequestOf('POST', '/v1/pets', '', { 'content-type': 'application/json' }, { text: '{"name":"Rex","categoryId":1}' })
 */
export function apiRequestOf(
  method: string,
  path: string,
  query: string,
  headers: ApiRequest['headers'],
  body: HostBody | undefined,
): ApiRequest {
  if (body === undefined || ignoresBody(method)) return { method, path, query, headers, body: undefined }
  if (body.tooLarge) return { method, path, query, headers, body: undefined, bodyTooLarge: true }
  if (body.notUtf8) return { method, path, query, headers, body: undefined, bodyNotUtf8: true }
  return { method, path, query, headers, body: body.text }
}

/** A method whose body the API ignores (see `apiRequestOf`): hosts need not read it. */
export const ignoresBody = (method: string): boolean => method === 'GET' || method === 'HEAD'

const { default: LIMIT_DEFAULT, min: LIMIT_MIN, max: LIMIT_MAX } = PAGE_SIZE

/**
 * How `GET /pets` treats a `limit` outside 1..100 or an unknown `status` (the spec leaves it open):
 * `strict` answers 400, `lenient` clamps `limit` into range (default 20 when not a number) and
 * matches no pet for an unknown `status`.
 */

export type ListQueryResult =
  | { ok: true; limit: number; status: PetStatus | undefined; statusMatchesNothing: boolean }
  | { ok: false; message: string; rule: 'validation.limit' | 'validation.status' }

const INTEGER_TEXT = /^-?\d+$/
const isPetStatus = (value: string): value is PetStatus => (PET_STATUSES as readonly string[]).includes(value)

/** A query with nothing to decode: printable ASCII without `%` or `+`, not starting with `?`. */
const PLAIN_QUERY = /^[!-$&-*,->@-~][!-$&-*,-~]*$/

/** What `URLSearchParams` reads from a plain query, without its decoding work (validate.test.ts checks it against URLSearchParams). */
function plainParams(query: string): { getAll(name: string): string[] } {
  const pairs = query.split('&')
  return {
    getAll(name) {
      const values: string[] = []
      for (const pair of pairs) {
        if (pair === '') continue
        const equals = pair.indexOf('=')
        if ((equals === -1 ? pair : pair.slice(0, equals)) === name) values.push(equals === -1 ? '' : pair.slice(equals + 1))
      }
      return values
    },
  }
}

/** The query's parameters as `URLSearchParams` reads them (a plain query read by hand). */
export function queryParams(query: string): { getAll(name: string): string[] } {
  return PLAIN_QUERY.test(query) ? plainParams(query) : new URLSearchParams(query)
}

/**
 * Reads `limit` and `status` from a raw query string. Every problem is reported, each naming its
 * parameter.
 *
 * @example
 * validateListQuery('limit=5&status=sold', 'strict') // { ok: true, limit: 5, status: 'sold', … }
 * validateListQuery('limit=abc', 'strict') // { ok: false, message: 'Invalid query: limit must be …' }
 */
export function validateListQuery(query: string, mode: QueryValidation): ListQueryResult {
  if (query === '') return { ok: true, limit: LIMIT_DEFAULT, status: undefined, statusMatchesNothing: false }
  const params = queryParams(query)
  const problems: string[] = []
  let limit: number = LIMIT_DEFAULT
  let status: PetStatus | undefined
  let statusMatchesNothing = false

  const limits = params.getAll('limit')
  if (limits.length > 1) {
    problems.push(`limit must be given at most once (got ${limits.length} values)`)
  } else if (limits[0] !== undefined) {
    const raw = limits[0]
    const value = INTEGER_TEXT.test(raw) ? Number(raw) : Number.NaN
    if (value >= LIMIT_MIN && value <= LIMIT_MAX) limit = value
    else if (mode === 'lenient') limit = Number.isNaN(value) ? LIMIT_DEFAULT : Math.min(Math.max(value, LIMIT_MIN), LIMIT_MAX)
    else problems.push(`limit must be an integer from ${LIMIT_MIN} to ${LIMIT_MAX} (got ${JSON.stringify(raw)})`)
  }

  const statuses = params.getAll('status')
  if (statuses.length > 1) {
    problems.push(`status must be given at most once (got ${statuses.length} values)`)
  } else if (statuses[0] !== undefined) {
    const raw = statuses[0]
    if (isPetStatus(raw)) status = raw
    else if (mode === 'lenient') statusMatchesNothing = true
    else problems.push(`status must be one of ${PET_STATUSES.join(', ')} (got ${JSON.stringify(raw)})`)
  }

  if (problems.length > 0) {
    const rule = problems[0]?.startsWith('limit') ? 'validation.limit' : 'validation.status'
    return { ok: false, message: `Invalid query: ${problems.join('; ')}.`, rule }
  }
  return { ok: true, limit, status, statusMatchesNothing }
}

export type NewPetResult =
  | { ok: true; pet: NewPetRecord }
  | { ok: false; code: 'invalid_json' | 'invalid_body' | 'unsupported_media_type'; message: string }

const JSON_MEDIA_TYPE = /^application\/json[ \t]*(;|$)/i
const CHARSET = /;[ \t]*charset[ \t]*=[ \t]*"?([^";]*)"?/i

/** What a body arrived with, beside its media type (docs/spec-decisions.md row 17). */
export interface BodyFacts {
  /** The `Content-Encoding` header, if any. */
  readonly contentEncoding?: string | undefined
  /** The bytes were not valid UTF-8 (the host could not decode them). */
  readonly notUtf8?: boolean | undefined
}

/** A refusal of the body's encoding: a compression, or a charset other than UTF-8. */
function encodingProblem(contentType: string | undefined, facts: BodyFacts): string | undefined {
  const encoding = facts.contentEncoding?.trim().toLowerCase()
  if (encoding !== undefined && encoding !== '' && encoding !== 'identity')
    return `Content-Encoding ${JSON.stringify(facts.contentEncoding)} is not supported: send the JSON body uncompressed.`
  const charset = contentType === undefined ? undefined : CHARSET.exec(contentType)?.[1]?.trim().toLowerCase()
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')
    return `charset ${JSON.stringify(charset)} is not supported: send the body as UTF-8 (Content-Type: application/json; charset=utf-8).`
  return undefined
}

/**
 * The characters (code points) of `name` when there are more than `max`, else `undefined`. Its UTF-16 length is
 * never smaller, so it settles every name within the limit without counting.
 */
function overlong(name: string, max: number): number | undefined {
  if (name.length <= max) return undefined
  let count = 0
  for (let i = 0; i < name.length; i++) {
    const unit = name.charCodeAt(i)
    // A high surrogate followed by a low one is one character.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < name.length) {
      const next = name.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) i++
    }
    count++
  }
  return count > max ? count : undefined
}

/** Every problem of a NewPet object: the schema's, and a `name` longer than `maxNameLength` (docs/spec-decisions.md row 4). */
function newPetProblems(value: object, maxNameLength: number): { ok: true; pet: NewPetRecord } | { ok: false; problems: string[] } {
  const result = NewPetSchema.safeParse(value)
  const name = (value as { name?: unknown }).name
  const length = typeof name === 'string' ? overlong(name, maxNameLength) : undefined
  const problems = length === undefined ? [] : [`name must be at most ${maxNameLength} characters (got ${length})`]
  if (!result.success) problems.push(...result.error.issues.map((issue) => issue.message))
  return result.success && problems.length === 0 ? { ok: true, pet: result.data } : { ok: false, problems }
}

/**
 * Validates the body of `POST /pets`: media type, JSON syntax, an object, then every field
 * (all problems in one message). Unknown fields and a client-sent `id` are dropped. A `name` may have at most
 * `maxNameLength` characters (code points; the spec shows no limit: docs/spec-decisions.md row 4).
 *
 * @example
 * validateNewPet('application/json', '{"name":"Rex","categoryId":1}')
 * // { ok: true, pet: { name: 'Rex', categoryId: 1n } }
 */
export function validateNewPet(
  contentType: string | undefined,
  body: string | undefined,
  facts: BodyFacts = {},
  maxNameLength: number = DEFAULT_MAX_NAME_LENGTH,
): NewPetResult {
  const encoding = encodingProblem(contentType, facts)
  if (encoding !== undefined) return { ok: false, code: 'unsupported_media_type', message: encoding }
  if (facts.notUtf8)
    return { ok: false, code: 'invalid_body', message: 'Request body is not valid UTF-8: send JSON text encoded as UTF-8.' }
  const empty = body === undefined || body.trim() === ''
  if (empty && contentType === undefined) {
    return { ok: false, code: 'invalid_body', message: 'Request body is required: a NewPet JSON object with name and categoryId.' }
  }
  if (contentType === undefined || !JSON_MEDIA_TYPE.test(contentType)) {
    return {
      ok: false,
      code: 'unsupported_media_type',
      message: `Content-Type must be application/json (got ${contentType === undefined ? 'none' : JSON.stringify(contentType)}).`,
    }
  }
  if (empty) {
    return { ok: false, code: 'invalid_body', message: 'Request body is required: a NewPet JSON object with name and categoryId.' }
  }
  const parsed = parseJson(body)
  if (!parsed.ok) return { ok: false, code: 'invalid_json', message: `Request body is not valid JSON: ${parsed.message}.` }
  const value = parsed.value
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value === 'bigint' ? 'number' : typeof value}`
    return { ok: false, code: 'invalid_body', message: `Request body must be a NewPet JSON object (got ${kind}).` }
  }
  const result = newPetProblems(value, maxNameLength)
  if (!result.ok) return { ok: false, code: 'invalid_body', message: `Invalid NewPet: ${result.problems.join('; ')}.` }
  return { ok: true, pet: result.pet }
}

const INTEGER = /^-?\d+$/

/**
 * The int64 a `petId` path segment denotes, or `undefined` when it is not one (answered 404).
 *
 * @example
 * parsePetId('42') // 42n
 * parsePetId('abc') // undefined
 */
export function parsePetId(segment: string): bigint | undefined {
  let text: string
  try {
    text = decodeURIComponent(segment)
  } catch {
    return undefined
  }
  if (!INTEGER.test(text) || text.length > 30) return undefined
  const id = BigInt(text)
  return id < INT64_MIN || id > INT64_MAX ? undefined : id
}
