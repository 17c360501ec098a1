import { setupServer } from 'msw/node'
import { createPetStore } from '../../src/index.js'
import { defineConformanceSuite } from '../conformance/suite.js'

const BASE_URL = 'https://api.petstore.test/v1'

// Both hosts start worlds the way the README does, without awaiting petStore.ready().
// msw's setupServer patches the global fetch: one server at a time, so this file's tests run in sequence.
defineConformanceSuite({
  name: 'msw setupServer with the global fetch',
  async start(options) {
    const petStore = createPetStore(options)
    const server = setupServer(...petStore.handlers)
    server.listen({ onUnhandledRequest: 'error' })
    return {
      fetch: (input, init) => globalThis.fetch(input, init),
      baseUrl: BASE_URL,
      setClock: async (iso) => petStore.clock.set(iso),
      close: async () => server.close(),
    }
  },
})

defineConformanceSuite({
  name: 'petStore.fetch',
  async start(options) {
    const petStore = createPetStore(options)
    return {
      fetch: petStore.fetch,
      baseUrl: BASE_URL,
      setClock: async (iso) => petStore.clock.set(iso),
      close: async () => {},
    }
  },
})
