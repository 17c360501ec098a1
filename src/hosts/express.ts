/**
 * The mock as express middleware, for users who mount it in their own app:
 * `app.use('/api', petStoreMiddleware(petStore))` serves `/api/v1/pets`. Mount it before any body
 * parser: it reads the raw body itself so int64 values stay exact.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express'
import type { World as PetStore } from '../world.js'
import { apiRequest, readBody, splitUrl } from './node-request.js'

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
  petStore: Pick<PetStore, 'handle' | 'basePath'> & Partial<Pick<PetStore, 'markDelivered'>>,
  options: PetStoreMiddlewareOptions = {},
): RequestHandler {
  const max = options.maxBodyBytes ?? 1024 * 1024
  const base = petStore.basePath
  return (req: Request, res: Response, next: NextFunction) => {
    const { path, query } = splitUrl(req.url)
    if (path !== base && !path.startsWith(`${base}/`)) return next()
    const run = async () => {
      const parsed = bodyFromParser(req.body)
      const body = parsed !== undefined || req.readableEnded ? { text: parsed, tooLarge: false } : await readBody(req, max, max * 64)
      const result = petStore.handle(apiRequest(req, path, query, body))
      const response = result instanceof Promise ? await result : result
      res.status(response.status).set(response.headers).send(response.body)
      petStore.markDelivered?.(response)
    }
    run().catch(next)
  }
}
