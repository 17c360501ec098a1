/**
 * Isolated sessions of the standalone server: `X-Mock-Session: <name>` selects a world of its own
 * (pets, counters, bans, clock), created on first use. The number of live sessions is bounded:
 * the least recently used is evicted (never the default session).
 */
import { createWorld, type World } from '../world/create-world.js'
import type { PetStoreOptions } from '../world/options.js'

export const DEFAULT_SESSION = 'default'
const SESSION_NAME = /^[A-Za-z0-9._:-]{1,64}$/

export interface Sessions {
  /** The world of a session, created on first use; `undefined` for an invalid name. */
  get(name: string | undefined): World | undefined
  /** The default world. */
  readonly main: World
  /** Names of the live sessions, least recently used first. */
  names(): string[]
  /** Puts a world under a name (state restore). */
  set(name: string, store: World): void
  readonly size: number
  readonly max: number
  /** Makes a world with the sessions' options (for restores). */
  create(): World
}

/**
 * @example
 * const sessions = createSessions({ seed: 7 }, 1000)
 * sessions.get(request.headers['x-mock-session'])
 */
export function createSessions(options: PetStoreOptions, max: number): Sessions {
  // Sessions are only reached over HTTP: worlds without msw or an @msw/data collection (decisions/009).
  const create = () => createWorld(options)
  const main = create()
  const live = new Map<string, World>()
  const touch = (name: string, store: World) => {
    live.delete(name)
    live.set(name, store)
    while (live.size > max) {
      const oldest = live.keys().next().value as string
      live.delete(oldest)
    }
  }
  return {
    main,
    max,
    create,
    get size() {
      return live.size + 1
    },
    get(name) {
      if (name === undefined || name === '' || name === DEFAULT_SESSION) return main
      if (!SESSION_NAME.test(name)) return undefined
      let store = live.get(name)
      if (store) {
        touch(name, store)
        return store
      }
      store = create()
      touch(name, store)
      return store
    },
    set(name, store) {
      if (name === DEFAULT_SESSION) throw new Error('[petstore-mock] The default session cannot be replaced; restore into it instead.')
      touch(name, store)
    },
    names: () => [DEFAULT_SESSION, ...live.keys()],
  }
}
