/**
 * Plain-data shapes the core works on. Hosts convert to and from them at the edges
 * (msw handlers and `petStore.fetch` from Fetch objects, the standalone server from `node:http`).
 */
import type { NewPetRecord, PetRecord, PetStatus } from '../schemas.js'
import type { Limits, Plan } from '../spec.js'

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
