/** Seeded faults, fault scoping and scenario selection (docs/scenarios.md). */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setupServer } from 'msw/node'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { createPetStore, type PetStoreOptions } from '../../src/index.js'
import { toHar } from '../../src/journal/har.js'
import { scenarioJsonSchema } from '../../src/scenarios/json-schema.js'
import { writeFixtures } from '../../src/server/files.js'
import { createPetStoreServer, type PetStoreServer } from '../../src/server/http-server.js'
import { runScenarioChecks, worldTarget } from '../support/scenario-checks.js'
import { tempDirs } from '../support/temp-dirs.js'

const temp = tempDirs()
afterAll(temp.remove)

const auth = { authorization: 'Bearer test-enterprise' }
const scenario = (faults: unknown[], extra: object = {}) => ({ name: 'custom', description: 'a test scenario', faults, ...extra })

async function outcomes(options: PetStoreOptions, count: number): Promise<string[]> {
  const petStore = createPetStore(options)
  const seen: string[] = []
  for (let i = 0; i < count; i++) {
    try {
      seen.push(String((await petStore.fetch('/v1/pets?limit=1', { headers: auth })).status))
    } catch {
      seen.push('reset')
    }
  }
  return seen
}

describe('seeded faults', () => {
  it('fails the same requests in two runs of flaky with the same seed', async () => {
    const first = await outcomes({ scenario: 'flaky', seed: 7 }, 150)
    expect(await outcomes({ scenario: 'flaky', seed: 7 }, 150)).toEqual(first)
    expect(first.filter((o) => o !== '200').length).toBeGreaterThan(3)
  })

  it('fails other requests with another seed', async () => {
    expect(await outcomes({ scenario: 'flaky', seed: 8 }, 150)).not.toEqual(await outcomes({ scenario: 'flaky', seed: 7 }, 150))
  })

  it('starts the same sequence again after reset()', async () => {
    const petStore = createPetStore({ scenario: 'flaky', seed: 3 })
    const run = async () => {
      const seen: string[] = []
      for (let i = 0; i < 60; i++)
        seen.push(
          await petStore.fetch('/v1/pets', { headers: auth }).then(
            (r) => String(r.status),
            () => 'reset',
          ),
        )
      return seen
    }
    const first = await run()
    await petStore.reset()
    expect(await run()).toEqual(first)
  })
})

describe('fault scoping', () => {
  it('fails every 3rd matching request only', async () => {
    const seen = await outcomes(
      { scenarios: [scenario([{ chaos: true, when: { every: 3 }, fault: { type: 'status', status: 500 } }])], scenario: 'custom' },
      7,
    )
    expect(seen).toEqual(['200', '200', '500', '200', '200', '500', '200'])
  })

  it('fails the first 2 matching requests only', async () => {
    const seen = await outcomes(
      { scenarios: [scenario([{ chaos: true, when: { first: 2 }, fault: { type: 'status', status: 502 } }])], scenario: 'custom' },
      4,
    )
    expect(seen).toEqual(['502', '502', '200', '200'])
  })

  describe('scoped to createPet for the key test-free', () => {
    const scoped = () => {
      const petStore = createPetStore({
        scenario: 'custom',
        scenarios: [
          scenario([
            { chaos: true, match: { operation: 'createPet', key: 'test-free' }, fault: { type: 'status', status: 503, retryAfter: 5 } },
          ]),
        ],
      })
      const post = (key: string) =>
        petStore.fetch('/v1/pets', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: '{"name":"a","categoryId":1}',
        })
      return { petStore, post }
    }

    it("fails test-free's createPet with the fault's 503 Error, Retry-After included", async () => {
      const failed = await scoped().post('test-free')
      expect(failed.status).toBe(503)
      expect(failed.headers.get('retry-after')).toBe('5')
      expect(await failed.json()).toEqual({ code: 'service_unavailable', message: expect.stringContaining('chaos'), status: 503 })
    })

    it("serves another key's createPet", async () => {
      expect((await scoped().post('test-pro')).status).toBe(201)
    })

    it("serves test-free's other operations", async () => {
      const { petStore } = scoped()
      expect((await petStore.fetch('/v1/pets', { headers: { authorization: 'Bearer test-free' } })).status).toBe(200)
    })
  })

  it('serves a truncated or malformed body that is not JSON', async () => {
    for (const type of ['truncated-body', 'malformed-body']) {
      const petStore = createPetStore({ scenario: 'custom', scenarios: [scenario([{ chaos: true, fault: { type } }])] })
      const response = await petStore.fetch('/v1/pets', { headers: auth })
      expect(response.status).toBe(200)
      const text = await response.text()
      expect(() => JSON.parse(text), type).toThrow()
    }
  })

  it('does not answer a timeout fault until the client gives up', async () => {
    const petStore = createPetStore({ scenario: 'custom', scenarios: [scenario([{ chaos: true, fault: { type: 'timeout' } }])] })
    // A TimeoutError is the client's own signal giving up: the mock neither answered nor failed the request first.
    await expect(petStore.fetch('/v1/pets', { headers: auth, signal: AbortSignal.timeout(150) })).rejects.toMatchObject({
      name: 'TimeoutError',
    })
    expect(petStore.journal.all()).toMatchObject([{ path: '/v1/pets', fault: 'timeout' }])
  })

  it('records in the journal which scenario fault answered a request', async () => {
    const petStore = createPetStore({ scenario: 'outage' })
    await petStore.fetch('/v1/pets', { headers: auth })
    expect(petStore.journal.all()).toMatchObject([{ status: 503, scenario: 'outage', fault: 'status-503', code: 'service_unavailable' }])
  })
})

describe('network errors', () => {
  const networkError = {
    scenario: 'custom',
    scenarios: [scenario([{ chaos: true, when: { first: 1 }, fault: { type: 'network-error' } }])],
  }

  it('makes petStore.fetch reject like a failed fetch, then serves the next request', async () => {
    const petStore = createPetStore(networkError)
    await expect(petStore.fetch('/v1/pets', { headers: auth })).rejects.toThrow(TypeError)
    expect((await petStore.fetch('/v1/pets', { headers: auth })).status).toBe(200)
  })

  it('makes fetch reject through setupServer', async () => {
    const petStore = createPetStore(networkError)
    const server = setupServer(...petStore.handlers)
    server.listen({ onUnhandledRequest: 'error' })
    try {
      await expect(fetch('https://api.petstore.test/v1/pets', { headers: auth })).rejects.toThrow(TypeError)
      expect((await fetch('https://api.petstore.test/v1/pets', { headers: auth })).status).toBe(200)
    } finally {
      server.close()
    }
  })

  describe('over HTTP', () => {
    let server: PetStoreServer | undefined
    afterEach(() => server?.close())

    /** Starts the server with the network-error scenario and sends it the request the fault matches. */
    const startAndSendFirst = async () => {
      server = createPetStoreServer({ port: 0, log: 'silent', ...networkError })
      const url = await server.listen()
      const error = await fetch(`${url}/v1/pets`, { headers: auth }).catch((e: unknown) => e)
      return { url, error }
    }

    it('resets the connection of the request the fault matches', async () => {
      const { error } = await startAndSendFirst()
      expect(error).toBeInstanceOf(TypeError)
    })

    it('keeps serving after the connection it reset', async () => {
      const { url } = await startAndSendFirst()
      expect((await fetch(`${url}/v1/pets`, { headers: auth })).status).toBe(200)
      expect((await fetch(`${url}/__mock/health`)).status).toBe(200)
    })
  })
})

describe('choosing a scenario', () => {
  it('answers one request from another scenario with X-Mock-Scenario, leaving the world as it was', async () => {
    const petStore = createPetStore()
    const empty = await petStore.fetch('/v1/pets', { headers: { ...auth, 'x-mock-scenario': 'empty-store' } })
    expect(await empty.json()).toEqual([])
    expect(await (await petStore.fetch('/v1/pets', { headers: auth })).json()).toHaveLength(20)
    expect(petStore.scenario).toBe('default')
  })

  it('answers an unknown X-Mock-Scenario with a 400 Error that suggests a known name', async () => {
    const petStore = createPetStore()
    const response = await petStore.fetch('/v1/pets', { headers: { ...auth, 'x-mock-scenario': 'sold-out-store' } })
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({
      code: 'unknown_scenario',
      message: expect.stringContaining('Did you mean "sold-out"?'),
      status: 400,
    })
  })

  it('refuses an unknown scenario name with an error listing the known ones, the closest suggested', () => {
    expect(() => createPetStore({ scenario: 'sold-out-store' })).toThrow(
      /\[petstore-mock\] Unknown scenario "sold-out-store"\. Known scenarios: after-sunset, .*unauthorized\. Did you mean "sold-out"\?/,
    )
  })

  it('refuses a scenario whose undocumented fault is not marked chaos, naming the field to set to true', () => {
    const bad = scenario([{ fault: { type: 'status', status: 503 } }])
    expect(() => createPetStore({ scenario: 'custom', scenarios: [bad] })).toThrow(
      /Invalid scenario from the scenarios option: faults\[0\]\.chaos: must be true/,
    )
  })

  const switchedToSoldOut = async () => {
    const petStore = createPetStore()
    await petStore.useScenario('sold-out')
    return petStore
  }

  it('switches a world to another scenario with useScenario()', async () => {
    const petStore = await switchedToSoldOut()
    expect(petStore.scenario).toBe('sold-out')
    expect(await (await petStore.fetch('/v1/pets?status=available', { headers: auth })).json()).toEqual([])
  })

  it('keeps the current scenario when useScenario() is given an unknown name', async () => {
    const petStore = await switchedToSoldOut()
    await expect(petStore.useScenario('nope')).rejects.toThrow(/Unknown scenario "nope"/)
    expect(petStore.scenario).toBe('sold-out')
  })

  it('lets a user scenario override a shipped one by name', async () => {
    const petStore = createPetStore({
      scenario: 'empty-store',
      scenarios: [{ name: 'empty-store', description: 'mine', data: { pets: 2 } }],
    })
    expect(await (await petStore.fetch('/v1/pets', { headers: auth })).json()).toHaveLength(2)
  })

  it('keeps explicit pets of a scenario with exact int64 ids written as strings', async () => {
    const petStore = createPetStore({
      scenario: 'custom',
      scenarios: [{ name: 'custom', description: 'x', data: { pets: [{ id: '9223372036854775807', name: 'Max', categoryId: 1 }] } }],
    })
    expect(await (await petStore.fetch('/v1/pets/9223372036854775807', { headers: auth })).text()).toBe(
      '{"id":9223372036854775807,"name":"Max","categoryId":1}',
    )
  })
})

describe('files', () => {
  it('ships a scenario JSON Schema generated from the schema the mock checks with', async () => {
    expect(await readFile(new URL('../../scenarios/scenario.schema.json', import.meta.url), 'utf8')).toBe(scenarioJsonSchema())
  })

  /** Writes fixtures of 200 pets for each seed, each into its own folder, and reads each file back. */
  const fixturesOf = async (...seeds: number[]) => {
    const dir = await temp.make('fixtures-')
    const files = []
    for (const [i, seed] of seeds.entries()) {
      const [file] = await writeFixtures({ seed, pets: 200, out: join(dir, String(i)) })
      files.push(await readFile(file as string))
    }
    return files
  }

  it('writes byte-identical fixtures of 200 pets for the same seed', async () => {
    const [a, b] = (await fixturesOf(42, 42)) as [Buffer, Buffer]
    expect(a.equals(b)).toBe(true)
    expect(JSON.parse(a.toString()).pets).toHaveLength(200)
  })

  it('writes different fixtures for another seed', async () => {
    const [a, c] = (await fixturesOf(42, 43)) as [Buffer, Buffer]
    expect(a.equals(c)).toBe(false)
  })
})

describe('docs/scenarios.md', () => {
  it('has a complete example that is a valid scenario whose checks pass', async () => {
    const doc = await readFile(new URL('../../docs/scenarios.md', import.meta.url), 'utf8')
    const example = JSON.parse(/```json\n([\s\S]*?)\n```/.exec(doc)?.[1] ?? 'null') as { name: string; checks: never[] }
    const petStore = createPetStore({ scenario: example.name, scenarios: [example] })
    await runScenarioChecks(example.checks, worldTarget(petStore, petStore.fetch, 'https://api.petstore.test'))
  })
})

describe('latency distributions', () => {
  const latency = (fault: Record<string, unknown>) => scenario([{ fault: { type: 'latency', ...fault } }])
  const delays = async (fault: Record<string, unknown>, count: number, seed = 1) => {
    const petStore = createPetStore({ seed, scenario: 'custom', scenarios: [latency(fault)] })
    const request = {
      method: 'GET',
      path: '/v1/pets',
      query: 'limit=1',
      headers: { authorization: 'Bearer test-enterprise' },
      body: undefined,
    }
    const drawn: number[] = []
    for (let i = 0; i < count; i++) drawn.push((await petStore.handle(request)).delayMs ?? 0)
    return drawn
  }

  it('delays answers by a log-normal drawn from the seed: the same delays for the same seed, a long tail', async () => {
    const lognormal = { distribution: 'lognormal', median: 80, p99: 900 }
    const first = await delays(lognormal, 2_000)
    expect(await delays(lognormal, 2_000)).toEqual(first)
    expect(await delays(lognormal, 50, 2)).not.toEqual(first.slice(0, 50))
    const sorted = [...first].sort((a, b) => a - b)
    expect(sorted[999]).toBeGreaterThanOrEqual(72)
    expect(sorted[999]).toBeLessThanOrEqual(88)
    expect(sorted[1_999]).toBeGreaterThan(900)
  })

  it('records the delay it applied in the journal (delayMs, 0 when none) and in the HAR timings', async () => {
    const petStore = createPetStore({ scenario: 'custom', scenarios: [latency({ ms: 30 })] })
    await petStore.fetch('/v1/pets?limit=1', { headers: { authorization: 'Bearer test-free' } })
    await petStore.fetch('/v1/pets?limit=1', { headers: { authorization: 'Bearer test-free', 'x-mock-scenario': 'default' } })
    const [slow, plain] = petStore.journal.all()
    expect([slow?.delayMs, plain?.delayMs]).toEqual([30, 0])
    expect(slow?.durationMs).toBeGreaterThanOrEqual(30)
    const har = toHar(petStore.journal.all(), { origin: 'http://127.0.0.1', version: '0' }) as unknown as {
      log: { entries: { timings: object }[] }
    }
    expect(har.log.entries[0]?.timings).toMatchObject({ _delayMs: 30 })
    expect(har.log.entries[1]?.timings).toMatchObject({ _delayMs: 0 })
  })

  it('keeps the latency forms of before: a fixed ms, and min with max', async () => {
    expect(new Set(await delays({ ms: 250 }, 20))).toEqual(new Set([250]))
    expect((await delays({ min: 100, max: 200 }, 200)).every((ms) => ms >= 100 && ms <= 200)).toBe(true)
  })

  it.each([
    [{ distribution: 'lognormal', median: 80 }, 'a lognormal latency takes "median" and "p99", and no other field'],
    [{ distribution: 'normal', mean: 300, sd: 50, ms: 5 }, 'a normal latency takes "mean" and "sd", and no other field'],
    [{ distribution: 'lognormal', median: 80, p99: 40 }, 'faults[0].fault.p99: must be at least the median'],
    [{ min: 500, max: 100 }, 'faults[0].fault.max: must be at least min'],
    [{}, 'latency needs "ms", or "min" and "max" with max >= min'],
  ])('refuses the latency %j, naming the fields its distribution takes', (fault, message) => {
    expect(() => createPetStore({ scenario: 'custom', scenarios: [latency(fault)] })).toThrow(message)
  })
})
