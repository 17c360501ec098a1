/**
 * `--state-file`: the sessions loaded at start, and saved a moment after each change and at shutdown.
 */
import type { World } from '../world/create-world.js'
import { DEFAULT_SESSION, type Sessions } from './sessions.js'
import { readStateFile, writeStateFile } from './state-file.js'

const SAVE_DELAY_MS = 250

export interface StateSaver {
  /** Restores every saved session into `sessions`. */
  load(): Promise<void>
  /** Something changed: save soon. */
  changed(): void
  /** Saves now (after any save in progress); resolves when written. */
  flush(): Promise<void>
}

/**
 * @example
 * const saver = createStateSaver('/tmp/petstore.json', sessions)
 * await saver.load()
 */
export function createStateSaver(file: string | undefined, sessions: Sessions): StateSaver {
  if (file === undefined) return { load: async () => {}, changed: () => {}, flush: async () => {} }
  let timer: NodeJS.Timeout | undefined
  let saving: Promise<void> = Promise.resolve()
  const save = (): Promise<void> => {
    saving = saving
      .then(async () => {
        const content: Record<string, ReturnType<World['snapshot']>> = {}
        for (const name of sessions.names()) {
          const world = sessions.get(name) as World
          await world.ready()
          content[name] = world.snapshot()
        }
        await writeStateFile(file, { version: 1, sessions: content })
      })
      .catch((error: unknown) => console.error('[petstore-mock] Could not save the state file:', error))
    return saving
  }
  return {
    async load() {
      const content = await readStateFile(file)
      for (const [name, snapshot] of Object.entries(content?.sessions ?? {})) {
        if (name === DEFAULT_SESSION) await sessions.main.restore(snapshot)
        else {
          const world = sessions.create()
          await world.restore(snapshot)
          sessions.set(name, world)
        }
      }
    },
    changed() {
      if (timer) return
      timer = setTimeout(() => {
        timer = undefined
        void save()
      }, SAVE_DELAY_MS)
    },
    flush() {
      clearTimeout(timer)
      timer = undefined
      return save()
    },
  }
}
