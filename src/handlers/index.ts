/**
 * The msw request handlers: one per operation of the spec, in the order the spec lists them,
 * plus a fallback under the base path that answers 404/405. Users can put their own handler in
 * front of any one operation with `server.use()`.
 */
import { type HttpHandler, http } from 'msw'
import type { ApiRequest, ApiResponse, ApiResult } from '../core/types.js'
import { OPERATIONS } from '../spec.js'
import { answerOf, deliverFetch, fromRequest } from './fetch.js'

const METHODS = { GET: http.get, POST: http.post } as const

/**
 * Builds the handlers over a world's `handle`. `base` is an msw URL pattern of the API's base,
 * e.g. `* /v1` (any origin) or `https://api.petstore.test/v1`.
 *
 * @example
 * const server = setupServer(...createHandlers(petStore.handle, '*\/v1'))
 */
export function createHandlers(
  handle: (request: ApiRequest) => ApiResult,
  base: string,
  onDelivered: (response: ApiResponse) => void = () => {},
): HttpHandler[] {
  const resolver = async ({ request }: { request: Request }): Promise<Response> => {
    const delivery = { signal: request.signal, onDrop: () => Response.error(), onDelivered, head: request.method === 'HEAD' }
    return deliverFetch(await answerOf(handle, await fromRequest(request)), delivery)
  }
  return [
    // listPets, createPet, getPet (deprecated), listOrders (not defined by the spec: 501)
    ...OPERATIONS.map((operation) => METHODS[operation.method](`${base}${operation.path.replace(/\{(\w+)\}/g, ':$1')}`, resolver)),
    http.all(`${base}/*`, resolver), // anything else under the base: 404 or 405
    http.all(base, resolver),
  ]
}
