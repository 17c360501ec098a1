/**
 * The shapes of `petstore-mock verify` (docs/verify.md, "The report"): a check runs the same requests against a side
 * (the target deployment, or an in-process mock) and sums up what it saw in one line; the two lines are compared.
 */

import { PetStoreMockError } from '../core/errors.js'
import type { PetStoreOptions } from '../world/options.js'

/** Which key a request sends: the main key, the free-plan key, a key no service knows, or none. */
export type Auth = 'key' | 'free' | 'wrong' | 'none'

export interface SideRequest {
  readonly method?: string
  /** The path under the base address, with its query: `/pets?limit=1`. */
  readonly path: string
  readonly auth: Auth
  readonly body?: string | Uint8Array
  readonly contentType?: string
  /** A `Content-Encoding` header (the body is sent as given, already encoded). */
  readonly contentEncoding?: string
  /** Hand a 429 back as it is, instead of waiting for its `Retry-After` and trying once more. */
  readonly raw?: boolean
  /** Send even before the key's `Retry-After` has passed: only the ban check does (`--allow-ban`). */
  readonly early?: boolean
}

/** One request and its answer, as a check reads it. */
export interface Exchange {
  readonly method: string
  readonly path: string
  readonly auth: Auth
  /** The HTTP status; 0 when no answer came (`error` says why). */
  readonly status: number
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>
  readonly text: string
  /** The body as JSON, integers as `bigint` (ids are int64), or `undefined` when it is not JSON. */
  readonly json: unknown
  readonly error?: string
  /** An answer came, but its body could not be read whole (larger than `maxBodyBytes`, too slow, cut off). */
  readonly incomplete?: boolean
  /** When the answer arrived, on the side's clock (ms since the epoch). */
  readonly at: number
}

/** Where a check runs: the target over HTTP, or an in-process mock through `petStore.fetch`. */
export interface Side {
  readonly name: 'target' | 'mock'
  /** The base address's path (`/v1`), for headers that name paths (`Location`, `Link`). */
  readonly basePath: string
  /** Sends one request (within the budget, after the key's `Retry-After`); a 429 is waited out and tried once more unless `raw`. */
  send(request: SideRequest): Promise<Exchange>
  /** The value of `make`, computed once per side: requests several checks share. */
  once<T>(key: string, make: () => Promise<T>): Promise<T>
  /** Waits: real time on the target, the in-process mock's clock moved forward on the mock. */
  wait(ms: number): Promise<void>
  /** The side's time, ms since the epoch. */
  now(): number
  /** Every exchange so far, in order. */
  readonly log: readonly Exchange[]
  /** Requests left in the budget (`Infinity` on the mock). */
  left(): number
  /** Requests sent so far. */
  used(): number
  /** When the key may send again after a 429 (0: it may now). */
  retryAt(auth: Auth): number
}

/** A check that cannot run here (a flag, the budget, a long `Retry-After`, no data): reported as skipped with this reason. */
export class Skip extends PetStoreMockError {
  override readonly name = 'Skip'
  readonly code = 'check_skipped'
}

/** What one side did in one check. */
export interface Observation {
  /** One line, the same on both sides when they behave alike (no ids, counts or codes that differ by data). */
  readonly summary: string
  /** Spec checks: does the side do what the spec says? */
  readonly pass?: boolean
  /** Values the options are derived from (a `Deprecation` date, a ban's length). */
  readonly facts?: Readonly<Record<string, unknown>>
}

/** A change of the mock's options, written as it goes into a config file. */
export interface OptionPatch {
  /** As the report shows it: `queryValidation: "lenient"`. */
  readonly label: string
  /** The config file's keys: `{ queryValidation: 'lenient' }`, `{ rateLimit: { retryAfterFormat: 'http-date' } }`; `undefined` removes a key. */
  readonly config: Readonly<Record<string, unknown>>
}

/** What a check needs besides a key: writes (`--allow-writes`), the free key's quota (`--allow-quota`), a ban (`--allow-ban`). */
export type Needs = 'writes' | 'quota' | 'ban'

/** What every check of one run shares. */
export interface RunContext {
  readonly allowWrites: boolean
  /** Names of pets the run creates: `petstore-mock verify <ISO time>`. */
  readonly marker: string
}

export interface Check {
  readonly id: string
  /** `spec`: the spec's documented behaviour, judged on each side; `decision`: a gap the mock decided, the target compared with the mock. */
  readonly kind: 'spec' | 'decision'
  readonly title: string
  /** What the spec says, with its section or the decision's row in docs/spec-decisions.md. */
  readonly spec: string
  readonly needs?: Needs
  /** Requests it sends to the target at most, after the checks before it. */
  readonly cost: number
  run(side: Side, context: RunContext): Promise<Observation>
  /** Decision checks: option changes that may make the mock answer like the target (each tried on a fresh mock). */
  candidates?(target: Observation): OptionPatch[]
}

/**
 * One line of the report.
 *
 * @example
 * const differing = report.checks.filter((check: CheckResult) => check.ok === false)
 */
export interface CheckResult {
  readonly id: string
  readonly kind: 'spec' | 'decision'
  readonly title: string
  /** What the spec says (and for a decision, its row). */
  readonly spec: string
  /** What the mock does, from the same check run against an in-process mock with the options being verified. */
  readonly expected: string
  /** What the target did. */
  readonly actual: string
  /** `true` agrees, `false` differs, `null` skipped (`skipped` says why). */
  readonly ok: boolean | null
  /** When the target differs on a decision: the mock's option that makes it answer the same. */
  readonly option: string | null
  readonly skipped?: string
}

/**
 * What `verify()` checks, and how far it may go.
 *
 * @example
 * const options: VerifyOptions = { target: 'https://staging.petstore.example/v1', key: process.env.STAGING_KEY ?? '', maxRequests: 50 }
 */
export interface VerifyOptions {
  /** The base address of the deployment, e.g. `https://staging.petstore.example/v1`. */
  readonly target: string
  /** An API key of the target. */
  readonly key: string
  /** A Free-plan key of the target, for the quota checks (`allowQuota`). */
  readonly freeKey?: string | undefined
  /** How to reach the target. Default the global `fetch`. */
  readonly fetch?: typeof fetch | undefined
  /** The mock's options being verified (a config file's, through `loadConfig`). Default the mock's defaults. */
  readonly mock?: PetStoreOptions | undefined
  /** Send `POST` requests (creating pets named `petstore-mock verify <ISO time>`) and a `DELETE` of an id no pet has. */
  readonly allowWrites?: boolean | undefined
  /** Use up the free key's minute window to see the 429 (needs `freeKey`). */
  readonly allowQuota?: boolean | undefined
  /** Keep sending before `Retry-After` until the free key is banned (needs `allowQuota`). */
  readonly allowBan?: boolean | undefined
  /** Requests sent to the target at most. Default 200. */
  readonly maxRequests?: number | undefined
  /** The longest `Retry-After` waited for, in seconds; a longer one skips the check. Default 65. */
  readonly maxWaitSeconds?: number | undefined
  /** How long one request may take, in ms, its body included. Default 10,000. */
  readonly timeoutMs?: number | undefined
  /** Bytes one answer of the target may hold; a larger one is read no further and counts as no answer. Default 16 MiB. */
  readonly maxBodyBytes?: number | undefined
  /** Progress for people (the budget first, waits), one line each. */
  readonly onProgress?: ((line: string) => void) | undefined
}

/**
 * What `verify()` found: counts, the budget, one result per check, and the options that make the mock match.
 *
 * @example
 * const report: VerifyReport = await verify({ target: 'http://127.0.0.1:4010/v1', key: 'test-pro' })
 * if (report.failed > 0) console.log(report.config) // e.g. { queryValidation: 'lenient' }
 */
export interface VerifyReport {
  /** The target's base address (without user or password). */
  readonly target: string
  readonly passed: number
  readonly failed: number
  readonly skipped: number
  readonly budget: { readonly max: number; readonly planned: number; readonly used: number }
  readonly checks: readonly CheckResult[]
  /** The options that make the mock answer like the target, as config file keys (`--write-config`). */
  readonly config: Readonly<Record<string, unknown>>
  /** Differences two options cannot both fix (the first is kept in `config`). */
  readonly conflicts: readonly string[]
}

/**
 * The target cannot be checked at all (unreachable, key refused, not the API): the CLI exits 2 with this message.
 *
 * @example
 * try {
 *   await verify({ target: 'http://127.0.0.1:4010/v1', key: 'test-pro' })
 * } catch (error) {
 *   if (error instanceof VerifyError) console.error(error.message) // "cannot reach http://127.0.0.1:4010/v1: ECONNREFUSED …"
 * }
 */
export class VerifyError extends PetStoreMockError {
  override readonly name = 'VerifyError'
  readonly code = 'verify_failed'
}
