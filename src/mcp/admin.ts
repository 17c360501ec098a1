/**
 * What the MCP tools ask of a mock: the admin API's operations as calls. Two implementations: `createWorldAdmin`
 * acts on a server's sessions in its own process (`/__mock/mcp`), `createHttpAdmin` calls a running server's admin
 * API (`petstore-mock mcp`), so a tool leaves the world exactly as the admin request does (docs/mcp.md).
 */
import { PetStoreMockError } from '../core/errors.js'
import type { KeyStatus } from '../core/key-status.js'
import type { AuditReport } from '../journal/audit.js'
import type { ScenarioListing } from '../scenarios/catalogue.js'
import type { ClockView } from '../world/events.js'
import type { KeyStartInput } from '../world/key-start.js'

/** A journal entry as the tools show it: no headers or bodies beyond what a reader needs. */
export interface JournalLine {
  readonly seq: number
  readonly time: string
  readonly method: string
  readonly path: string
  readonly status: number
  readonly operation?: string | undefined
  readonly key?: string | undefined
  readonly code?: string | undefined
  readonly fault?: string | undefined
  readonly retryAfter?: number | undefined
}

/** `GET /__mock/requests` filters, as the tool takes them. */
export interface JournalQuery {
  readonly status?: number | undefined
  readonly operation?: string | undefined
  readonly plan?: string | undefined
  /** Only entries newer than this sequence number. */
  readonly after?: number | undefined
  /** Only entries older than this sequence number (not with `after`). */
  readonly before?: number | undefined
  readonly limit: number
}

/** One admin request each; every call acts on `session` (the admin API's `X-Mock-Session`; default: the default world). */
export interface MockAdmin {
  keys(session?: string): Promise<readonly KeyStatus[]>
  /** `POST /__mock/keys/:key`. */
  setKey(key: string, start: KeyStartInput, session?: string): Promise<readonly KeyStatus[]>
  scenarios(session?: string): Promise<readonly ScenarioListing[]>
  /** `GET /__mock/scenarios/:name`: the scenario as the catalogue holds it. */
  scenario(name: string, session?: string): Promise<unknown>
  /** `PUT /__mock/scenario`. */
  useScenario(name: string, session?: string): Promise<string>
  /** `GET /__mock/scenario`. */
  currentScenario(session?: string): Promise<string>
  /** `GET /__mock/timeline`. */
  timeline(session?: string): Promise<unknown>
  /** `POST /__mock/reset`. */
  reset(session?: string): Promise<void>
  clock(session?: string): Promise<ClockView>
  /** `POST /__mock/clock` with `{ advanceSeconds }`. */
  advanceClock(seconds: number, session?: string): Promise<ClockView>
  /** `GET /__mock/requests`, newest last. */
  journal(query: JournalQuery, session?: string): Promise<readonly JournalLine[]>
  audit(session?: string): Promise<AuditReport>
  /** `GET /__mock/state` as JSON text (ids exact). */
  /**
   * With `maxChars`: `undefined` when the text is longer, known as soon as it is: the read stops there, so a state too
   * large to answer is never built whole.
   */
  exportState(session?: string, maxChars?: number): Promise<string | undefined>
  /** `PUT /__mock/state`. */
  importState(text: string, session?: string): Promise<void>
  /** `GET /__mock/openapi.json`. */
  openapi(): Promise<unknown>
}

/** A refused admin request: its message names the fix. */
export class AdminError extends PetStoreMockError {
  override readonly name = 'AdminError'
  readonly code = 'admin_refused'
}
