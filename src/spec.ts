/**
 * The spec's numbers, names and dates in one place: every other file imports them from here, so a
 * change to the spec is a change to this file. Values the spec leaves open ("not shown") and the mock
 * decided are marked as such; their reasons are in docs/spec-decisions.md.
 *
 * @see ../shared/spec/pet-store-service.md
 */

/** The interface description's own version ("Versioning", 2). */
export const API_VERSION = '1.0.0'

/** The values of `PetStatus`, in the order the spec lists them ("Resources and their fields"). */
export const PET_STATUSES = ['available', 'pending', 'sold'] as const

/** The plans of "Rate limits by plan", in the order the spec lists them. */
export const PLANS = ['free', 'pro', 'business', 'enterprise'] as const
export type Plan = (typeof PLANS)[number]

/** Requests allowed per UTC minute and per UTC day. */
export interface Limits {
  readonly perMinute: number
  readonly perDay: number
}

/**
 * Requests per minute and per day of each plan ("Rate limits by plan"). Enterprise is "custom" in the
 * spec: 5,000 and 1,000,000 are the mock's defaults for a key that sets no limits of its own.
 */
export const PLAN_LIMITS: Readonly<Record<Plan, Limits>> = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
  enterprise: { perMinute: 5_000, perDay: 1_000_000 },
}

/** The rate-limit windows: a UTC minute and a UTC day, in ms (the kind of window is the mock's decision). */
export const MINUTE_MS = 60_000
export const DAY_MS = 86_400_000

/** `GET /pets` page size ("Limits", "Page size"). */
export const PAGE_SIZE = { default: 20, min: 1, max: 100 } as const

/** The removal date of `GET /pets/{petId}` ("Versioning", 3). */
export const SUNSET = '2030-12-05T00:00:00Z'
/** When `GET /pets/{petId}` was deprecated, for its `Deprecation` header: not shown in the spec, the mock's default. */
export const DEPRECATED_AT = '2026-01-01T00:00:00Z'

/** Request bodies larger than this get 413: not shown in the spec, the mock's default (option `maxBodyBytes`). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024

/**
 * The longest `name` of a new pet, in characters (Unicode code points, as JSON Schema's `maxLength` counts): not
 * shown in the spec, the mock's default (option `maxNameLength`; docs/spec-decisions.md row 4).
 */
export const DEFAULT_MAX_NAME_LENGTH = 1_000

/** The temporary ban: not shown in the spec, the mock's defaults (options `rateLimit.*`). */
export const BAN_DEFAULTS = { afterEarlyRetries: 5, durationMs: 15 * MINUTE_MS } as const

export type OperationId = 'listPets' | 'createPet' | 'getPet' | 'listOrders'

export interface Operation {
  readonly id: OperationId
  readonly method: 'GET' | 'POST'
  /** The path under the base address, as the spec writes it. */
  readonly path: string
  readonly deprecated?: true
  /** `false`: the spec lists the operation but does not define it (the mock answers 501). */
  readonly defined: boolean
}

/** The operations of "Endpoints" and "Other operations", in the order the spec lists them. */
export const OPERATIONS: readonly Operation[] = [
  { id: 'listPets', method: 'GET', path: '/pets', defined: true },
  { id: 'createPet', method: 'POST', path: '/pets', defined: true },
  { id: 'getPet', method: 'GET', path: '/pets/{petId}', deprecated: true, defined: true },
  { id: 'listOrders', method: 'GET', path: '/store/orders', defined: false },
]

/**
 * The statuses the spec documents for each operation: its own table under "Endpoints", and 429 from "Errors" (every
 * operation). What a suite's traffic exercised of them is its spec coverage (docs/in-process.md, "Spec coverage").
 */
export const DOCUMENTED_STATUSES: Readonly<Record<'listPets' | 'createPet' | 'getPet', readonly number[]>> = {
  listPets: [200, 401, 429],
  createPet: [201, 400, 401, 429],
  getPet: [200, 401, 404, 429],
}

/** The operation ids, for schemas that list them. */
export const OPERATION_IDS = OPERATIONS.map((operation) => operation.id) as [OperationId, ...OperationId[]]
