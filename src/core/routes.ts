/**
 * Where each operation of the spec lives: a path relative to the base path and a method, matched
 * against the operation list of `spec.ts`.
 * @see ../shared/spec/pet-store-service.md "Endpoints"
 */
import { OPERATIONS, type OperationId } from '../spec.js'

export type { OperationId } from '../spec.js'

export type RouteMatch =
  | { ok: true; operation: OperationId; petId?: string }
  | { ok: false; code: 'route_not_found' }
  | { ok: false; code: 'method_not_allowed'; allow: string; operations: readonly OperationId[] }

interface Route {
  /** The spec's path, e.g. `/pets/{petId}`. */
  readonly path: string
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
    path,
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
