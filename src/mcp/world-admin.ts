/**
 * The admin operations on a server's own sessions, in its process: what `/__mock/mcp` acts on. Each does what its
 * admin route does (src/server/admin/*), and tells the server a world changed (`onChange`, the state file) as they do.
 */
import { plainMessage } from '../core/errors.js'
import { notKeptMessage, SESSION_NAME_RULE } from '../core/refusals.js'
import type { JournalEntry } from '../journal/journal.js'
import { openApiDocument } from '../openapi.js'
import { listScenarios } from '../scenarios/catalogue.js'
import { snapshotPieces } from '../snapshot.js'
import type { ServerWorld } from '../world/create-world.js'
import { clockView } from '../world/events.js'
import { startKey } from '../world/key-start.js'
import { AdminError, type JournalLine, type MockAdmin } from './admin.js'

/** What the in-process admin needs of a server: its sessions, and whom to tell of a change. */
export interface WorldAdminParts {
  /** The world of a session (created on first use), `undefined` for an invalid name (the server's `Sessions.get`). */
  world(session: string | undefined): ServerWorld | undefined
  /** Called after a call changed a session's world, before it answers (the admin API's `onChange`); `false`: not kept. */
  onChange(session: string, world: ServerWorld): boolean
  /** The served OpenAPI document's server address and name limit. */
  openapi(): { serverUrl: string; maxNameLength?: number | undefined }
  /** The session a call acts on when it names none (`/__mock/mcp`: the request's `X-Mock-Session`). */
  readonly defaultSession?: string | undefined
}

/** A journal entry as the tools show it. */
export const lineOf = (entry: Pick<JournalEntry, Exclude<keyof JournalLine, 'retryAfter'> | 'rateLimit'>): JournalLine => ({
  seq: entry.seq,
  time: entry.time,
  method: entry.method,
  path: entry.path,
  status: entry.status,
  operation: entry.operation,
  key: entry.key,
  code: entry.code,
  fault: entry.fault,
  retryAfter: entry.rateLimit?.retryAfter,
})

/**
 * @example
 * const admin = createWorldAdmin({ world: (name) => sessions.get(name), onChange: () => true, openapi: () => ({ serverUrl: url }) })
 */
export function createWorldAdmin(parts: WorldAdminParts): MockAdmin {
  const named = (session: string | undefined) => session || parts.defaultSession || 'default'
  const of = (session: string | undefined): ServerWorld => {
    const world = parts.world(named(session))
    if (!world) throw new AdminError(`The session name must be ${SESSION_NAME_RULE}.`)
    return world
  }
  const changed = (session: string | undefined, world: ServerWorld): void => {
    if (!parts.onChange(named(session), world)) throw new AdminError(notKeptMessage('change'))
  }
  /** Runs a change; a misuse (bad scenario, bad state) becomes the admin API's refusal. */
  const attempt = async <T>(run: () => T | Promise<T>): Promise<T> => {
    try {
      return await run()
    } catch (error) {
      if (error instanceof TypeError || error instanceof AdminError) throw new AdminError(plainMessage(error))
      throw error
    }
  }
  return {
    keys: async (session) => of(session).keyStatuses(),
    setKey: (key, start, session) =>
      attempt(async () => {
        const world = of(session)
        await startKey(world.keys, world.rateLimiter, world.clock.now(), key, start)
        changed(session, world)
        return world.keyStatuses()
      }),
    scenarios: async (session) => listScenarios(of(session).scenarios, of(session).scenario),
    scenario: (name, session) => attempt(() => of(session).scenarios.get(name)),
    useScenario: (name, session) =>
      attempt(async () => {
        const world = of(session)
        await world.useScenario(name)
        changed(session, world)
        return world.scenario
      }),
    currentScenario: async (session) => of(session).scenario,
    timeline: async (session) => {
      const world = of(session)
      return world.timeline() ?? { scenario: world.scenario, current: null, stages: [] }
    },
    reset: async (session) => {
      const world = of(session)
      await world.reset()
      changed(session, world)
    },
    clock: async (session) => clockView(of(session).clock),
    advanceClock: (seconds, session) =>
      attempt(() => {
        const world = of(session)
        world.clock.advance(seconds * 1000)
        changed(session, world)
        return clockView(world.clock)
      }),
    journal: async ({ limit, after, before, ...filter }, session) =>
      of(session)
        .journal.page(filter as never, { limit, after, before })
        .entries.map(lineOf),
    audit: async (session) => of(session).audit(),
    exportState: async (session, maxChars = Number.POSITIVE_INFINITY) => {
      const world = of(session)
      await world.ready()
      // GET /__mock/state's text, piece by piece (a thousand pets each).
      let text = ''
      for (const piece of snapshotPieces(world.snapshot())) {
        text += piece
        if (text.length > maxChars) return undefined
      }
      return text
    },
    importState: (text, session) =>
      attempt(async () => {
        const world = of(session)
        await world.restore(text)
        changed(session, world)
      }),
    openapi: async () => openApiDocument(parts.openapi()),
  }
}
