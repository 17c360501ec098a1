/** One test per shipped scenario, driven by the checks in the file itself, in-process, over HTTP and through express (docs/scenarios.md). */
import { afterAll, beforeAll, describe, it } from 'vitest'
import { createPetStore } from '../../src/index.js'
import { BUILT_IN_SCENARIOS, parseScenario } from '../../src/scenarios/catalogue.js'
import { createPetStoreServer, type PetStoreServer } from '../../src/server/http-server.js'
import { startExpressHost } from '../express/support.js'
import { runScenarioChecks, serverTarget, worldTarget } from '../support/scenario-checks.js'

// A file without checks gets none here, and runScenarioChecks fails it: every shipped scenario states what it does.
const scenarios = Object.entries(BUILT_IN_SCENARIOS).map(([name, file]) => ({
  name,
  checks: parseScenario(file, `scenarios/${name}.json`).checks ?? [],
}))

describe('in-process (petStore.fetch)', () => {
  for (const { name, checks } of scenarios) {
    it(`behaves as scenarios/${name}.json states`, async () => {
      const petStore = createPetStore({ scenario: name })
      await runScenarioChecks(checks, worldTarget(petStore, petStore.fetch, 'https://api.petstore.test'))
    })
  }
})

describe('over HTTP (a session per scenario, switched with PUT /__mock/scenario)', () => {
  let server: PetStoreServer
  let url = ''
  beforeAll(async () => {
    server = createPetStoreServer({ port: 0, log: 'silent' })
    url = await server.listen()
  })
  afterAll(() => server.close())

  for (const { name, checks } of scenarios) {
    it(`behaves as scenarios/${name}.json states`, async () => {
      const headers = { 'x-mock-session': `scenario-${name}` }
      const switched = await fetch(`${url}/__mock/scenario`, { method: 'PUT', headers, body: JSON.stringify({ name }) })
      if (switched.status !== 200) throw new Error(`PUT /__mock/scenario answered ${switched.status}: ${await switched.text()}`)
      await runScenarioChecks(checks, serverTarget(url, headers))
    })
  }
})

describe('express middleware (petStoreMiddleware in a user app)', () => {
  for (const { name, checks } of scenarios) {
    it(`behaves as scenarios/${name}.json states`, async () => {
      const petStore = createPetStore({ scenario: name })
      const host = await startExpressHost(petStore, '/api')
      try {
        await runScenarioChecks(checks, worldTarget(petStore, fetch, `${host.origin}/api`, '/api'))
      } finally {
        await host.close()
      }
    })
  }
})
