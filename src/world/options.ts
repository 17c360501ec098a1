/**
 * The options of a world, normalised and checked once into `ResolvedOptions` (as ky's
 * `validateAndMerge` does): nothing further down re-checks or re-defaults them.
 */
import { type Clock, createClock, type Moment, toEpochMs } from '../clock.js'
import type { ApiOptions } from '../core/api.js'
import type { RateLimitOptions } from '../core/rate-limit.js'
import type { QueryValidation } from '../core/validate.js'
import { DEFAULT_JOURNAL_MAX_BYTES } from '../journal/budget.js'
import { DEFAULT_KEYS, type KeyConfig } from '../keys.js'
import { createScenarioCatalogue, type ScenarioCatalogue } from '../scenarios/catalogue.js'
import type { Scenario } from '../scenarios/schema.js'
import { type PetRecordInput, type PetStatus, PetStatusSchema } from '../schemas.js'
import { BAN_DEFAULTS, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_NAME_LENGTH, DEPRECATED_AT, PLAN_LIMITS, SUNSET } from '../spec.js'

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
  /**
   * How many virtual ms pass in a real ms while a new clock runs (default 1): 60 plays an hour-long timeline in a
   * minute for a person watching. Not with a `Clock` of your own (give it its own pace).
   */
  clockSpeed?: number
  /**
   * `true`: every answer carries `X-Mock-Reason`, the rule that decided it and its facts (docs/explain.md). Default
   * `false`: only answers to requests that send `X-Mock-Explain: 1` carry it.
   */
  explain?: boolean
  /**
   * `true`: each API request is an OpenTelemetry span (docs/explain.md, "Traces"), through `@opentelemetry/api` and the
   * SDK you register; Node hosts only. Default `false`: the API is not loaded and requests pay nothing for traces.
   */
  tracing?: boolean
  /** `strict` (default): 400 for `limit` outside 1..100 or an unknown `status`; `lenient`: clamp. */
  queryValidation?: QueryValidation
  /** Status stored when `POST /pets` omits it. Default: none (the pet has no `status`). */
  defaultStatus?: PetStatus
  /** Bodies larger than this get 413. Default 1 MiB. */
  maxBodyBytes?: number
  /** A `POST /pets` whose `name` has more characters (Unicode code points) than this gets 400 `invalid_body`. Default 1,000. */
  maxNameLength?: number
  /**
   * The status of a `POST /pets` body that is not `application/json` (UTF-8, uncompressed): `400` (default: the
   * spec's status for a bad body) or `415` (HTTP's own). The code is `unsupported_media_type` either way.
   */
  mediaTypeErrorStatus?: 400 | 415
  /** When `GET /pets/{petId}` was deprecated, for its `Deprecation` header. */
  deprecatedAt?: Moment
  /** The scenario to start in (see docs/scenarios.md). Default `default`. */
  scenario?: string
  /** Your own scenarios (parsed scenario files): they add to the shipped ones or override them by name. */
  scenarios?: readonly unknown[]
  /**
   * Keep the pets in an @msw/data collection too (`petStore.pets`). Default `true`. `false` keeps
   * them in the indexes only: faster creates, no `petStore.pets` (the standalone server's sessions).
   */
  collection?: boolean
  /** How many exchanges the request journal keeps (oldest dropped first). Default 1,000; 0 turns it off. */
  journalLimit?: number
  /**
   * How many bytes the request journal may hold (oldest dropped first); on the standalone server, all
   * sessions' journals together. Each entry keeps at most 16 KiB of its request body. Default 64 MiB.
   */
  journalMaxBytes?: number
  /**
   * A real deployment's base address (e.g. `https://staging.example/v1`): requests the mock does not define (the store
   * group, other paths and methods) are forwarded there and its answers relayed. Default: none (404, 405, 501).
   */
  proxy?: string
  /** How long a `proxy` request may take, its answer's body included, before it is answered 504. Default 10,000 ms. */
  proxyTimeoutMs?: number
  /** The largest `proxy` answer body relayed, in bytes: the upstream's reading stops past it and the answer is 502. Default 8 MiB. */
  proxyMaxBodyBytes?: number
  /** The fetch that reaches the `proxy` (createPetStore passes one that msw does not intercept). Default the global fetch. */
  proxyFetch?: typeof fetch
  /** Rate-limit and ban settings. */
  rateLimit?: {
    /** The early retry that bans a key. Default 5. */
    banAfterEarlyRetries?: number | undefined
    /** Ban length in seconds. Default 900 (15 minutes). */
    banDurationSeconds?: number | undefined
    /** `Retry-After` as `seconds` (default) or `http-date`. */
    retryAfterFormat?: 'seconds' | 'http-date' | undefined
    /** What a 401 reports: `free-plan` (default) or `omit`. */
    unauthenticatedHeaders?: 'free-plan' | 'omit' | undefined
  }
}

/** Every option of a world, checked, with its default filled in. */
export interface ResolvedOptions {
  /** The msw URL pattern of the API's base (`*\/v1` by default). */
  readonly urlPattern: string
  /** The path the API lives under, e.g. `/v1`. */
  readonly basePath: string
  readonly seed: number
  readonly clock: Clock
  /**
   * Where `reset()` and a scenario without a clock put the clock: the `clock` option's moment (frozen), so a test that
   * pinned the clock stays pinned across resets; `undefined`: real time.
   */
  readonly clockStart: number | undefined
  readonly api: ApiOptions
  readonly rateLimit: RateLimitOptions
  readonly journalLimit: number
  readonly journalMaxBytes: number
  /** Every answer carries `X-Mock-Reason` (else only those asked for with `X-Mock-Explain: 1`). */
  readonly explain: boolean
  readonly tracing: boolean
  readonly keys: readonly KeyConfig[]
  /** The option's pets: a count or a list (checked when a scenario starts, as scenarios may replace them). */
  readonly pets: number | readonly PetRecordInput[]
  readonly categories: number
  readonly scenarios: ScenarioCatalogue
  /** The scenario the world starts in. */
  readonly scenario: Scenario
  /** Where requests the mock does not define go, if anywhere. */
  readonly proxy: { target: string; timeoutMs: number; maxBodyBytes: number; fetch: typeof fetch } | undefined
}

/** The largest upstream body `proxy` relays by default: far above any Pet Store answer, and a bound on what one request holds. */
export const DEFAULT_PROXY_MAX_BODY_BYTES = 8 * 1024 * 1024

/** A yes-or-no option: `undefined` is no. */
const flag = (value: unknown, name: string): boolean =>
  value === undefined || typeof value === 'boolean'
    ? value === true
    : misuse(`${name} must be true or false, got ${JSON.stringify(value)}.`)

/** A misuse of the library: a TypeError whose message names the option and the fix. */
export function misuse(message: string): never {
  throw new TypeError(`[petstore-mock] ${message}`)
}

/** The msw URL pattern and the path of a `baseUrl` option. */
function baseOf(baseUrl: string): { pattern: string; path: string } {
  const trimmed = baseUrl.replace(/\/+$/, '')
  if (trimmed.startsWith('*/') || trimmed.startsWith('/')) {
    const path = trimmed.replace(/^\*/, '')
    return { pattern: `*${path}`, path }
  }
  let url: URL
  try {
    url = new URL(trimmed)
  } catch {
    return misuse(`baseUrl ${JSON.stringify(baseUrl)} is not a URL or a path: use e.g. "https://api.petstore.test/v1", "/v1" or "*/v1".`)
  }
  return { pattern: trimmed, path: url.pathname.replace(/\/+$/, '') }
}

export function wholeNumber(value: number, name: string, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) misuse(`${name} must be a whole number of at least ${min}, got ${String(value)}.`)
  return value
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback
  if (!Number.isFinite(value) || value <= 0) misuse(`${name} must be a positive number, got ${String(value)}.`)
  return value
}

function oneOf<T extends string | number>(value: T | undefined, allowed: readonly T[], name: string): T {
  const chosen = value ?? (allowed[0] as T)
  if (!allowed.includes(chosen))
    misuse(`${name} must be ${allowed.map((a) => JSON.stringify(a)).join(' or ')}, got ${JSON.stringify(value)}.`)
  return chosen
}

const isClock = (given: Clock | Moment): given is Clock => typeof given === 'object' && !(given instanceof Date)

function resolveClock(given: Clock | Moment | undefined, speed: number | undefined): Clock {
  if (given !== undefined && isClock(given)) {
    if (speed !== undefined) misuse('clockSpeed is for the clock the store makes; a clock of your own keeps its own pace.')
    return given
  }
  const clock = createClock(Date.now, { speed: speed === undefined ? 1 : positive(speed, 1, 'clockSpeed') })
  if (given !== undefined) clock.set(given)
  return clock
}

function resolveRateLimit(rl: NonNullable<PetStoreOptions['rateLimit']>): RateLimitOptions {
  return {
    banAfterEarlyRetries: positive(rl.banAfterEarlyRetries, BAN_DEFAULTS.afterEarlyRetries, 'rateLimit.banAfterEarlyRetries'),
    banDurationMs: positive(rl.banDurationSeconds, BAN_DEFAULTS.durationMs / 1000, 'rateLimit.banDurationSeconds') * 1000,
    retryAfterFormat: oneOf(rl.retryAfterFormat, ['seconds', 'http-date'], 'rateLimit.retryAfterFormat'),
    unauthenticatedHeaders: oneOf(rl.unauthenticatedHeaders, ['free-plan', 'omit'], 'rateLimit.unauthenticatedHeaders'),
    freePlan: PLAN_LIMITS.free,
  }
}

/**
 * Checks every option and fills in the defaults; throws a TypeError naming the option for a bad one.
 *
 * @example
 * const resolved = resolveOptions({ seed: 7, queryValidation: 'lenient' })
 * resolved.api.queryValidation // 'lenient'
 */
export function resolveOptions(options: PetStoreOptions): ResolvedOptions {
  const { pattern, path } = baseOf(options.baseUrl ?? '*/v1')
  if (options.defaultStatus !== undefined && !PetStatusSchema.safeParse(options.defaultStatus).success) {
    misuse(`defaultStatus must be one of available, pending, sold, got ${JSON.stringify(options.defaultStatus)}.`)
  }
  const scenarios = createScenarioCatalogue(options.scenarios as never[] | undefined)
  return {
    urlPattern: pattern,
    basePath: path,
    seed: wholeNumber(options.seed ?? 1, 'seed', Number.MIN_SAFE_INTEGER),
    clock: resolveClock(options.clock, options.clockSpeed),
    clockStart: options.clock === undefined || isClock(options.clock) ? undefined : toEpochMs(options.clock),
    api: {
      queryValidation: oneOf(options.queryValidation, ['strict', 'lenient'], 'queryValidation'),
      defaultStatus: options.defaultStatus,
      maxBodyBytes: positive(options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES, 'maxBodyBytes'),
      maxNameLength: wholeNumber(options.maxNameLength ?? DEFAULT_MAX_NAME_LENGTH, 'maxNameLength', 1),
      mediaTypeErrorStatus: oneOf(options.mediaTypeErrorStatus, [400, 415], 'mediaTypeErrorStatus'),
      sunsetAt: toEpochMs(SUNSET),
      deprecatedAt: toEpochMs(options.deprecatedAt ?? DEPRECATED_AT),
    },
    rateLimit: resolveRateLimit(options.rateLimit ?? {}),
    journalLimit: wholeNumber(options.journalLimit ?? 1_000, 'journalLimit', 0),
    explain: flag(options.explain, 'explain'),
    tracing: flag(options.tracing, 'tracing'),
    journalMaxBytes: wholeNumber(options.journalMaxBytes ?? DEFAULT_JOURNAL_MAX_BYTES, 'journalMaxBytes', 0),
    keys: options.keys ?? DEFAULT_KEYS,
    pets: typeof options.pets === 'number' ? wholeNumber(options.pets, 'pets', 0) : (options.pets ?? 50),
    categories: wholeNumber(options.categories ?? 10, 'categories', 1),
    scenarios,
    scenario: scenarios.get(options.scenario ?? 'default'),
    proxy: resolveProxy(options),
  }
}

function resolveProxy(options: PetStoreOptions): ResolvedOptions['proxy'] {
  if (options.proxy === undefined) return undefined
  let url: URL
  try {
    url = new URL(options.proxy)
  } catch {
    return misuse(
      `proxy ${JSON.stringify(options.proxy)} is not a URL: give the upstream's base address, e.g. "https://staging.example/v1".`,
    )
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    misuse(`proxy must be an http or https URL, got ${JSON.stringify(options.proxy)}.`)
  return {
    target: options.proxy.replace(/\/+$/, ''),
    timeoutMs: positive(options.proxyTimeoutMs, 10_000, 'proxyTimeoutMs'),
    maxBodyBytes: wholeNumber(options.proxyMaxBodyBytes ?? DEFAULT_PROXY_MAX_BODY_BYTES, 'proxyMaxBodyBytes', 1),
    fetch: options.proxyFetch ?? ((input, init) => globalThis.fetch(input, init)),
  }
}
