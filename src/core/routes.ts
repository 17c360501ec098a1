/**
 * The operations of the spec and where they live, in the order the spec lists them.
 * @see ../shared/spec/pet-store-service.md "Endpoints"
 */

export type OperationId = 'listPets' | 'createPet' | 'getPet' | 'listOrders'

export type RouteMatch =
  | { ok: true; operation: OperationId; petId?: string }
  | { ok: false; code: 'route_not_found' }
  | { ok: false; code: 'method_not_allowed'; allow: string; operations: readonly OperationId[] }

interface Route {
  readonly pattern: RegExp
  readonly methods: Readonly<Record<string, OperationId>>
}

const ROUTES: readonly Route[] = [
  { pattern: /^\/pets$/, methods: { GET: 'listPets', POST: 'createPet' } },
  { pattern: /^\/pets\/([^/]+)$/, methods: { GET: 'getPet' } },
  { pattern: /^\/store\/orders$/, methods: { GET: 'listOrders' } },
]

/**
 * Matches a path relative to the base path (`/pets/7`) and a method to an operation.
 *
 * @example
 * matchRoute('GET', '/pets/7') // { ok: true, operation: 'getPet', petId: '7' }
 * matchRoute('DELETE', '/pets/7') // { ok: false, code: 'method_not_allowed', allow: 'GET', … }
 */
export function matchRoute(method: string, path: string): RouteMatch {
  for (const route of ROUTES) {
    const match = route.pattern.exec(path)
    if (!match) continue
    const operation = route.methods[method]
    if (operation === undefined) {
      return {
        ok: false,
        code: 'method_not_allowed',
        allow: Object.keys(route.methods).join(', '),
        operations: Object.values(route.methods),
      }
    }
    return match[1] === undefined ? { ok: true, operation } : { ok: true, operation, petId: match[1] }
  }
  return { ok: false, code: 'route_not_found' }
}
