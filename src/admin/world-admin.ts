/**
 * The admin operations (operations.ts) over worlds in this process: what the express admin routes, `/__mock/mcp` and
 * the control panel in a page act through. Each call tells its host a world changed (`onChange`: the server's state
 * file, the page's saved world) before it answers.
 */
import { toEpochMs } from '../clock.js'
import { ERRORS, type ErrorCode, plainMessage, StoreUnavailableError } from '../core/errors.js'
import { serializePet } from '../core/json.js'
import { notKeptMessage, SESSION_NAME_RULE } from '../core/refusals.js'
import { toHar } from '../journal/har.js'
import { entryView } from '../journal/view.js'
import { listScenarios } from '../scenarios/catalogue.js'
import { snapshotPieces } from '../snapshot.js'
import { PET_STATUSES } from '../spec.js'
import { generatePets } from '../store/seed.js'
import type { ServerWorld, World } from '../world/create-world.js'
import { clockView } from '../world/events.js'
import { startKey } from '../world/key-start.js'
import { type AddPetsRequest, addPetsProblem, adminRefusal, type HealthView, type MockAdmin } from './operations.js'

/** What the in-process admin needs of its host. */
export interface WorldAdminParts<W extends World> {
  /** The world of a session (created on first use), `undefined` for an invalid name (the server's `Sessions.get`). */
  world(session: string): W | undefined
  /** Called after a call changed a session's world, before it answers; `false`: not kept (the state file failed). */
  onChange(session: string, world: W): boolean
  /** The served OpenAPI document. */
  openapi(): unknown
  /** The live sessions' names. */
  sessions(): string[]
  health(): HealthView
  /** The HAR's origin and creator version. */
  har(): { origin: string; version: string }
  /** The session a call acts on when it names none (`/__mock/mcp`: the request's `X-Mock-Session`). */
  readonly defaultSession?: string | undefined
  /** The state imports under way, shared by every surface of a server (`createGate(1)`); none: not limited (a page). */
  readonly imports?: Gate | undefined
  /** Gives the host's other work a turn: an import reads and stores a large state in slices around it (World.restore). */
  readonly pause?: (() => Promise<void>) | undefined
}

/** At most a number of calls at once: `take()` gives the call's release, or `undefined` when none is left. */
export interface Gate {
  take(): (() => void) | undefined
}

/**
 * @example
 * const imports = createGate(1)
 * const release = imports.take() // undefined while another holds it
 */
export function createGate(limit: number): Gate {
  let held = 0
  return {
    take() {
      if (held >= limit) return undefined
      held += 1
      let released = false
      return () => {
        if (released) return
        released = true
        held -= 1
      }
    },
  }
}

/** The world admin and what only an in-process caller uses: the state export as pieces, to stream. */
export interface WorldAdmin extends MockAdmin {
  /** `GET /__mock/state`'s text in pieces (a thousand pets each), of the state at the call. */
  statePieces(session?: string): Promise<Iterable<string>>
}

const refused = (code: ErrorCode, message: string): Error => adminRefusal(message, { status: ERRORS[code].status, code })

/** A session's world, and a change on it told to the host, for the operations below. */
function sessionWorlds<W extends World>(parts: WorldAdminParts<W>) {
  const named = (session: string | undefined) => session || parts.defaultSession || 'default'
  const of = (session: string | undefined): W => {
    const world = parts.world(named(session))
    if (!world) throw refused('invalid_session', `The session name must be ${SESSION_NAME_RULE}.`)
    return world
  }
  /** Runs a change on the session's world; a misuse (bad scenario, bad state, bad moment) is the admin API's 400. */
  const change = async <T>(session: string | undefined, run: (world: W) => T | Promise<T>, misuse: ErrorCode = 'invalid_admin_request') => {
    const world = of(session)
    let value: T
    try {
      value = await run(world)
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw error
      throw refused(misuse, plainMessage(error))
    }
    if (!parts.onChange(named(session), world)) throw refused('state_file_unavailable', notKeptMessage('change'))
    return value
  }
  return { of, change }
}

/** The pieces joined; `undefined` as soon as the text is longer than `maxChars` (the rest is never read). */
function joined(pieces: Iterable<string>, maxChars: number): string | undefined {
  let text = ''
  for (const piece of pieces) {
    text += piece
    if (text.length > maxChars) return undefined
  }
  return text
}

/**
 * @example
 * const admin = createWorldAdmin({ world: (name) => sessions.get(name), onChange: () => true, openapi, sessions, health, har })
 * await admin.advanceClock(60, 'alice')
 */
export function createWorldAdmin<W extends World>(parts: WorldAdminParts<W>): WorldAdmin {
  const { of, change } = sessionWorlds(parts)
  return {
    health: async () => parts.health(),
    sessions: async () => parts.sessions(),
    openapi: async () => parts.openapi(),
    keys: async (session) => of(session).keyStatuses(),
    setKey: (key, start, session) =>
      change(session, async (world) => {
        await startKey(world.keys, world.rateLimiter, world.clock.now(), key, start)
        return world.keyStatuses()
      }),
    async scenarios(session) {
      const world = of(session)
      return listScenarios(world.scenarios, world.scenario)
    },
    async scenario(name, session) {
      const world = of(session)
      try {
        return world.scenarios.get(name)
      } catch (error) {
        throw refused(world.scenarios.has(name) ? 'invalid_admin_request' : 'unknown_scenario', plainMessage(error))
      }
    },
    currentScenario: async (session) => of(session).scenario,
    useScenario: async (name, session) =>
      change(
        session,
        async (world) => {
          await world.useScenario(name)
          return world.scenario
        },
        of(session).scenarios.has(name) ? 'invalid_admin_request' : 'unknown_scenario',
      ),
    async timeline(session) {
      const world = of(session)
      // A scenario without a timeline has no stages (docs/scenarios.md, "Timelines").
      return world.timeline() ?? { scenario: world.scenario, current: null, stages: [] }
    },
    coverage: async (session) => of(session).coverage(),
    reset: (session) => change(session, (world) => world.reset()),
    clock: async (session) => clockView(of(session).clock),
    setClock: (moment, running, session) =>
      change(session, (world) => {
        world.clock.set(toEpochMs(moment), { running: running === true })
        return clockView(world.clock)
      }),
    advanceClock: (seconds, session) =>
      change(session, (world) => {
        world.clock.advance(seconds * 1000)
        return clockView(world.clock)
      }),
    realTime: (session) =>
      change(session, (world) => {
        world.clock.useRealTime()
        return clockView(world.clock)
      }),
    journal: async ({ limit, after, before, ...filter }, session) =>
      of(session)
        .journal.page(filter as never, { limit, after, before })
        .entries.map(entryView),
    async request(seq, session) {
      const entry = of(session).journal.get(seq)
      return entry && entryView(entry)
    },
    clearJournal: async (session) => of(session).journal.clear(),
    har: async (session) => JSON.stringify(toHar(of(session).journal.all(), parts.har()), null, 2),
    audit: async (session) => of(session).audit(),
    ...stateOperations(of, change, parts),
  }
}

/** The operations on a session's whole state: its export (whole or in pieces), its import, pets added. */
function stateOperations<W extends World>(
  of: ReturnType<typeof sessionWorlds<W>>['of'],
  change: ReturnType<typeof sessionWorlds<W>>['change'],
  { imports, pause }: Pick<WorldAdminParts<W>, 'imports' | 'pause'>,
): Pick<WorldAdmin, 'statePieces' | 'exportState' | 'importState' | 'addPets'> {
  const statePieces = async (session?: string) => {
    const world = of(session)
    await world.ready()
    // The snapshot is taken at once: the pets written are the ones of that moment even as requests go on. A server's
    // world gives its pets' texts as they are written (`snapshotInSteps`), so exports under way copy no pet: many at
    // once hold only their pieces on the way (bench/admin-state.ts). An import or reset meanwhile ends the export.
    const { snapshotInSteps } = world as Partial<ServerWorld>
    return snapshotPieces(snapshotInSteps ? snapshotInSteps.call(world) : world.snapshot())
  }
  return {
    statePieces,
    exportState: async (session, maxChars = Number.POSITIVE_INFINITY) => joined(await statePieces(session), maxChars),
    // One at a time: an import holds the whole state as text and parsed at once (bench/admin-state.ts).
    async importState(text, session) {
      const release = imports?.take()
      if (imports && !release)
        throw refused('too_many_admin_writes', 'A state import is under way (one at a time: each holds a whole state); retry in a moment.')
      try {
        return await change(session, (world) => world.restore(text, pause ? { pause } : {}))
      } finally {
        release?.()
      }
    },
    addPets: (request, session) => {
      const problem = addPetsProblem({ ...request }, PET_STATUSES)
      if (problem) return Promise.reject(refused('invalid_admin_request', problem))
      return change(session, async (world) => `[${(await world.addPets(newPets(request))).map(serializePet).join(',')}]`)
    },
  }
}

/** The pets `addPets` adds: names and categories (1-5) from the seed, the status asked for or the seeded one. */
function newPets({ count, status, seed = 1 }: AddPetsRequest) {
  return generatePets({ seed, count, categories: 5 }).map(({ id: _, ...pet }) => (status === undefined ? pet : { ...pet, status }))
}
