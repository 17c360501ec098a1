/**
 * `--redis URL` for the standalone server (docs/replicas.md): connects, and gives the server sessions whose
 * worlds live in that Redis. Loaded only with `--redis`: without it, nothing of Redis is imported.
 */
import { RedisStartError } from '../../core/errors.js'
import type { PetStoreOptions } from '../../world/options.js'
import { createSessions, type Sessions } from '../sessions.js'
import { connectRedis } from './link.js'
import { createSharedWorlds } from './shared-world.js'
import { safeUrl } from './url.js'

export interface SharedSessions {
  readonly sessions: Sessions
  /** Why the server is degraded (Redis unreachable), or `undefined`. */
  problem(): string | undefined
  close(): Promise<void>
}

/**
 * @example
 * const shared = await startSharedSessions('redis://127.0.0.1:6379', options, 1000)
 */
export async function startSharedSessions(url: string, options: PetStoreOptions, max: number): Promise<SharedSessions> {
  let link: Awaited<ReturnType<typeof connectRedis>>
  try {
    link = await connectRedis(url)
  } catch (error) {
    throw new RedisStartError(
      `${(error as Error).message} Start Redis (e.g. redis-server --port 6379) or fix --redis / PETSTORE_REDIS (${safeUrl(url)}).`,
    )
  }
  const shared = createSharedWorlds(link, options)
  const sessions = createSessions(options, max, undefined, shared.worldFor)
  // The default session: started (or joined) before the server answers.
  await sessions.main.ready()
  return { sessions, problem: () => link.problem, close: () => link.close() }
}
