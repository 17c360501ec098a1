import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Temporary folders for one test file, so it leaves none behind: `make` one per test, `remove` them all in afterAll.
 *
 *   const temp = tempDirs()
 *   afterAll(temp.remove)
 *   const dir = await temp.make('scenarios-')
 */
export function tempDirs(): { make(prefix: string): Promise<string>; remove(): Promise<void> } {
  const made: string[] = []
  return {
    async make(prefix) {
      const folder = await mkdtemp(join(tmpdir(), prefix))
      made.push(folder)
      return folder
    },
    async remove() {
      await Promise.all(made.splice(0).map((folder) => rm(folder, { recursive: true, force: true })))
    },
  }
}
