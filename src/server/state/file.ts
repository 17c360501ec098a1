/**
 * `--state-file FILE`: the sessions' snapshot as JSON, written atomically (temp file, fsync, rename)
 * so a crash at any moment leaves the old file or the new one, never a torn one. A symlinked file is
 * written through to its target. `logSeq` says which lines of the change log it already holds, `log` which log
 * continues it (the id in that log's first line, log.ts), and `digest`, its last field, the SHA-256 of the text
 * before it: a file edited after it was written (a pet removed by hand) is refused at start, not read as acknowledged.
 */
import { createHash, randomUUID } from 'node:crypto'
import { open, readdir, readFile, realpath, rename, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { PetStoreMockError } from '../../core/errors.js'
import { parseJson } from '../../core/json.js'
import { parseSnapshot, type SteppedSnapshot, snapshotPieces, type WorldSnapshot } from '../../snapshot.js'

/** What is written holds each session's snapshot, or one read from its storage as it is written (`SteppedSnapshot`). */
export interface StateFileContent<S = WorldSnapshot> {
  version: 1
  /** The last change-log line this snapshot holds (0: none). */
  logSeq: number
  /**
   * The id of the change log that continues this snapshot (its first line names it): a start that finds no file of
   * the log with it refuses, for the log was emptied or deleted. None when no log follows (the last snapshot of a
   * server that stopped cleanly), or for a file written before logs had ids.
   */
  log?: string | undefined
  /** Session name to state. A Map: names come from clients (`__proto__` is one like any other). */
  sessions: Map<string, S>
}

/** A problem with the state file that stops the start (exit 2): it names the file and the fix. */
export class StateFileError extends PetStoreMockError {
  override readonly name = 'StateFileError'
  readonly code = 'state_file_invalid'
}

/** The file to write: the target of a symlink, else the file itself (which may not exist yet). */
export async function stateFileTarget(file: string): Promise<string> {
  try {
    return await realpath(file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    // A dangling symlink or no file yet: the folder must exist; the file is made on the first save.
    return join(await realpath(dirname(file)), basename(file))
  }
}

/** The text is handed to the file in writes of about this many characters; the event loop runs between them. */
const WRITE_CHARS = 64 * 1024

/** The state file's text in pieces: a thousand pets each (see `snapshotPieces`). */
function* statePieces(content: StateFileContent<WorldSnapshot | SteppedSnapshot>): Generator<string> {
  yield `{"version":1,"logSeq":${content.logSeq},${content.log === undefined ? '' : `"log":${JSON.stringify(content.log)},`}"sessions":{`
  let first = true
  for (const [name, snapshot] of content.sessions) {
    yield `${first ? '' : ','}${JSON.stringify(name)}:`
    first = false
    yield* snapshotPieces(snapshot)
  }
  yield '}'
}

/** The file's last field: `,"digest":"sha256:<hex>"}`, the hash of all the text before it. */
const DIGEST = /,"digest":"sha256:([0-9a-f]{64})"\}\n?$/
const digestOf = (hash: ReturnType<typeof createHash>): string => `,"digest":"sha256:${hash.digest('hex')}"}\n`

/**
 * Writes `content` to `file` atomically, in steps: each write awaits the file system, so requests are answered
 * while a large state is written (decisions/014-state-log-segments.md: one synchronous stringify held every answer).
 * Rejects with `StaleSnapshotError`, leaving the file as it was, when a stepped snapshot's pets changed meanwhile.
 */
export async function writeStateFile(file: string, content: StateFileContent<WorldSnapshot | SteppedSnapshot>): Promise<void> {
  // Unique per write, also between two servers of one process.
  const temp = `${file}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`
  const handle = await open(temp, 'w')
  try {
    try {
      let text = ''
      const hash = createHash('sha256')
      for (const piece of statePieces(content)) {
        text += piece
        if (text.length < WRITE_CHARS) continue
        hash.update(text)
        await handle.writeFile(text)
        text = ''
      }
      hash.update(text)
      await handle.writeFile(text + digestOf(hash))
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temp, file)
  } catch (error) {
    // A write that failed or was given up leaves no temp file behind.
    await unlink(temp).catch(() => undefined)
    throw error
  }
}

/** The `version` a state file must have: the only format this petstore-mock writes and reads. */
const VERSION = 1

/** `"version"` and `"logSeq"` as the file has them, checked: an unknown version is refused, not read as this one. */
function headerOf(file: string, value: { version?: unknown; logSeq?: unknown }): number {
  const { version, logSeq = 0n } = value
  if (version !== BigInt(VERSION)) {
    const got = typeof version === 'bigint' || typeof version === 'number' ? `has version ${version}` : 'has no "version" number'
    throw new StateFileError(
      `[petstore-mock] State file ${file} ${got}; this petstore-mock reads version ${VERSION}. Start the petstore-mock that wrote it, or move it aside to start from the seed.`,
    )
  }
  if (typeof logSeq !== 'bigint' || logSeq < 0n || logSeq > BigInt(Number.MAX_SAFE_INTEGER))
    throw new StateFileError(
      `[petstore-mock] State file ${file}: "logSeq" must be a whole number from 0. Fix it, or move it aside to start from the seed.`,
    )
  return Number(logSeq)
}

/** Reads a state file; `undefined` when it does not exist. A bad file is a StateFileError naming the file and the field. */
export async function readStateFile(file: string): Promise<StateFileContent | undefined> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new StateFileError(`[petstore-mock] Cannot read the state file ${file}: ${(error as Error).message}`)
  }
  // Looked for in the last characters only: the text may be hundreds of megabytes.
  const tail = text.slice(-100)
  const digest = DIGEST.exec(tail)
  const before = text.length - tail.length + (digest?.index ?? 0)
  if (digest !== null && createHash('sha256').update(text.slice(0, before)).digest('hex') !== digest[1])
    throw new StateFileError(
      `[petstore-mock] State file ${file} was changed after petstore-mock wrote it: its "digest" is not the one of its content, so what it acknowledged may be missing. Restore it from a backup; or, if the change was yours, delete its "digest" field and start again.`,
    )
  const parsed = parseJson(text)
  if (!parsed.ok) throw new StateFileError(`[petstore-mock] State file ${file} is not valid JSON: ${parsed.message}. Delete it or fix it.`)
  const value = parsed.value as { sessions?: unknown; logSeq?: unknown; version?: unknown; log?: unknown }
  if (typeof value !== 'object' || value === null || typeof value.sessions !== 'object' || value.sessions === null) {
    throw new StateFileError(`[petstore-mock] State file ${file} has no "sessions" object. Delete it or fix it.`)
  }
  const logSeq = headerOf(file, value)
  const sessions = new Map<string, WorldSnapshot>()
  for (const [name, snapshot] of Object.entries(value.sessions as Record<string, unknown>)) {
    const result = parseSnapshot(snapshot)
    if (!result.ok) throw new StateFileError(`[petstore-mock] State file ${file}, session ${JSON.stringify(name)}: ${result.message}`)
    sessions.set(name, result.snapshot)
  }
  if (value.log !== undefined && typeof value.log !== 'string')
    throw new StateFileError(
      `[petstore-mock] State file ${file}: "log" must be the id of its change log, a string. Fix it, or move it aside to start from the seed.`,
    )
  return { version: 1, logSeq, log: value.log, sessions }
}

/** The temporary files `writeStateFile` names: `FILE.<pid>.<8 hex digits>.tmp`. */
const TEMP_NAME = /^\d+\.[0-9a-f]{8}\.tmp$/

/**
 * Removes the temporary files beside `file` that a snapshot rewrite cut short by a crash (`kill -9`) left behind, and
 * returns their names. Called at start, before this process writes one (test/cli/state-file-tampering.test.ts).
 */
export async function removeLeftoverTemps(file: string): Promise<string[]> {
  const prefix = `${basename(file)}.`
  const names = (await readdir(dirname(file))).filter((name) => name.startsWith(prefix) && TEMP_NAME.test(name.slice(prefix.length)))
  for (const name of names) await unlink(join(dirname(file), name)).catch(() => undefined)
  return names
}
