/** The shared conformance suite through the express host: a world per test, mounted in a user's app. */
import { createPetStore } from '../../src/index.js'
import { defineConformanceSuite } from '../conformance/suite.js'
import { startExpressHost } from './support.js'

defineConformanceSuite({
  name: 'express middleware (petStoreMiddleware) over HTTP',
  async start(options) {
    const petStore = createPetStore(options)
    const host = await startExpressHost(petStore)
    return {
      fetch: (input, init) => fetch(input, init),
      baseUrl: `${host.origin}/v1`,
      setClock: async (iso) => petStore.clock.set(iso),
      close: host.close,
    }
  },
})
