/**
 * The mock as express middleware, for users who mount it in their own app:
 * `app.use('/api', petStoreMiddleware(petStore))` serves `/api/v1/pets`. Mount it before any body
 * parser: it reads the raw body itself so int64 values stay exact. Answers go through the same
 * delivery step as the standalone server's, so every scenario fault behaves the same here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ApiResponse, ApiResult } from '../core/types.js'
import { DEFAULT_MAX_BODY_BYTES } from '../spec.js'
import type { World } from '../world/create-world.js'
import { apiRequest, createNodeDelivery, type Exchange, readBody, splitUrl } from './node-host.js'

/**
 * What the middleware reads of express's request: node's request, the body a parser mounted before it may have read,
 * and the path express mounted it at. Written here rather than taken from `@types/express`, so that the package's
 * declarations name no type of an optional package (decisions/029); express's `Request` is one of these.
 */
export interface MiddlewareRequest extends IncomingMessage {
  body?: unknown
  baseUrl: string
}

/** An express middleware (`app.use(path, handler)` takes it): node's request and response, and express's `next`. */
export type PetStoreMiddleware = (req: MiddlewareRequest, res: ServerResponse, next: (error?: unknown) => void) => void

export interface PetStoreMiddlewareOptions {
  /** Bodies over this get 413. Default 1 MiB. */
  maxBodyBytes?: number
}

function bodyFromParser(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined
  if (typeof body === 'string') return body
  if (Buffer.isBuffer(body)) return body.toString('utf8')
  // A JSON body parser ran first: its object is all that is left (int64 precision may be lost).
  return typeof body === 'object' && Object.keys(body).length === 0 ? undefined : JSON.stringify(body)
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({})

/** An absolute path (`/v1/pets`), not a network-path reference (`//host/…`) nor a full URL. */
const ABSOLUTE_PATH = /^\/(?!\/)/
/** The start of each target in a `Link` header (RFC 8288 section 3: `<URI-Reference>; params`) that is an absolute path. */
const LINK_TARGET_PATH = /<\/(?!\/)/g

/**
 * The answer as the client must read it through the mount: the world names paths under its own base path
 * (`Location: /v1/pets/51`, `Link: </v1/pets>`), and only the host knows express mounted it at `mount` (`req.baseUrl`),
 * so the paths in `Location` and `Link` get the mount in front (docs/spec-decisions.md row 20a;
 * test/express/mount-path.test.ts). The response's headers object is its own (node-host.ts's delivery writes into it too).
 */
function underMount(response: ApiResponse, mount: string): ApiResponse {
  const { headers } = response
  const location = headers.location
  if (location !== undefined && ABSOLUTE_PATH.test(location)) headers.location = `${mount}${location}`
  const link = headers.link
  if (link !== undefined) headers.link = link.replace(LINK_TARGET_PATH, `<${mount}/`)
  return response
}

function mounted(result: ApiResult, mount: string): ApiResult {
  return result instanceof Promise ? result.then((response) => underMount(response, mount)) : underMount(result, mount)
}

/**
 * Express middleware answering the Pet Store API from `petStore`; requests outside its base path go to `next()`.
 *
 * @example
 * import express from 'express'
 * import { createPetStore } from 'petstore-mock'
 * import { petStoreMiddleware } from 'petstore-mock/http'
 *
 * const app = express()
 * app.use('/api', petStoreMiddleware(createPetStore({ seed: 1 })))
 * app.listen(3000) // GET http://localhost:3000/api/v1/pets
 */
export function petStoreMiddleware(
  petStore: Pick<World, 'handle' | 'basePath'> & Partial<Pick<World, 'markDelivered'>>,
  options: PetStoreMiddlewareOptions = {},
): PetStoreMiddleware {
  const max = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
  const base = petStore.basePath
  const world = { markDelivered: petStore.markDelivered ?? (() => {}) }
  const delivery = createNodeDelivery<Exchange>({
    onFailed: (_exchange, error) => console.error('[petstore-mock] Request failed:', error),
  })
  return (req, res, next) => {
    const { path, query } = splitUrl(req.url ?? '/')
    if (path !== base && !path.startsWith(`${base}/`)) return next()
    const run = async () => {
      const parsed = bodyFromParser(req.body)
      const body =
        parsed !== undefined || req.readableEnded ? { text: parsed, tooLarge: false, abandoned: false } : await readBody(req, max, max * 64)
      const exchange: Exchange = { req, res, world, headers: NO_HEADERS, closeAfter: body.abandoned }
      const result = petStore.handle(apiRequest(req, path, query, body))
      // `req.baseUrl` is the path express mounted this middleware at (empty at the root), as the client sent it.
      delivery.deliver(exchange, req.baseUrl === '' ? result : mounted(result, req.baseUrl))
    }
    run().catch((error: unknown) => delivery.fail({ req, res, world, headers: NO_HEADERS, closeAfter: false }, error))
  }
}
