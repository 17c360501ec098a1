/**
 * `--state-file` at start: the state file restored and its log replayed, after checking that the log continues it
 * (no line missing or repeated, none the file claims but does not hold, the file there when its log is, a version
 * this petstore-mock reads). Anything else stops the start (exit 2) with one line naming the file, the line and the
 * fix. What a crash can leave is cleaned up with a one-line notice: temporary files of a snapshot rewrite cut short,
 * and a torn last line of the log, a write cut short whose change was never acknowledged (decision 014).
 */
import { existsSync, lstatSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { readlink } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { issuePath } from '../../core/issues.js'
import { PetRecordSchema } from '../../schemas.js'
import type { IndexOnlyData } from '../../store/pet-data.js'
import type { Sessions } from '../sessions.js'
import { readStateFile, removeLeftoverTemps, StateFileError, stateFileTarget, writeStateFile } from './file.js'
import { openStateLog, type StateLog } from './log.js'
import { type LogLine, moveAsideFix, readStateLog, segmentsOf } from './log-read.js'

/** The log of the state file `state` and its segments, those that exist. */
function logFilesOf(state: string): string[] {
  const log = `${state}.log`
  try {
    return [...(existsSync(log) ? [log] : []), ...segmentsOf(log).map((segment) => segment.file)]
  } catch {
    return [] // its folder is missing: so is its log
  }
}

/**
 * A log only continues its state file: without the file, starting from the seed and replaying the log would lose
 * every change before the log's first line. `target` is missing; `file` may be a dangling symlink, whose log may be
 * beside it or beside where it points (test/cli/state-file-tampering.test.ts).
 */
async function refuseLogWithoutState(file: string, target: string): Promise<void> {
  const pointsTo = await readlink(file).then(
    (link) => resolve(dirname(file), link),
    () => undefined,
  )
  const logs = [...new Set([target, ...(pointsTo === undefined ? [] : [pointsTo])].flatMap(logFilesOf))]
  if (logs.length === 0) return
  const missing = pointsTo === undefined ? `${target} is missing` : `${file} is a symlink to ${pointsTo}, which is missing`
  throw new StateFileError(
    `[petstore-mock] ${missing}, but its change log ${logs.join(', ')} is there: the log only continues it, so starting from the seed would lose the changes before the log. Restore ${pointsTo ?? target} from a backup, or move ${logs.join(', ')} aside to start from the seed.`,
  )
}

/** Replays one line of the log; a line that is not a valid change is an error naming its file, number and field. */
async function replay(line: LogLine, sessions: Sessions, stores: ReadonlyMap<string, IndexOnlyData>, log: string): Promise<void> {
  const where = `${line.file}, line ${line.line} (change ${line.seq})`
  if ('evicted' in line) return sessions.drop(line.session)
  const world = sessions.get(line.session, true) // made on first use, so its storage is known
  // The server writes neither of these: a line edited or made by hand, refused rather than dropped or taken over.
  if (!world) throw new Error(`[petstore-mock] ${where}: session ${JSON.stringify(line.session)} is no session name. ${moveAsideFix(log)}`)
  if ('create' in line) {
    const pet = PetRecordSchema.safeParse(line.create)
    const store = stores.get(line.session)
    if (pet.success && store?.repository.get(pet.data.id) !== undefined)
      throw new Error(
        `[petstore-mock] ${where}: create.id: pet ${pet.data.id} exists already (each create gives a new id). ${moveAsideFix(log)}`,
      )
    if (pet.success) return void store?.put(pet.data)
    const [issue] = pet.error.issues
    const field = issuePath(['create', ...(issue?.path ?? [])])
    // Lossless JSON reads every whole number as a bigint: the file has a number.
    const problem = (issue?.message ?? 'is not a pet').replace('received bigint', 'received number')
    throw new Error(`[petstore-mock] ${where}: ${field}: ${problem}. Fix the line. ${moveAsideFix(log)}`)
  }
  try {
    await world?.restore(line.state)
  } catch (error) {
    const message = (error as Error).message.replace(/^\[petstore-mock\] /, '').replace(/\.$/, '')
    throw new Error(`[petstore-mock] ${where}: ${message}. Fix the line. ${moveAsideFix(log)}`)
  }
}

/**
 * Restores the snapshot into `sessions`, then replays the log lines it does not hold, after checking that the log
 * continues it. Resolves with the last line's number, how many bytes of the live log hold whole lines, its torn last
 * line, and whether the state file exists.
 */
async function restore(file: string, target: string, sessions: Sessions, stores: ReadonlyMap<string, IndexOnlyData>) {
  const content = await readStateFile(target)
  if (content === undefined) await refuseLogWithoutState(file, target)
  for (const [name, snapshot] of content?.sessions ?? []) await sessions.get(name, true)?.restore(snapshot)
  let seq = content?.logSeq ?? 0
  const { lines, wholeBytes, ids, header, torn } = readStateLog(`${target}.log`, seq)
  if (content?.log !== undefined && !ids.has(content.log)) refuseLostLog(target, content.log)
  for (const line of lines) {
    if (line.seq <= seq) continue
    seq = line.seq
    await replay(line, sessions, stores, `${target}.log`)
  }
  // A log written before evictions were logged may hold more sessions than the server keeps.
  sessions.trim()
  return { seq, wholeBytes, header, torn, exists: content !== undefined, named: content?.log }
}

/**
 * The state file names the log that continues it, and no file of the log begins with that id: the log was deleted or
 * emptied (or replaced by another), and the changes acknowledged after the snapshot are gone. Starting would serve
 * the snapshot as if nothing had happened since.
 */
function refuseLostLog(target: string, id: string): never {
  const log = `${target}.log`
  const what = logFilesOf(target).length === 0 ? `${log} is missing` : `no file of ${log} begins with it: the log was emptied or replaced`
  throw new StateFileError(
    `[petstore-mock] ${target} is continued by the change log ${JSON.stringify(id)}, but ${what}, so the changes acknowledged after the snapshot would be lost. ${moveAsideFix(log)}`,
  )
}

/** Whether a process of this id runs (one of another user's too: `EPERM`). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Takes `FILE.lock` for this process, so a second server on the same state file stops at start (exit 2) instead of
 * giving out the same ids and breaking the log (test/cli/state-file.test.ts). A lock whose process is gone (a crash)
 * is taken over. Returns the release, for a clean shutdown.
 */
function lockState(target: string): () => void {
  const lock = `${target}.lock`
  // 'wx' (O_CREAT | O_EXCL) never follows a link at the lock's path: it fails with EEXIST instead.
  try {
    writeFileSync(lock, `${process.pid}\n`, { flag: 'wx' })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    // A link (or anything but a file) where the lock goes is refused, not read and not written through: writing the pid
    // through a link would overwrite the file it points to (test/cli/state-file.test.ts).
    if (!lstatSync(lock).isFile())
      throw new StateFileError(
        `[petstore-mock] The lock ${lock} of the state file is not a plain file (a link or a folder): petstore-mock writes its pid only into a file of its own. Remove ${lock}, then start again.`,
      )
    const pid = Number.parseInt(readFileSync(lock, 'utf8'), 10)
    if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && alive(pid))
      throw new StateFileError(
        `[petstore-mock] Another process (pid ${pid}) is using the state file ${target}: two servers writing one file would give out the same ids and break its log. Stop it, or give this server another --state-file (if pid ${pid} is no petstore-mock, remove ${lock}).`,
      )
    // A crash's lock: taken over by a new file of this process (removed, then created exclusively again).
    unlinkSync(lock)
    writeFileSync(lock, `${process.pid}\n`, { flag: 'wx' })
  }
  return () => {
    try {
      if (readFileSync(lock, 'utf8').trim() === String(process.pid)) unlinkSync(lock)
    } catch {
      // Gone already: nothing to release.
    }
  }
}

/** Notices of what the start cleaned up: one line each, on stderr. */
const notice = (line: string): void => void process.stderr.write(`[petstore-mock] ${line}\n`)

/**
 * Checks the file and its folder, removes what a crash left (temporary files, a torn last line), restores it into the
 * sessions and opens its log: a StateFileError stops the start.
 */
export async function openState(
  file: string,
  options: { fsync: boolean; sessions: () => Sessions },
  stores: ReadonlyMap<string, IndexOnlyData>,
): Promise<{ target: string; log: StateLog; unlock: () => void; stale: boolean }> {
  let target: string
  try {
    target = await stateFileTarget(file)
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException
    const folder = dirname(file)
    throw new StateFileError(
      code === 'ENOENT'
        ? `[petstore-mock] Cannot use the state file ${file}: its folder ${folder} does not exist. Create it first (mkdir -p ${folder}).`
        : `[petstore-mock] Cannot use the state file ${file}: ${message}.`,
    )
  }
  let unlock = (): void => {}
  try {
    unlock = lockState(target)
    const temps = await removeLeftoverTemps(target)
    if (temps.length > 0)
      notice(`Removed ${temps.length} temporary file(s) of a snapshot rewrite a crash cut short, beside ${target}: ${temps.join(', ')}.`)
    const { seq, wholeBytes, header, torn, exists, named } = await restore(file, target, options.sessions(), stores)
    // Written before the log is made: from now on a log without its state file is one that lost it.
    if (!exists) await writeStateFile(target, { version: 1, logSeq: 0, sessions: new Map() })
    const log = openStateLog(`${target}.log`, { fsync: options.fsync, seq, wholeBytes, header })
    if (torn)
      notice(
        `${torn.file}, line ${torn.line}: cut off a torn last line of ${torn.bytes} bytes, a write a crash cut short; its change was never acknowledged.`,
      )
    // A state file that does not name this log (none follows a clean stop) is rewritten soon, naming it.
    return { target, log, unlock, stale: named !== log.id }
  } catch (error) {
    unlock()
    if (error instanceof StateFileError) throw error
    throw new StateFileError(
      `[petstore-mock] Cannot use the state file ${file}: ${(error as Error).message.replace(/^\[petstore-mock\] /, '')}`,
    )
  }
}
