/**
 * `createPetStore(options)`: one isolated world (data, keys, clock, counters) and the ways to
 * reach it: msw `handlers`, a `fetch` function, and the plain `handle` the hosts call.
 */
import type { HttpHandler } from 'msw'
import { type Clock, createClock, type Moment, toEpochMs } from './clock.js'
import { type Api, createApi } from './core/api.js'
import { createJournal, type Journal } from './core/journal.js'
import { createRateLimiter, DEFAULT_RATE_LIMIT_OPTIONS, type RateLimiter, type RateLimitOptions } from './core/rate-limit.js'
import type { ApiKey, ApiRequest, ApiResponse, ApiResult } from './core/types.js'
import type { QueryValidation } from './core/validate.js'
import { createHandlers } from './handlers/index.js'
import { createFetch } from './hosts/fetch.js'
import { DEFAULT_KEYS, type KeyConfig, PLAN_LIMITS, resolveKeys } from './keys.js'
import { type Pet, type PetRecordInput, PetRecordSchema, type PetStatus, PetStatusSchema } from './schemas.js'
import { parseSnapshot, type WorldSnapshot } from './snapshot.js'
import { createPetData, type PetCollection } from './store/pet-data.js'
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

export interface PetStore {
  /** msw request handlers: `setupServer(...petStore.handlers)`. */
  readonly handlers: HttpHandler[]
  /** A `fetch` function answered by this world directly, without interception. */
  readonly fetch: typeof fetch
  /** The path the API lives under, e.g. `/v1`. */
  readonly basePath: string
  /** The core: a plain request in, a plain response out. Hosts call this. */
  readonly handle: (request: ApiRequest) => ApiResult
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
  /** The whole state: pets, next id, counters and bans, clock. */
  snapshot(): WorldSnapshot
  /** Replaces the whole state with a snapshot (checked first: a bad one changes nothing and throws). */
  restore(snapshot: unknown): Promise<void>
  /** Resolves when the collection holds every pet written so far. */
  ready(): Promise<void>
  /** Back to the seeded state: pets, ids, counters and bans; the clock returns to real time. */
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

function seedPets(options: PetStoreOptions): Pet[] {
  const seed = options.seed ?? 1
  if (!Number.isSafeInteger(seed)) fail(`seed must be an integer, got ${String(seed)}.`)
  const pets = options.pets ?? 50
  if (typeof pets === 'number') {
    if (!Number.isSafeInteger(pets) || pets < 0)
      fail(`pets must be a whole number of pets to generate or an array of pets, got ${String(pets)}.`)
    const categories = options.categories ?? 10
    if (!Number.isSafeInteger(categories) || categories < 1) fail(`categories must be a positive integer, got ${String(categories)}.`)
    return generatePets({ seed, count: pets, categories })
  }
  return pets.map((input, index) => {
    const parsed = PetRecordSchema.safeParse(input)
    if (!parsed.success)
      fail(
        `pets[${index}] is not a valid pet: ${parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`).join('; ')}.`,
      )
    return parsed.data
  })
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback
  if (!Number.isFinite(value) || value <= 0) fail(`${name} must be a positive number, got ${String(value)}.`)
  return value
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
  const { pattern, path: basePath } = basePathOf(options.baseUrl ?? '*/v1')
  const keys = resolveKeys(options.keys ?? DEFAULT_KEYS)
  const clock =
    options.clock === undefined
      ? createClock()
      : typeof options.clock === 'object' && !(options.clock instanceof Date)
        ? options.clock
        : createClock()
  if (options.clock !== undefined && (typeof options.clock !== 'object' || options.clock instanceof Date)) clock.set(options.clock)
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

  const seeded = seedPets(options)
  const data = createPetData()
  void data.load(seeded)

  const api: Api = createApi({
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
  const journal = createJournal({ limit: options.journalLimit ?? 1_000, now: clock.now })
  const handle = (request: ApiRequest): ApiResult => {
    const result = api.handle(request)
    if (result instanceof Promise) {
      return result.then((response: ApiResponse) => {
        journal.record(request, response)
        return response
      })
    }
    journal.record(request, result)
    return result
  }
  let handlers: HttpHandler[] | undefined

  return {
    get handlers() {
      handlers ??= createHandlers(handle, pattern)
      return handlers
    },
    fetch: createFetch(handle),
    basePath,
    handle,
    pets: data.collection,
    clock,
    keys,
    rateLimiter,
    journal,
    ready: () => data.settled(),
    snapshot() {
      const { pets, nextId } = data.snapshot()
      return { version: 1, pets, nextId, rateLimits: rateLimiter.snapshot(), clock: clock.snapshot() }
    },
    async restore(input) {
      const result = parseSnapshot(input)
      if (!result.ok) fail(result.message)
      const { snapshot } = result
      rateLimiter.reset()
      for (const [key, counters] of Object.entries(snapshot.rateLimits)) rateLimiter.setCounters(key, counters)
      clock.restore(snapshot.clock)
      await data.load(snapshot.pets as Pet[], snapshot.nextId)
    },
    async reset() {
      rateLimiter.reset()
      journal.clear()
      clock.useRealTime()
      await data.load(seeded)
    },
  }
}
