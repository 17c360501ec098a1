/** The fuzz suite (test/support/fuzz-suite.ts) against `petStore.fetch`; test/http/fuzz-state.test.ts runs it over HTTP. */
import { createPetStore } from '../../src/index.js'
import { defineFuzzSuite, FUZZ_KEYS } from '../support/fuzz-suite.js'

defineFuzzSuite('petStore.fetch', async () => {
  const petStore = createPetStore({ keys: FUZZ_KEYS, seed: 3 })
  await petStore.ready()
  return {
    fetch: petStore.fetch,
    origin: 'https://api.petstore.test',
    async petState() {
      await petStore.ready()
      const { pets, nextId } = petStore.snapshot()
      return { pets, nextId }
    },
  }
})
