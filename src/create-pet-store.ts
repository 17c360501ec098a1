/**
 * `createPetStore(options)`: a Pet Store world for tests and browsers, with msw `handlers` and its
 * pets in an @msw/data collection (`petStore.pets`) for set-up code.
 */
import { bypass, type HttpHandler } from 'msw'
import type { RateLimiter } from './core/rate-limit.js'
import { createHandlers } from './handlers/index.js'
import { createCollectionData } from './store/collection-data.js'
import { createIndexOnlyData } from './store/pet-data.js'
import { createWorld, type World, type WorldShared } from './world/create-world.js'
import type { PetStoreOptions } from './world/options.js'

export interface PetStore extends World {
  /** msw request handlers: `setupServer(...petStore.handlers)`. */
  readonly handlers: HttpHandler[]
  /** The rate limiter's counters, in this process's memory. */
  readonly rateLimiter: RateLimiter
}

/**
 * Creates one isolated Pet Store world. Two stores never share pets, counters or clocks.
 *
 * @example
 * import { setupServer } from 'msw/node'
 * import { createPetStore } from 'petstore-mock'
 *
 * const petStore = createPetStore({ seed: 1 })
 * const server = setupServer(...petStore.handlers)
 * server.listen()
 * const response = await fetch('https://api.petstore.test/v1/pets', { headers: { Authorization: 'Bearer test-pro' } })
 */
export function createPetStore(options: PetStoreOptions = {}): PetStore {
  return createPetStoreSharing(options, {})
}

/** `createPetStore` with what a host shares with the world: the Node entries' tracing listener (src/index.ts). */
export function createPetStoreSharing(options: PetStoreOptions, shared: WorldShared): PetStore {
  // The one switch between storages: the collection unless set-up code has said it needs none.
  const data = options.collection === false ? createIndexOnlyData() : createCollectionData()
  // A proxied request must reach the upstream, not msw's handlers (which answer any origin's /v1).
  const proxyFetch: typeof fetch = (input, init) => globalThis.fetch(bypass(new Request(input, init)))
  const world: World = createWorld(options.proxy === undefined || options.proxyFetch ? options : { ...options, proxyFetch }, data, shared)
  let handlers: HttpHandler[] | undefined
  return Object.defineProperty(world, 'handlers', {
    enumerable: true,
    get: () => {
      handlers ??= createHandlers(world.handle, world.urlPattern, world.markDelivered)
      return handlers
    },
  }) as PetStore
}

export type { World } from './world/create-world.js'
export type { PetStoreOptions } from './world/options.js'
