/**
 * Plain-data shapes the core works on. Hosts convert to and from them at the edges
 * (msw handlers and `petStore.fetch` from Fetch objects, the standalone server from `node:http`).
 */

import type { NewPetRecord, PetRecord, PetStatus } from '../schemas.js'
import type { Limits, Plan } from '../spec.js'
import type { RuleId } from './reason.js'

export type { Limits, Plan } from '../spec.js'

/** A request as plain data. */
export interface ApiRequest {
  /** Upper-case method, e.g. `GET`. */
  readonly method: string
  /** The URL's pathname as sent (percent-encoded), including the base path, e.g. `/v1/pets/7`. */
  readonly path: string
  /** The raw query string without the leading `?`; empty when there is none. */
  readonly query: string
  /** Request headers with lower-case names. */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>
  /** The raw body text; `undefined` when the request has no body. */
  readonly body: string | undefined
  /** Set by a host that stopped reading a body over the size limit. */
  readonly bodyTooLarge?: boolean
  /** Set by a host whose body bytes were not valid UTF-8 (`body` is then `undefined`). */
  readonly bodyNotUtf8?: boolean
}

/** A response as plain data: header names are lower-case. */
export interface ApiResponse {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: string
  /** What the core learnt about the request, for the journal and logs. */
  readonly meta?: ResponseMeta
  /** A scenario's latency: hosts wait this long before answering. */
  readonly delayMs?: number
  /** A scenario's fault that sends no response: a reset connection, or no answer until the client gives up. */
  readonly drop?: 'network-error' | 'timeout'
}

/** Who called and what ran: never the whole key. */
export interface ResponseMeta {
  /** The caller's plan, when the key was valid. */
  readonly plan?: Plan
  /** The key's last 4 characters, e.g. `…free`. */
  readonly keyHint?: string
  /** The operation the request was routed to (`undefined`: none). */
  readonly operation?: string | undefined
  /** The scenario that applied. */
  readonly scenario?: string
  /** The stage of the scenario's timeline that answered, if any. */
  readonly stage?: string
  /** The fault a scenario injected (`latency`, `network-error`, `timeout`, `status-503`, `malformed-body`, …). */
  readonly fault?: string
  /** The `--proxy` upstream that answered, when the mock relayed the request. */
  readonly upstream?: string
  /** The rule that decided the answer (src/core/reason.ts, `RULES`); absent means `ok` when the core answered. */
  readonly rule?: RuleId
  /** The index of the scenario's (or stage's) fault rule that fired, in its `faults` list. */
  readonly faultRule?: number
  /** This answer started a ban (the early retry that earned it), not one of the answers during it (decision 30). */
  readonly banStarted?: true
}

/** What the core answers: a response now, or once the store has written. */
export type ApiResult = ApiResponse | Promise<ApiResponse>

/** A stored pet with its JSON text, serialised once when it is written. */
export interface PetEntry {
  /** The pet's id: a \`number\` where that is exact, else the \`bigint\` (it prints the same either way). */
  readonly id: number | bigint
  /** The pet as a record (storages may build it from `json` each time it is read: the API's paths read `json` and `id`). */
  readonly pet: PetRecord
  readonly json: string
}

/** A page of pets as `list` returns it, in id order. */
export interface PetPage {
  readonly entries: readonly PetEntry[]
  /** The page's response body, when the storage keeps pages ready (`src/store/pet-index.ts`); else it is written from `entries`. */
  readonly json?: string
}

/** The pets as the core sees them. The store implements it with indexes (no full scans). */
export interface PetRepository {
  /** A pet, now, or later from a shared store (`--redis`); the in-memory store answers at once. */
  get(id: bigint): PetEntry | undefined | Promise<PetEntry | undefined>
  /** Up to `limit` pets in ascending id order, optionally only those with `status`. */
  list(status: PetStatus | undefined, limit: number): PetPage | Promise<PetPage>
  /**
   * Stores a new pet under the next id; the returned entry is visible to `get`/`list` at once.
   * `written` settles when a slower copy (the @msw/data collection) has it too. `undefined` when no
   * int64 id is left (the next id would be past the int64 maximum).
   */
  add(pet: NewPetRecord): Added | undefined | Promise<Added | undefined>
}

/** The pets of one process's memory: every answer at once (the core stays synchronous over them). */
export interface LocalPetRepository extends PetRepository {
  get(id: bigint): PetEntry | undefined
  list(status: PetStatus | undefined, limit: number): PetPage
  add(pet: NewPetRecord): Added | undefined
}

/** A stored pet, and when a slower copy has it too. */
export interface Added {
  readonly entry: PetEntry
  readonly written?: Promise<void> | undefined
}

/** A known API key. */
export interface ApiKey {
  readonly key: string
  readonly plan: Plan
  readonly limits: Limits
}

/** `strict`: 400 for a bad `limit` or `status`; `lenient`: clamp and match nothing. */
export type QueryValidation = 'strict' | 'lenient'

/** What the quota (rate limiter) decides for one request. */
export type QuotaDecision =
  | { ok: true; headers: Record<string, string> }
  | {
      ok: false
      code: 'rate_limited' | 'key_temporarily_banned'
      rule: RuleId
      banStarted?: true
      message: string
      headers: Record<string, string>
    }

/** The rate-limit seam: counts a key's requests and says which headers to send. */
export interface Quota {
  /**
   * Counts one request of an authenticated key, or refuses it. A shared quota (`--redis`) decides elsewhere and
   * answers later: the in-memory one answers at once, and the core then stays synchronous.
   */
  consume(key: ApiKey): QuotaDecision | Promise<QuotaDecision>
  /** The `X-RateLimit-*` headers of a response to a request without a valid key. */
  unauthenticated(): Record<string, string>
}

export interface ApiOptions {
  /** `strict`: 400 for a bad `limit` or `status`; `lenient`: clamp and match nothing. */
  readonly queryValidation: QueryValidation
  /** Status stored when `POST /pets` omits it; `undefined` stores the pet without status. */
  readonly defaultStatus: PetStatus | undefined
  /** Bodies longer than this are answered 413. */
  readonly maxBodyBytes: number
  /** A new pet's `name` may have at most this many characters (code points); a longer one is answered 400. */
  readonly maxNameLength: number
  /** The status of `unsupported_media_type`: 400 (the spec's status for a bad body, default) or 415. */
  readonly mediaTypeErrorStatus: 400 | 415
  /** When `GET /pets/{petId}` is removed (ms since the epoch). */
  readonly sunsetAt: number
  /** When `GET /pets/{petId}` was deprecated (ms since the epoch), for the `Deprecation` header. */
  readonly deprecatedAt: number
}

/** Everything the core reads: one world's data, keys, clock and quota. */
export interface ApiWorld {
  /** The path the API lives under, e.g. `/v1`. */
  readonly basePath: string
  readonly keys: ReadonlyMap<string, ApiKey>
  readonly pets: PetRepository
  readonly quota: Quota
  /** The world's clock, in ms since the epoch. */
  readonly now: () => number
  readonly options: ApiOptions
}

export interface Api {
  handle(request: ApiRequest): ApiResult
}
