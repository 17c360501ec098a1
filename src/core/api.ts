/**
 * The Pet Store API as a function of plain data: `handle(request) -> response`. Every host
 * (msw handlers, `petStore.fetch`, the standalone server) calls this and nothing else, so they
 * all behave the same.
 *
 * Order of the steps (docs/spec-decisions.md, "Order of checks"): base path, route, key, quota,
 * 404/405, body size, then the operation. Routing comes first only so the deprecated operation's
 * headers are on all of its responses; its 404/405 is answered after the key and quota checks.
 */

import { OPERATIONS, type OperationId } from '../spec.js'
import { authenticate, redactKey } from './auth.js'
import { problem } from './errors.js'
import { serializePage, utf8Length } from './json.js'
import type { RuleId } from './reason.js'
import type { Added, Api, ApiRequest, ApiResponse, ApiResult, ApiWorld, PetEntry, PetPage, QuotaDecision } from './types.js'
import { parsePetId, validateListQuery, validateNewPet } from './validate.js'

export type { Api, ApiOptions, ApiWorld, Quota, QuotaDecision } from './types.js'

/** Where each operation of the spec lives ("Endpoints"): a path relative to the base path and a method. */
export type RouteMatch =
  | { ok: true; operation: OperationId; petId?: string }
  | { ok: false; code: 'route_not_found' }
  | { ok: false; code: 'method_not_allowed'; allow: string; operations: readonly OperationId[] }

interface Route {
  /** The spec's path (`/pets/{petId}`) as a pattern. */
  readonly pattern: RegExp
  readonly methods: Readonly<Record<string, OperationId>>
  /** The `Allow` header of a 405: the methods, with HEAD wherever GET is. */
  readonly allow: string
}

/** One route per path of the spec, with the operations of each method on it. */
const ROUTES: readonly Route[] = (() => {
  const byPath = new Map<string, Record<string, OperationId>>()
  for (const operation of OPERATIONS) {
    const methods = byPath.get(operation.path) ?? {}
    methods[operation.method] = operation.id
    byPath.set(operation.path, methods)
  }
  return [...byPath].map(([path, methods]) => ({
    pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '([^/]+)')}$`),
    methods,
    allow: Object.keys(methods)
      .flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method]))
      .join(', '),
  }))
})()

/** The answer of `route` to `method`. */
function methodOf(route: Route, method: string, petId: string | undefined): RouteMatch {
  // HEAD is GET without the body (docs/spec-decisions.md row 46): same status, headers and counting.
  const wanted = method === 'HEAD' ? 'GET' : method
  // Own methods only: a request's method may be any token, `constructor` or `toString` too (fetch hosts pass them on).
  const operation = Object.hasOwn(route.methods, wanted) ? route.methods[wanted] : undefined
  if (operation === undefined) {
    return { ok: false, code: 'method_not_allowed', allow: route.allow, operations: Object.values(route.methods) }
  }
  return petId === undefined ? { ok: true, operation } : { ok: true, operation, petId }
}

/**
 * The operation a request routes to under `basePath`, or `undefined` (another path, or a 404 or 405 of the routes): what
 * answers made before or without the core (a scenario's fault, a shared store's 503) name, as the core's do.
 */
export function operationOf(request: Pick<ApiRequest, 'method' | 'path'>, basePath: string): OperationId | undefined {
  if (!request.path.startsWith(basePath)) return undefined
  const route = matchRoute(request.method, request.path.slice(basePath.length))
  return route.ok ? route.operation : undefined
}

/**
 * Matches a path relative to the base path (`/pets/7`) and a method to an operation.
 *
 * @example
 * matchRoute('GET', '/pets/7') // { ok: true, operation: 'getPet', petId: '7' }
 * matchRoute('DELETE', '/pets/7') // { ok: false, code: 'method_not_allowed', allow: 'GET, HEAD', … }
 */
export function matchRoute(method: string, path: string): RouteMatch {
  for (const route of ROUTES) {
    const match = route.pattern.exec(path)
    if (match) return methodOf(route, method, match[1])
  }
  return { ok: false, code: 'route_not_found' }
}

/** An error answer marked with the rule that decided it (src/core/reason.ts). */
function refused(rule: RuleId, ...args: Parameters<typeof problem>): ApiResponse {
  return { ...problem(...args), meta: { rule } }
}

function header(request: ApiRequest, name: string): string | undefined {
  const value = request.headers[name]
  return typeof value === 'string' || value === undefined ? value : value.join(', ')
}

/**
 * A 2xx JSON response, with headers of its own: `headers` copied by assignment, as `problem` does for errors (one hidden
 * class for every answer alike). Here rather than beside `problem`, so a successful answer is made in this file.
 */
function json(status: number, body: string, headers?: Readonly<Record<string, string>>): ApiResponse {
  const own: Record<string, string> = Object.assign({}, headers)
  own['content-type'] = 'application/json'
  return { status, headers: own, body }
}

/** Bytes, not UTF-16 units, count against the limit; the cheap length checks settle most bodies. */
function isTooLarge(request: ApiRequest, max: number): boolean {
  const { body } = request
  if (body === undefined || body.length * 3 <= max) return false
  return body.length > max || utf8Length(body) > max
}

/** A page of pets as the response body: the one the store keeps ready, else written now. */
function listed(page: PetPage): ApiResponse {
  return json(200, page.json ?? serializePage(page.entries))
}

/** `GET /pets` (listPets). */
function listPets(world: ApiWorld, request: ApiRequest): ApiResult {
  const query = validateListQuery(request.query, world.options.queryValidation)
  if (!query.ok) return refused(query.rule, 'invalid_query_parameter', query.message)
  const entries = query.statusMatchesNothing ? { entries: [] } : world.pets.list(query.status, query.limit)
  return entries instanceof Promise ? entries.then(listed) : listed(entries)
}

const RULE_OF_BODY = {
  invalid_json: 'validation.json',
  invalid_body: 'validation.body',
  unsupported_media_type: 'validation.media-type',
} as const satisfies Record<string, RuleId>

/** `POST /pets` (createPet). */
function createPet(world: ApiWorld, request: ApiRequest): ApiResult {
  const facts = { contentEncoding: header(request, 'content-encoding'), notUtf8: request.bodyNotUtf8 }
  const result = validateNewPet(header(request, 'content-type'), request.body, facts, world.options.maxNameLength)
  if (!result.ok) {
    const status = result.code === 'unsupported_media_type' ? world.options.mediaTypeErrorStatus : undefined
    return refused(RULE_OF_BODY[result.code], result.code, result.message, {}, status)
  }
  const { defaultStatus } = world.options
  const pet = result.pet.status === undefined && defaultStatus !== undefined ? { ...result.pet, status: defaultStatus } : result.pet
  const added = world.pets.add(pet)
  return added instanceof Promise ? added.then((result) => created(world, result)) : created(world, added)
}

/** The answer to a create: 201 once every copy has the pet, or 507 when no id was left. */
function created(world: ApiWorld, added: Added | undefined): ApiResult {
  if (!added) {
    return refused(
      'data.id-space-exhausted',
      'id_space_exhausted',
      'No int64 id is left for a new pet: the largest id is the int64 maximum. Reset the state or import one with a lower nextId.',
    )
  }
  const { entry, written } = added
  const response = json(201, entry.json, { location: `${world.basePath}/pets/${entry.id}` })
  return written ? written.then(() => response) : response
}

/** `GET /pets/{petId}` (getPet, deprecated): 410 from the sunset on. */
function getPet(world: ApiWorld, petId: string): ApiResult {
  const { basePath, options } = world
  if (world.now() >= options.sunsetAt) {
    return refused(
      'lifecycle.after-sunset',
      'gone',
      `GET ${basePath}/pets/{petId} was removed on ${new Date(options.sunsetAt).toUTCString()}. Use GET ${basePath}/pets with the status filter instead.`,
    )
  }
  const id = parsePetId(petId)
  const entry = id === undefined ? undefined : world.pets.get(id)
  return entry instanceof Promise ? entry.then((found) => got(found, petId)) : got(entry, petId)
}

function got(entry: PetEntry | undefined, petId: string): ApiResponse {
  if (!entry) return refused('data.pet-not-found', 'pet_not_found', `No pet with id ${JSON.stringify(petId)}.`)
  return json(200, entry.json)
}

/** `GET /store/orders`: listed by the spec, not defined by it. */
function listOrders(world: ApiWorld): ApiResponse {
  return refused(
    'spec.not-defined',
    'not_implemented',
    `GET ${world.basePath}/store/orders is listed by the Pet Store spec, but the spec does not define it, so petstore-mock cannot answer it. Put your own msw handler in front of it (see docs/in-process.md and docs/server.md, "Your own handlers").`,
  )
}

function operate(world: ApiWorld, operation: OperationId, request: ApiRequest, petId: string | undefined): ApiResult {
  switch (operation) {
    case 'listPets':
      return listPets(world, request)
    case 'createPet':
      return createPet(world, request)
    case 'getPet':
      return getPet(world, petId ?? '')
    case 'listOrders':
      return listOrders(world)
  }
}

/**
 * Builds the API over one world.
 *
 * @example
 * const api = createApi(world)
 * const response = api.handle({ method: 'GET', path: '/v1/pets', query: 'limit=2', headers: { authorization: 'Bearer test-pro' }, body: undefined })
 */
export function createApi(world: ApiWorld): Api {
  const { basePath, options } = world
  const deprecationHeaders: Record<string, string> = {
    deprecation: `@${Math.floor(options.deprecatedAt / 1000)}`,
    sunset: new Date(options.sunsetAt).toUTCString(),
    link: `<${basePath}/pets>; rel="successor-version"`,
  }

  return {
    handle(request) {
      if (!request.path.startsWith(basePath) || (request.path.length > basePath.length && request.path[basePath.length] !== '/')) {
        return refused('route.not-found', 'route_not_found', `No operation at ${request.path}: the API lives under ${basePath}.`)
      }
      const route = matchRoute(request.method, request.path.slice(basePath.length))
      const isGetPet =
        (route.ok && route.operation === 'getPet') ||
        (!route.ok && route.code === 'method_not_allowed' && route.operations.includes('getPet'))
      const extra = isGetPet ? deprecationHeaders : undefined

      const caller = authenticate(header(request, 'authorization'), world.keys)
      if (!caller.ok) {
        const response = problem('unauthorized', caller.message, { 'www-authenticate': 'Bearer', ...world.quota.unauthenticated() })
        // The operation is known before the key: the journal (and spec coverage) tells a 401 of POST /pets from one of GET.
        const meta = { operation: route.ok ? route.operation : undefined, rule: caller.rule }
        return { ...response, headers: extra ? { ...extra, ...response.headers } : response.headers, meta }
      }
      const decided = world.quota.consume(caller.key)
      const { plan } = caller.key
      const keyHint = redactKey(caller.key.key)
      const operation = route.ok ? route.operation : undefined
      const counted = (quota: QuotaDecision) => afterQuota(world, request, route, quota, (response) => finish(quota, response))
      const finish = (quota: QuotaDecision, response: ApiResponse): ApiResponse => {
        // The quota's headers object is new for each request: add to it rather than copy it (hot path).
        const headers = quota.headers
        if (extra) Object.assign(headers, extra)
        Object.assign(headers, response.headers)
        // The rule is the response's own (an error names it), else `ok` (src/core/reason.ts).
        const rule = response.meta?.rule ?? 'ok'
        const meta = response.meta?.banStarted
          ? { plan, keyHint, operation, rule, banStarted: true as const }
          : { plan, keyHint, operation, rule }
        return { status: response.status, headers, body: response.body, meta }
      }
      return decided instanceof Promise ? decided.then(counted) : counted(decided)
    },
  }
}

/** After the key's request was counted: its refusal, 404/405, 413, or the operation. */
function afterQuota(
  world: ApiWorld,
  request: ApiRequest,
  route: ReturnType<typeof matchRoute>,
  quota: QuotaDecision,
  finish: (response: ApiResponse) => ApiResponse,
): ApiResult {
  if (!quota.ok) {
    const response = refused(quota.rule, quota.code, quota.message)
    return finish(quota.banStarted ? { ...response, meta: { rule: quota.rule, banStarted: true } } : response)
  }
  if (!route.ok) {
    if (route.code === 'route_not_found')
      return finish(refused('route.not-found', 'route_not_found', `No operation at ${request.method} ${request.path}.`))
    return finish(
      refused(
        'route.method-not-allowed',
        'method_not_allowed',
        `${request.method} is not allowed on ${request.path}; allowed: ${route.allow}.`,
        {
          allow: route.allow,
        },
      ),
    )
  }
  const { maxBodyBytes } = world.options
  if (request.bodyTooLarge || isTooLarge(request, maxBodyBytes)) {
    return finish(refused('validation.body-too-large', 'payload_too_large', `Request body is larger than ${maxBodyBytes} bytes.`))
  }
  const result = operate(world, route.operation, request, route.petId)
  return result instanceof Promise ? result.then(finish) : finish(result)
}
