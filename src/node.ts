/**
 * `petstore-mock/node`: a Pet Store world behind msw's `setupServer`, in one call.
 *
 * @example
 * import { onUnhandled, setupPetStoreServer } from 'petstore-mock/node'
 * const { server, petStore } = setupPetStoreServer({ seed: 1 })
 * beforeAll(() => server.listen(onUnhandled('error')))
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

/** What `server.listen()` takes, in the msw the project installed (2 or 3). */
export type ListenOptions = NonNullable<Parameters<SetupServer['listen']>[0]>

/**
 * msw's option for a request no handler answers, under both of its names: msw 2 reads `onUnhandledRequest`, msw 3
 * renamed it `onUnhandledFrame`, and each ignores the other's name (decisions/008-msw-3-readiness.md). So one line is
 * right wherever npm put either (msw 3 needs Node 22: on Node 20 a project gets msw 2).
 *
 * @example
 * beforeAll(() => server.listen(onUnhandled('error'))) // a request the mock does not answer fails the test
 */
export function onUnhandled(strategy: 'error' | 'warn' | 'bypass'): ListenOptions {
  return { onUnhandledRequest: strategy, onUnhandledFrame: strategy } as ListenOptions
}

export type { PetStore, PetStoreOptions } from './create-pet-store.js'
export { createPetStore } from './index.js'
export { type ConfigFile, loadConfig } from './server/config-file.js'
