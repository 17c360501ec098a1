/**
 * `--state-file FILE`: the server's sessions saved as JSON, written atomically (temp file, fsync,
 * rename) so a crash at any moment leaves the old file or the new one, never a torn one.
 */
import { randomUUID } from 'node:crypto'
import { open, readFile, rename, unlink } from 'node:fs/promises'
import { parseJson } from '../core/json.js'
import { parseSnapshot, stringifySnapshot, type WorldSnapshot } from '../snapshot.js'

export interface StateFileContent {
  version: 1
  sessions: Record<string, WorldSnapshot>
}

/** Writes `content` to `file` atomically. */
export async function writeStateFile(file: string, content: StateFileContent): Promise<void> {
  const parts = Object.entries(content.sessions).map(([name, snapshot]) => `${JSON.stringify(name)}:${stringifySnapshot(snapshot)}`)
  const text = `{"version":1,"sessions":{${parts.join(',')}}}\n`
  // Unique per write, also between two servers of one process.
  const temp = `${file}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`
  const handle = await open(temp, 'w')
  try {
    await handle.writeFile(text)
    await handle.sync()
  } finally {
    await handle.close()
  }
  try {
    await rename(temp, file)
  } catch (error) {
    await unlink(temp).catch(() => undefined)
    throw error
  }
}

/** Reads a state file; `undefined` when it does not exist. A bad file is an error naming the file and the field. */
export async function readStateFile(file: string): Promise<StateFileContent | undefined> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  const parsed = parseJson(text)
  if (!parsed.ok) throw new Error(`[petstore-mock] State file ${file} is not valid JSON: ${parsed.message}. Delete it or fix it.`)
  const value = parsed.value as { sessions?: unknown }
  if (typeof value !== 'object' || value === null || typeof value.sessions !== 'object' || value.sessions === null) {
    throw new Error(`[petstore-mock] State file ${file} has no "sessions" object. Delete it or fix it.`)
  }
  const sessions: Record<string, WorldSnapshot> = {}
  for (const [name, snapshot] of Object.entries(value.sessions as Record<string, unknown>)) {
    const result = parseSnapshot(snapshot)
    if (!result.ok) throw new Error(`[petstore-mock] State file ${file}, session ${JSON.stringify(name)}: ${result.message}`)
    sessions[name] = result.snapshot
  }
  return { version: 1, sessions }
}
