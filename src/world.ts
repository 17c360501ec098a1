/**
 * `createWorld(options)`: one isolated Pet Store world (data, keys, clock, counters, scenario,
 * journal) and the host-free ways to reach it: the plain `handle` the hosts call and a `fetch`
 * function. It loads neither msw nor @msw/data: `createPetStore` adds those for in-process use,
 * and the standalone server's sessions are worlds without them (fast start, small memory).
 */
import { type Clock, createClock, type Moment, toEpochMs } from './clock.js'
import { type Api, createApi } from './core/api.js'
import { type AuditReport, auditJournal } from './core/audit.js'
import { plainMessage, problem } from './core/errors.js'
import { withFaults } from './core/faults.js'
import { createJournal, type Journal } from './core/journal.js'
import { createRandom } from './core/random.js'
import { createRateLimiter, DEFAULT_RATE_LIMIT_OPTIONS, type RateLimiter, type RateLimitOptions } from './core/rate-limit.js'
import type { ApiKey, ApiRequest, ApiResponse, ApiResult } from './core/types.js'
import type { QueryValidation } from './core/validate.js'
import { createFetch } from './hosts/fetch.js'
import { DEFAULT_KEYS, type KeyConfig, PLAN_LIMITS, resolveKeys } from './keys.js'
import { createScenarioCatalogue, type ScenarioCatalogue, unknownScenarioMessage } from './scenarios/catalogue.js'
import type { Scenario } from './scenarios/schema.js'
import { type Pet, type PetRecordInput, PetRecordSchema, type PetStatus, PetStatusSchema } from './schemas.js'
import { parseSnapshot, type WorldSnapshot } from './snapshot.js'
import { createIndexOnlyData } from './store/index-only-data.js'
import type { PetCollection, PetData } from './store/pet-data.js'
import { generatePets } from './store/seed.js'

/** The removal date of `GET /pets/{petId}` in the spec ("Versioning"). */
export const SUNSET = '2030-12-05T00:00:00Z'
/** The spec gives no deprecation date; this default is the mock's (docs/spec-decisions.md). */
export const DEPRECATED_AT = '2026-01-01T00:00:00Z'

export interface PetStoreOptions {
  /** Seed of the generated pets. Default 1. */
  seed?: number
  /** How many pets to generate (default 50), or the pets themselves. */
  pets?: number | readonly PetRecordInput[]
  /** Generated pets get categories 1..categories. Default 10. */
  categories?: number
  /**
   * Where the API lives. Default `* /v1` without the space: any origin, path `/v1`, so the same
   * handlers serve production, staging and localhost. A full URL (`https://api.petstore.test/v1`)
   * limits the msw handlers to that origin.
   */
  baseUrl?: string
  /** API keys and their plans. Default: `test-free`, `test-pro`, `test-business`, `test-enterprise`. */
  keys?: readonly KeyConfig[]
  /** The world's clock, or a moment to freeze a new clock at. Default: a new clock on real time. */
  clock?: Clock | Moment
  /** `strict` (default): 400 for `limit` outside 1..100 or an unknown `status`; `lenient`: clamp. */
  queryValidation?: QueryValidation
  /** Status stored when `POST /pets` omits it. Default: none (the pet has no `status`). */
  defaultStatus?: PetStatus
  /** Bodies larger than this get 413. Default 1 MiB. */
  maxBodyBytes?: number
  /** When `GET /pets/{petId}` was deprecated, for its `Deprecation` header. */
  deprecatedAt?: Moment
  /** The scenario to start in (see docs/scenarios.md). Default `default`. */
  scenario?: string
  /** Your own scenarios (parsed scenario files): they add to the shipped ones or override them by name. */
  scenarios?: readonly unknown[]
  /**
   * Keep the pets in an @msw/data collection too (`petStore.pets`). Default `true`. The standalone
   * server turns it off: its worlds are only reached over HTTP, and the indexes alone are faster and smaller.
   */
  collection?: boolean
  /** How many exchanges the request journal keeps (oldest dropped first). Default 1,000; 0 turns it off. */
  journalLimit?: number
  /** Rate-limit and ban settings. */
  rateLimit?: {
    /** The early retry that bans a key. Default 5. */
    banAfterEarlyRetries?: number
    /** Ban length in seconds. Default 900 (15 minutes). */
    banDurationSeconds?: number
    /** `Retry-After` as `seconds` (default) or `http-date`. */
    retryAfterFormat?: 'seconds' | 'http-date'
    /** What a 401 reports: `free-plan` (default) or `omit`. */
    unauthenticatedHeaders?: 'free-plan' | 'omit'
  }
}

export interface World {
  /** The msw URL pattern of the API's base (`*\/v1` by default), for the handlers. */
  readonly urlPattern: string
  /** A `fetch` function answered by this world directly, without interception. */
  readonly fetch: typeof fetch
  /** The path the API lives under, e.g. `/v1`. */
  readonly basePath: string
  /** The core: a plain request in, a plain response out. Hosts call this. */
  readonly handle: (request: ApiRequest) => ApiResult
  /** Hosts call this when they hand a response of `handle` to the client (the retry audit tells in-flight requests from retries). */
  readonly markDelivered: (response: ApiResponse) => void
  /** The pets, as an @msw/data collection: read and write them in test set-up. */
  readonly pets: PetCollection
  /** This world's clock. */
  readonly clock: Clock
  /** The known API keys. */
  readonly keys: ReadonlyMap<string, ApiKey>
  /** The rate limiter's counters. */
  readonly rateLimiter: RateLimiter
  /** The last exchanges this world answered, newest last. */
  readonly journal: Journal
  /** Did each key honour Retry-After and back off? Computed from the journal. */
  audit(): AuditReport
  /** The whole state: pets, next id, counters and bans, clock. */
  snapshot(): WorldSnapshot
  /** Replaces the whole state with a snapshot (checked first: a bad one changes nothing and throws). */
  restore(snapshot: unknown): Promise<void>
  /** The name of the current scenario. */
  readonly scenario: string
  /** Switches this world to a scenario: its data, keys, counters, clock and faults, from scratch. Throws for an unknown name. */
  useScenario(name: string): Promise<void>
  /** The scenarios this world knows. */
  readonly scenarios: ScenarioCatalogue
  /** Resolves when the collection holds every pet written so far. */
  ready(): Promise<void>
  /** Back to the seeded state of the current scenario: pets, ids, counters, bans, journal; the clock returns to real time (or the scenario's start). */
  reset(): Promise<void>
}

function fail(message: string): never {
  throw new TypeError(`[petstore-mock] ${message}`)
}

function basePathOf(baseUrl: string): { pattern: string; path: string } {
  const trimmed = baseUrl.replace(/\/+$/, '')
  if (trimmed.startsWith('*/') || trimmed.startsWith('/')) {
    const path = trimmed.startsWith('*') ? trimmed.slice(1) : trimmed
    return { pattern: trimmed.startsWith('*') ? trimmed : `*${trimmed}`, path }
  }
  let url: URL
  try {
    url = new URL(trimmed)
  } catch {
    return fail(`baseUrl ${JSON.stringify(baseUrl)} is not a URL or a path: use e.g. "https://api.petstore.test/v1", "/v1" or "*/v1".`)
  }
  return { pattern: trimmed, path: url.pathname.replace(/\/+$/, '') }
}

function checkPets(pets: readonly unknown[], where: string): Pet[] {
  return pets.map((input, index) => {
    const parsed = PetRecordSchema.safeParse(input)
    if (!parsed.success)
      fail(
        `${where}[${index}] is not a valid pet: ${parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`).join('; ')}.`,
      )
    return parsed.data
  })
}

function wholeNumber(value: number, name: string, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) fail(`${name} must be a whole number of at least ${min}, got ${String(value)}.`)
  return value
}

/** The pets a world starts with: the scenario's data, else the options', else 50 generated from the seed. */
function startingPets(options: PetStoreOptions, scenario: Scenario | undefined, seed: number): Pet[] {
  const data = scenario?.data
  const pets = data?.pets ?? options.pets ?? 50
  if (typeof pets !== 'number') {
    const list = pets.map((pet) => (typeof pet === 'object' && pet !== null ? normalizeIds(pet) : pet))
    return checkPets(list, data?.pets !== undefined ? `scenario "${scenario?.name}" data.pets` : 'pets')
  }
  const generated = generatePets({
    seed,
    count: wholeNumber(pets, 'pets', 0),
    categories: wholeNumber(data?.categories ?? options.categories ?? 10, 'categories', 1),
  })
  const status = data?.status
  return status === undefined ? generated : generated.map((pet) => ({ ...pet, status }))
}

/** Scenario files may write int64 ids as strings of digits to keep them exact. */
function normalizeIds(pet: object): object {
  const record = { ...pet } as Record<string, unknown>
  for (const field of ['id', 'categoryId']) if (typeof record[field] === 'string') record[field] = BigInt(record[field] as string)
  return record
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback
  if (!Number.isFinite(value) || value <= 0) fail(`${name} must be a positive number, got ${String(value)}.`)
  return value
}

/**
 * Creates one isolated Pet Store world without msw or @msw/data (hosts that need neither use it;
 * in tests, use `createPetStore`). `makeData` makes the pets' storage; the default keeps them in
 * the indexes only.
 *
 * @example
 * const world = createWorld({ seed: 7 })
 * const response = await world.fetch('/v1/pets', { headers: { Authorization: 'Bearer test-free' } })
 */
export function createWorld(options: PetStoreOptions = {}, makeData: (collection: boolean) => PetData = createIndexOnlyData): World {
  const { pattern, path: basePath } = basePathOf(options.baseUrl ?? '*/v1')
  const storeSeed = wholeNumber(options.seed ?? 1, 'seed', Number.MIN_SAFE_INTEGER)
  const scenarios = createScenarioCatalogue(options.scenarios as never[] | undefined)
  const given = options.clock
  const clock = typeof given === 'object' && !(given instanceof Date) ? given : createClock()
  if (given !== undefined && clock !== given) clock.set(given as Moment)
  if (options.defaultStatus !== undefined && !PetStatusSchema.safeParse(options.defaultStatus).success) {
    fail(`defaultStatus must be one of available, pending, sold, got ${JSON.stringify(options.defaultStatus)}.`)
  }
  const queryValidation = options.queryValidation ?? 'strict'
  if (queryValidation !== 'strict' && queryValidation !== 'lenient')
    fail(`queryValidation must be "strict" or "lenient", got ${JSON.stringify(queryValidation)}.`)

  const rl = options.rateLimit ?? {}
  const rateLimitOptions: RateLimitOptions = {
    banAfterEarlyRetries: positive(
      rl.banAfterEarlyRetries,
      DEFAULT_RATE_LIMIT_OPTIONS.banAfterEarlyRetries,
      'rateLimit.banAfterEarlyRetries',
    ),
    banDurationMs: positive(rl.banDurationSeconds, DEFAULT_RATE_LIMIT_OPTIONS.banDurationMs / 1000, 'rateLimit.banDurationSeconds') * 1000,
    retryAfterFormat: rl.retryAfterFormat ?? 'seconds',
    unauthenticatedHeaders: rl.unauthenticatedHeaders ?? 'free-plan',
    freePlan: PLAN_LIMITS.free,
  }
  const rateLimiter = createRateLimiter({ now: clock.now, options: rateLimitOptions })
  const keys = new Map<string, ApiKey>()
  const data = makeData(options.collection !== false)
  const journal = createJournal({ limit: options.journalLimit ?? 1_000, now: clock.now })
  const core: Api = createApi({
    basePath,
    keys,
    pets: data.repository,
    quota: rateLimiter,
    now: clock.now,
    options: {
      queryValidation,
      defaultStatus: options.defaultStatus,
      maxBodyBytes: positive(options.maxBodyBytes, 1024 * 1024, 'maxBodyBytes'),
      sunsetAt: toEpochMs(SUNSET),
      deprecatedAt: toEpochMs(options.deprecatedAt ?? DEPRECATED_AT),
    },
  })

  let api = core
  let scenario: Scenario = scenarios.get('default')
  let startPets: { scenario: Scenario; pets: Pet[] } | undefined

  /** Keys and faults of a scenario: checked first, so a bad scenario changes nothing. */
  const configure = (next: Scenario) => {
    const seed = next.seed ?? storeSeed
    const resolved = resolveKeys(next.keys?.list ?? options.keys ?? DEFAULT_KEYS)
    for (const name of Object.keys(next.keys?.start ?? {})) {
      if (name !== '*' && !resolved.has(name))
        fail(`scenario "${next.name}" keys.start.${name}: no such key. Known keys: ${[...resolved.keys()].join(', ')}.`)
    }
    return () => {
      keys.clear()
      for (const [name, key] of resolved) keys.set(name, key)
      api = next.faults?.length
        ? withFaults(core, { rules: next.faults, random: createRandom(seed ^ 0x9e3779b9), basePath, scenario: next.name })
        : core
      scenario = next
    }
  }

  /** Starts a world in a scenario: data, counters, clock. */
  const start = (next: Scenario, first: boolean): Promise<void> => {
    const commit = configure(next)
    if (startPets?.scenario !== next) startPets = { scenario: next, pets: startingPets(options, next, next.seed ?? storeSeed) }
    commit()
    rateLimiter.reset()
    journal.clear()
    if (next.clock) clock.set(next.clock.start, { running: !next.clock.frozen })
    else if (!first) clock.useRealTime()
    const now = clock.now()
    for (const [name, counters] of Object.entries(next.keys?.start ?? {})) {
      for (const key of name === '*' ? [...keys.values()] : [keys.get(name) as ApiKey]) {
        const minuteCount = counters.minuteUsed === 'all' ? key.limits.perMinute : (counters.minuteUsed ?? 0)
        const dayCount = counters.dayUsed === 'all' ? key.limits.perDay : (counters.dayUsed ?? 0)
        rateLimiter.setCounters(key.key, {
          minuteStart: now - (now % 60_000),
          minuteCount,
          dayStart: now - (now % 86_400_000),
          dayCount: Math.max(dayCount, minuteCount),
          retryAt: 0,
          earlyRetries: 0,
          bannedUntil: counters.bannedForSeconds === undefined ? 0 : now + counters.bannedForSeconds * 1000,
        })
      }
    }
    return data.load(startPets.pets)
  }

  void start(options.scenario === undefined ? scenario : scenarios.get(options.scenario), true)

  /** Worlds for one-off `X-Mock-Scenario` requests, made on first use. */
  const oneOff = new Map<string, World>()
  /** Requests in the order they reached this world, for the retry audit. */
  let arrivals = 0
  const handle = (request: ApiRequest): ApiResult => {
    const arrival = ++arrivals
    const record = (request: ApiRequest, response: ApiResponse, scenarioName: string) => {
      journal.record(request, response, { arrival, scenario: scenarioName, fault: response.meta?.fault })
      return response
    }
    const requested = request.headers['x-mock-scenario']
    if (typeof requested === 'string' && requested !== '' && requested !== scenario.name) {
      if (!scenarios.has(requested))
        return record(request, problem('unknown_scenario', unknownScenarioMessage(requested, scenarios.names())), requested)
      let world = oneOff.get(requested)
      if (!world) {
        try {
          world = createWorld({ ...options, scenario: requested, journalLimit: 0 })
        } catch (error) {
          return record(request, problem('unknown_scenario', plainMessage(error)), requested)
        }
        oneOff.set(requested, world)
      }
      const result = world.handle(request)
      return result instanceof Promise
        ? result.then((response) => record(request, response, requested))
        : record(request, result, requested)
    }
    const result = api.handle(request)
    return result instanceof Promise
      ? result.then((response) => record(request, response, scenario.name))
      : record(request, result, scenario.name)
  }
  const markDelivered = (response: ApiResponse) => journal.delivered(response, arrivals + 1)
  return {
    urlPattern: pattern,
    fetch: createFetch(handle, markDelivered),
    markDelivered,
    basePath,
    handle,
    get pets() {
      if (!data.collection) {
        fail(
          'This world has no @msw/data collection (created with collection: false, as the standalone server does). Use the API, or GET /__mock/state.',
        )
      }
      return data.collection
    },
    clock,
    keys,
    rateLimiter,
    journal,
    audit: () => auditJournal(journal.all()),
    scenarios,
    get scenario() {
      return scenario.name
    },
    useScenario(name) {
      try {
        const next = scenarios.get(name)
        oneOff.clear()
        return start(next, false)
      } catch (error) {
        return Promise.reject(error)
      }
    },
    ready: () => data.settled(),
    snapshot() {
      const { pets, nextId } = data.snapshot()
      return { version: 1, pets, nextId, rateLimits: rateLimiter.snapshot(), clock: clock.snapshot(), scenario: scenario.name }
    },
    async restore(input) {
      const result = parseSnapshot(input)
      if (!result.ok) fail(result.message)
      const { snapshot } = result
      configure(snapshot.scenario === undefined ? scenario : scenarios.get(snapshot.scenario))()
      rateLimiter.reset()
      for (const [key, counters] of Object.entries(snapshot.rateLimits)) rateLimiter.setCounters(key, counters)
      clock.restore(snapshot.clock)
      await data.load(snapshot.pets as Pet[], snapshot.nextId)
    },
    reset: () => start(scenario, false),
  }
}
