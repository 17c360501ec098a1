/**
 * `petstore-mock/node`: a Pet Store world behind msw's `setupServer`, in one call.
 *
 * @example
 * import { setupPetStoreServer } from 'petstore-mock/node'
 * const { server, petStore } = setupPetStoreServer({ seed: 1 })
 * beforeAll(() => server.listen({ onUnhandledRequest: 'error' }))
 * afterEach(() => petStore.reset())
 * afterAll(() => server.close())
 */
import { type SetupServer, setupServer } from 'msw/node'
import type { PetStore, PetStoreOptions } from './create-pet-store.js'
// The main entry's `createPetStore`: the Node one, whose requests are spans with `tracing: true`.
import { createPetStore } from './index.js'

export function setupPetStoreServer(options: PetStoreOptions = {}): { server: SetupServer; petStore: PetStore } {
  const petStore = createPetStore(options)
  return { server: setupServer(...petStore.handlers), petStore }
}

export type { PetStore, PetStoreOptions } from './create-pet-store.js'
export { createPetStore } from './index.js'
export { type ConfigFile, loadConfig } from './server/config-file.js'
