/**
 * The admin interface, declared once: each operation's HTTP route, the surfaces that offer it, and its bound.
 * Two implementations: over worlds in this process (`world-admin.ts`: the express admin routes, `/__mock/mcp`, the
 * panel in a page) and over a running server's admin API (`http-admin.ts`: `petstore-mock mcp`, the server's control
 * panel). test/admin/operations.test.ts walks this table: every operation has both implementations, an express route,
 * and a use on each surface it names.
 *
 * Imports types only: the server's control panel loads this file in the browser as it is (`/__mock/admin/*.js`).
 */
import type { KeyStatus } from '../core/key-status.js'
import type { AuditReport } from '../journal/audit.js'
import type { SpecCoverage } from '../journal/coverage.js'
import type { JournalEntryView } from '../journal/view.js'
import type { ScenarioListing } from '../scenarios/catalogue.js'
import type { PetStatus } from '../schemas.js'
import type { ClockView } from '../world/events.js'
import type { KeyStartInput } from '../world/key-start.js'
import type { TimelineView } from '../world/timeline.js'

/** Where else an operation is offered, beside the admin API's route. */
export type Surface = 'mcp' | 'panel'

export interface OperationDeclaration {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  /** The express route (`:name` for a parameter). */
  readonly path: string
  readonly surfaces: readonly Surface[]
  /** What bounds its cost, for every surface at once. */
  readonly bound: string
}

/** Bodies share the admin write budget: 64 MiB at once, 503 `too_many_admin_writes` + Retry-After past it (write-budget.ts). */
const WRITE = 'its body under the shared admin write budget (64 MiB at once; 503 + Retry-After past it)'
/** Answers from stored data stream under the shared admin read budget (admin-reads.ts, decision 020). */
const READ = 'streamed under the shared admin read budget (503 + Retry-After past it), never built whole'
const SMALL = 'one small object, whatever the world holds'
/** The most pets one `addPets` call adds. */
export const MAX_ADDED_PETS = 1000

export const ADMIN_OPERATIONS = {
  health: { method: 'GET', path: '/__mock/health', surfaces: [], bound: SMALL },
  sessions: { method: 'GET', path: '/__mock/sessions', surfaces: ['panel'], bound: 'at most maxSessions names' },
  openapi: { method: 'GET', path: '/__mock/openapi.json', surfaces: ['mcp'], bound: 'one document, the same for every world' },
  keys: { method: 'GET', path: '/__mock/keys', surfaces: ['mcp', 'panel'], bound: 'one row per configured key' },
  setKey: { method: 'POST', path: '/__mock/keys/:key', surfaces: ['mcp'], bound: WRITE },
  scenarios: { method: 'GET', path: '/__mock/scenarios', surfaces: ['mcp', 'panel'], bound: 'one row per scenario file' },
  scenario: { method: 'GET', path: '/__mock/scenarios/:name', surfaces: ['mcp'], bound: 'one scenario file' },
  currentScenario: { method: 'GET', path: '/__mock/scenario', surfaces: ['mcp'], bound: SMALL },
  useScenario: { method: 'PUT', path: '/__mock/scenario', surfaces: ['mcp', 'panel'], bound: WRITE },
  timeline: { method: 'GET', path: '/__mock/timeline', surfaces: ['mcp', 'panel'], bound: "one row per stage of the scenario's file" },
  coverage: { method: 'GET', path: '/__mock/coverage', surfaces: [], bound: 'one row per documented status of the spec' },
  reset: { method: 'POST', path: '/__mock/reset', surfaces: ['mcp', 'panel'], bound: 'the seeded world, rebuilt in place' },
  clock: { method: 'GET', path: '/__mock/clock', surfaces: ['mcp', 'panel'], bound: SMALL },
  setClock: {
    method: 'POST',
    path: '/__mock/clock',
    surfaces: ['panel'],
    bound: `${WRITE}; only moments every reader can print (clock.ts)`,
  },
  advanceClock: { method: 'POST', path: '/__mock/clock', surfaces: ['mcp', 'panel'], bound: WRITE },
  realTime: { method: 'POST', path: '/__mock/clock', surfaces: ['panel'], bound: WRITE },
  journal: { method: 'GET', path: '/__mock/requests', surfaces: ['mcp', 'panel'], bound: `at most 1,000 entries a page, ${READ}` },
  request: { method: 'GET', path: '/__mock/requests/:seq', surfaces: ['panel'], bound: "one entry, within the journal's entry limit" },
  clearJournal: { method: 'DELETE', path: '/__mock/requests', surfaces: [], bound: SMALL },
  har: { method: 'GET', path: '/__mock/requests.har', surfaces: ['panel'], bound: READ },
  audit: { method: 'GET', path: '/__mock/audit', surfaces: ['mcp'], bound: "one pass over the journal's bounded entries" },
  exportState: { method: 'GET', path: '/__mock/state', surfaces: ['mcp', 'panel'], bound: `${READ}; MCP stops at 2 MiB` },
  importState: {
    method: 'PUT',
    path: '/__mock/state',
    surfaces: ['mcp', 'panel'],
    bound: `${WRITE}; one import at a time per server (503); read and stored a slice of pets at a time (snapshot-slices.ts)`,
  },
  addPets: {
    method: 'POST',
    path: '/__mock/pets',
    surfaces: ['mcp'],
    bound: `at most ${MAX_ADDED_PETS} pets a call, each added as POST /pets adds one: its cost never grows with the store`,
  },
} as const satisfies Record<string, OperationDeclaration>

export type OperationName = keyof typeof ADMIN_OPERATIONS

/** `GET /__mock/requests` filters and one cursor. */
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

/** `addPets`: `count` new pets (1 to MAX_ADDED_PETS), named and put in categories 1-5 from `seed` (default 1). */
export interface AddPetsRequest {
  readonly count: number
  /** The status of every new pet; default: a seeded mix, as the generated pets have. */
  readonly status?: PetStatus | undefined
  readonly seed?: number | undefined
}

/** Why `request` is no `AddPetsRequest`, in a sentence naming the fix; `undefined` when it is one. */
export function addPetsProblem(request: Record<string, unknown>, statuses: readonly string[]): string | undefined {
  const { count, status, seed } = request
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_ADDED_PETS)
    return `"count" must be a whole number from 1 to ${MAX_ADDED_PETS}: { "count": 10 }.`
  if (status !== undefined && (typeof status !== 'string' || !statuses.includes(status)))
    return `"status" must be one of ${statuses.join(', ')}.`
  if (seed !== undefined && (typeof seed !== 'number' || !Number.isSafeInteger(seed) || seed < 0))
    return '"seed" must be a whole number, 0 or more.'
  return undefined
}

/** What `timeline` answers for a scenario without stages. */
export interface NoTimeline {
  readonly scenario: string
  readonly current: null
  readonly stages: readonly []
}

/** The server's health (`GET /__mock/health`); a world in a page answers what it knows. */
export interface HealthView {
  readonly status: 'ok' | 'degraded'
  readonly reason?: string
  readonly basePath: string
  readonly [more: string]: unknown
}

/**
 * Every admin operation as a call. Each acts on `session` (the admin API's `X-Mock-Session`), default: the
 * implementation's own session (the panel's, the MCP request's) or the default world.
 */
export interface MockAdmin {
  health(): Promise<HealthView>
  sessions(): Promise<string[]>
  openapi(): Promise<unknown>
  keys(session?: string): Promise<readonly KeyStatus[]>
  /** Sets a key's counters as a scenario's `keys.start` does; answers every key's status. */
  setKey(key: string, start: KeyStartInput, session?: string): Promise<readonly KeyStatus[]>
  scenarios(session?: string): Promise<readonly ScenarioListing[]>
  /** A scenario as the catalogue holds it. */
  scenario(name: string, session?: string): Promise<unknown>
  currentScenario(session?: string): Promise<string>
  /** Switches the session to scenario `name`; answers its name. */
  useScenario(name: string, session?: string): Promise<string>
  /** The scenario's timeline; a scenario without one has no stages (docs/scenarios.md, "Timelines"). */
  timeline(session?: string): Promise<TimelineView | NoTimeline>
  coverage(session?: string): Promise<SpecCoverage>
  reset(session?: string): Promise<void>
  clock(session?: string): Promise<ClockView>
  /** Freezes the clock at `moment` (ISO 8601 or ms since the epoch), or runs it on from there. */
  setClock(moment: string | number, running?: boolean, session?: string): Promise<ClockView>
  advanceClock(seconds: number, session?: string): Promise<ClockView>
  realTime(session?: string): Promise<ClockView>
  /** A page of the journal, newest last, as `GET /__mock/requests` writes it. */
  journal(query: JournalQuery, session?: string): Promise<readonly JournalEntryView[]>
  /** One entry; `undefined` when the journal no longer keeps it. */
  request(seq: number, session?: string): Promise<JournalEntryView | undefined>
  clearJournal(session?: string): Promise<void>
  /** The journal as a HAR 1.2 JSON text. */
  har(session?: string): Promise<string>
  audit(session?: string): Promise<AuditReport>
  /**
   * `GET /__mock/state`'s JSON text (ids exact). With `maxChars`: `undefined` when the text is longer, known as soon as
   * it is: the read stops there, so a state too large to answer is never built whole.
   */
  exportState(session?: string, maxChars?: number): Promise<string | undefined>
  importState(text: string, session?: string): Promise<void>
  /** Adds pets under the next ids, as `POST /pets` stores them; answers their JSON array as the API writes pets (ids exact). */
  addPets(request: AddPetsRequest, session?: string): Promise<string>
}

/** What a refused admin call answered, carried as the `cause` of the Error it rejects with. */
export interface AdminFailure {
  readonly status: number
  readonly code: string | undefined
}

/** The Error an admin call rejects with: its message names the fix, its cause says what the admin API answered. */
export const adminRefusal = (message: string, failure: AdminFailure): Error => new Error(message, { cause: failure })

/** The answer of the refused admin call that threw `error`, or undefined for any other error. */
export function adminFailure(error: unknown): AdminFailure | undefined {
  const cause = error instanceof Error ? (error.cause as Partial<AdminFailure> | undefined) : undefined
  return typeof cause?.status === 'number' ? { status: cause.status, code: cause.code } : undefined
}
