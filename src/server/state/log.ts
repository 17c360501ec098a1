/**
 * The change log beside a state file (`FILE.log`): one JSON line per acknowledged change, written
 * to the OS before the answer is sent (with `--fsync`, to the disk), so an answered create survives
 * `kill -9` (docs/spec-decisions.md row 51). Lines carry a sequence number; the snapshot says up to which line it holds.
 * Creates may be queued and written together (`queue`, then one `flush`): one write for all the
 * creates of an event-loop turn, whose answers wait for it (decisions/015-answers-of-a-turn-together.md).
 *
 * When a snapshot starts, the log moves aside to a segment `FILE.log.<last seq>` (a rename, nothing
 * copied: decisions/014-state-log-segments.md) and new lines go to a fresh `FILE.log`; once the snapshot is written, the
 * segments it holds are deleted. Start-up replays the segments, oldest first, then `FILE.log`.
 *
 * Each fresh `FILE.log` begins with a line naming it, `{"seq":N,"log":"<id>"}` (N: the last change before it; the line
 * is no change), and the snapshot names the log that continues it (file.ts): so a start tells a log with no change
 * since the snapshot from one emptied or deleted, which would lose acknowledged changes (saver.test.ts).
 */
import { randomUUID } from 'node:crypto'
import {
  closeSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeSync,
} from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { parseJson } from '../../core/json.js'

/** A line of the log, parsed, with where it was read (its file and line number) for the messages that name it. */
export type LogLine = ({ create: unknown } | { state: unknown } | { evicted: true }) & {
  seq: number
  session: string
  file: string
  line: number
}

/** What a line of the log records: a create, a session's whole state after an admin call, or a session evicted. */
export type LogKind = 'create' | 'state' | 'evicted'

/**
 * The text after the live log's last newline: a write a crash cut short. Its change was never acknowledged (an answer
 * waits for the whole write, newline included), so it is cut off at start.
 */
export interface TornLine {
  readonly file: string
  readonly line: number
  readonly bytes: number
}

/** The fix every message about a log that does not continue its state file ends with. */
export function moveAsideFix(log: string): string {
  const state = log.replace(/\.log$/, '')
  return `Restore ${state} and its log from a backup, or move ${state}, ${log} and ${log}.* aside to start from the seed.`
}

/** Where the log stood when a snapshot was taken: the snapshot holds every line up to `seq`; log `id` continues it. */
export interface LogMark {
  readonly seq: number
  readonly id: string | undefined
}

export interface StateLog {
  /** The last sequence number given to a line (written, or queued). */
  readonly seq: number
  /** The id the live log's first line names (none for a log written before logs had ids, until the next `mark`). */
  readonly id: string | undefined
  /** Lines are queued and not yet written. */
  readonly pending: boolean
  /** How many lines a failed write has given up since the log was opened (whoever flushed them). */
  readonly lost: number
  /** Writes the queued lines, then this change; throws when the OS refuses the write. */
  append(session: string, kind: LogKind, json: string): void
  /** Queues one change, written by the next `flush` (or `append`, `mark`, `close`). */
  queue(session: string, kind: LogKind, json: string): void
  /** Writes the queued lines in one write (and one fsync with `--fsync`); throws when the OS refuses it. */
  flush(): void
  /** A snapshot starts: the lines so far move to a segment of their own, and new ones go to a fresh log. */
  mark(): LogMark
  /** Deletes the segments whose lines a snapshot taken at `mark` holds. */
  dropThrough(mark: LogMark): void
  /** Closes the log; `remove` deletes it and its segments too (after a final snapshot). */
  close(remove: boolean): void
}

/** The segments of the log at `path`, oldest first: their files and the last sequence number each holds. */
export function segmentsOf(path: string): { file: string; seq: number }[] {
  const prefix = `${basename(path)}.`
  const segments: { file: string; seq: number }[] = []
  for (const name of readdirSync(dirname(path))) {
    if (!name.startsWith(prefix) || !/^\d+$/.test(name.slice(prefix.length))) continue
    segments.push({ file: join(dirname(path), name), seq: Number(name.slice(prefix.length)) })
  }
  return segments.sort((a, b) => a.seq - b.seq)
}

/** The first line of a live log: the id it names, and its length in bytes. */
export interface LogHeader {
  readonly id: string
  readonly bytes: number
}

/** The first line of a fresh log: its id, and the last change before it. */
const headerLine = (seq: number, id: string): string => `{"seq":${seq},"log":${JSON.stringify(id)}}\n`

/**
 * Reads the lines of one file of the log into `lines`, and the id its first line names into `ids`: how many of its
 * bytes hold whole lines, the id of its first line, and its torn last line if any.
 */
function readLines(
  path: string,
  live: boolean,
  lines: LogLine[],
  ids: Set<string>,
): { whole: number; header: LogHeader | undefined; torn: TornLine | undefined } {
  let bytes: Buffer
  try {
    bytes = readFileSync(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { whole: 0, header: undefined, torn: undefined }
    throw error
  }
  const rows = bytes.toString('utf8').split('\n')
  // Every line is written with its newline: text after the last one is a write cut short (test/cli/state-file-tampering.test.ts).
  const tail = rows.pop() ?? ''
  let whole = 0
  let header: LogHeader | undefined
  for (const [index, row] of rows.entries()) {
    whole += Buffer.byteLength(row) + 1
    if (row === '') continue
    const parsed = parseJson(row)
    const value = parsed.ok ? (parsed.value as { seq?: unknown; session?: unknown; evicted?: unknown; log?: unknown }) : undefined
    if (index === 0 && typeof value?.seq === 'bigint' && typeof value.log === 'string' && value.session === undefined) {
      header = { id: value.log, bytes: whole }
      ids.add(value.log)
      continue
    }
    const ok =
      value !== undefined &&
      typeof value.seq === 'bigint' &&
      typeof value.session === 'string' &&
      ('create' in value || 'state' in value || value.evicted === true)
    if (!ok) throw new Error(`[petstore-mock] ${path}, line ${index + 1}, is not a change of the state log. ${moveAsideFix(logOf(path))}`)
    lines.push({ ...(value as LogLine), seq: Number(value.seq), file: path, line: index + 1 })
  }
  if (tail === '') return { whole, header, torn: undefined }
  // Only the live log is written to: a segment is renamed from it whole, after it was cut back to its whole lines.
  if (!live) throw new Error(`[petstore-mock] ${path}, line ${rows.length + 1}, has no newline at its end. ${moveAsideFix(logOf(path))}`)
  return { whole, header, torn: { file: path, line: rows.length + 1, bytes: bytes.length - whole } }
}

/** The live log of a segment `FILE.log.<seq>` (or of the live log itself). */
const logOf = (path: string): string => path.replace(/\.log\.\d+$/, '.log')

/** Where a line is, for messages: its file and line number. */
const at = (line: LogLine): string => `${line.file}, line ${line.line}`

/**
 * Why `line` does not follow `previous` in a log continuing a state file that holds every change up to `logSeq`, or
 * undefined. `held`: the line is in a segment the state file holds whole (one a crash left before it was deleted).
 */
function breakIn(line: LogLine, previous: LogLine | undefined, logSeq: number, held: boolean): string | undefined {
  const expected = previous === undefined ? Math.min(line.seq, logSeq + 1) : previous.seq + 1
  if (line.seq > expected) {
    const missing = expected === line.seq - 1 ? `change ${expected} is` : `changes ${expected} to ${line.seq - 1} are`
    const after = previous === undefined ? `the state file holds changes up to ${logSeq}` : `the line before is change ${previous.seq}`
    return `${at(line)}, is change ${line.seq}, but ${after}: ${missing} missing (a line or a file of the log was removed).`
  }
  if (line.seq < expected) return `${at(line)}, is change ${line.seq} again (after change ${previous?.seq}): a line was repeated or moved.`
  if (line.seq <= logSeq && !held)
    return `${at(line)}, is change ${line.seq}, which the state file says it holds already ("logSeq": ${logSeq}): its logSeq is ahead of its content.`
  return undefined
}

/**
 * Reads a log: the lines of its segments and of the live log, in order, how many bytes of the live log hold whole
 * lines, the ids its files begin with (`ids`; `header`: the live log's), and the live log's torn last line if a crash left
 * one. Checks that they continue a state file holding every change up to `logSeq`: numbered one after another, no gap,
 * no repeat, each segment named for its last line, none the state file claims but does not hold. A line that breaks
 * this is an error naming its file, number and the fix.
 */
export function readStateLog(
  path: string,
  logSeq: number,
): { lines: LogLine[]; wholeBytes: number; ids: ReadonlySet<string>; header: LogHeader | undefined; torn: TornLine | undefined } {
  const lines: LogLine[] = []
  const ids = new Set<string>()
  let previous: LogLine | undefined
  const check = (from: number, held: boolean): void => {
    for (let index = from; index < lines.length; index++) {
      const line = lines[index] as LogLine
      const problem = breakIn(line, previous, logSeq, held)
      if (problem !== undefined) throw new Error(`[petstore-mock] ${problem} ${moveAsideFix(path)}`)
      previous = line
    }
  }
  for (const segment of segmentsOf(path)) {
    const from = lines.length
    readLines(segment.file, false, lines, ids)
    check(from, segment.seq <= logSeq)
    if (lines.length > from && previous?.seq !== segment.seq)
      throw new Error(
        `[petstore-mock] ${segment.file} is named for change ${segment.seq}, but its last line is change ${previous?.seq}. ${moveAsideFix(path)}`,
      )
  }
  const from = lines.length
  const { whole, header, torn } = readLines(path, true, lines, ids)
  check(from, false)
  return { lines, wholeBytes: whole, ids, header, torn }
}

/**
 * Writes `text` at the end of the log, whole; else cuts the file back to its `written` bytes (its last whole line), so
 * that no good line is ever written after a torn one (decision 014; saver.test.ts), and throws.
 */
function writeWhole(
  fd: number,
  text: string,
  written: number,
  { path, write, fsync }: { path: string; write: (fd: number, text: string) => number; fsync: boolean },
): number {
  try {
    const bytes = write(fd, text)
    if (bytes !== Buffer.byteLength(text)) throw new Error(`short write to ${path} (${bytes} of ${Buffer.byteLength(text)} bytes)`)
    if (fsync) fsyncSync(fd)
    return bytes
  } catch (error) {
    try {
      ftruncateSync(fd, written)
    } catch {
      // The write's own error, thrown below, says what went wrong.
    }
    throw error
  }
}

/**
 * Opens the log for appending (made if missing), cut back to its whole lines (`wholeBytes`, from `readStateLog`) so
 * that a line torn by a crash is not glued to the next one. Throws when the folder is missing or not writable.
 *
 * @example
 * const log = openStateLog('/var/petstore/state.json.log', { fsync: false, seq: 0, wholeBytes: 0 })
 * log.append('default', 'create', '{"id":51,"name":"Rex","categoryId":1}')
 */
export function openStateLog(
  path: string,
  options: {
    fsync: boolean
    seq: number
    wholeBytes: number
    /** The live log's first line, from `readStateLog`: none when it has no id (written before logs had ids). */
    header?: LogHeader | undefined
    write?: (fd: number, text: string) => number
  },
): StateLog {
  const size = statSync(path, { throwIfNoEntry: false })?.size ?? 0 // no log yet: made below
  if (size > options.wholeBytes) truncateSync(path, options.wholeBytes)
  const write = options.write ?? ((fd: number, text: string) => writeSync(fd, text))
  // Never a closed descriptor kept (node gives its number to the next socket, which a line would then go to): reopened.
  let fd: number | undefined = openSync(path, 'a')
  const handle = (): number => (fd ??= openSync(path, 'a'))
  let seq = options.seq
  let writtenSeq = seq // the number of the last line written whole
  let lost = 0
  let written = Math.min(size, options.wholeBytes)
  let queued: string[] = []
  const kept = written > 0 ? options.header : undefined
  let id = kept?.id
  /** The bytes of the live log's first line, its id: a log of only that holds no change. */
  let headerBytes = kept?.bytes ?? 0
  /** Begins an empty live log with its id; a log that could not be given one has none (the snapshot then names none). */
  const begin = (): void => {
    const fresh = randomUUID()
    const header = headerLine(seq, fresh)
    try {
      written += writeWhole(handle(), header, written, { path, write, fsync: options.fsync })
      id = fresh
      headerBytes = Buffer.byteLength(header)
    } catch {
      id = undefined
      headerBytes = 0
    }
  }
  if (written === 0) begin()
  const queue = (session: string, kind: LogKind, json: string): void => {
    seq += 1
    queued.push(`{"seq":${seq},"session":${JSON.stringify(session)},"${kind}":${json}}\n`)
  }
  const flush = (): void => {
    if (queued.length === 0) return
    const text = queued.length === 1 ? (queued[0] as string) : queued.join('')
    queued = [] // taken first: lines a failed write lost are not written again ahead of later ones
    const last = seq
    try {
      written += writeWhole(handle(), text, written, { path, write, fsync: options.fsync })
    } catch (error) {
      // The lines given up go whole, their numbers to the next lines: a restart reads every later change.
      lost += seq - writtenSeq
      seq = writtenSeq
      throw error
    }
    writtenSeq = last
  }
  return {
    get seq() {
      return seq
    },
    get id() {
      return id
    },
    get pending() {
      return queued.length > 0
    },
    get lost() {
      return lost
    },
    append(session, kind, json) {
      queue(session, kind, json)
      flush()
    },
    queue,
    flush,
    mark() {
      flush()
      if (written > headerBytes) {
        // A rename, nothing copied, while the log is open (libuv opens files so that Windows allows it too): a rename that
        // fails leaves the log open and appended to as before (saver.test.ts).
        renameSync(path, `${path}.${seq}`)
        const renamed = fd
        fd = undefined
        written = 0
        if (renamed !== undefined) closeSync(renamed)
        handle()
        begin()
      }
      return { seq, id }
    },
    dropThrough(mark) {
      for (const segment of segmentsOf(path)) if (segment.seq <= mark.seq) unlinkSync(segment.file)
    },
    close(remove) {
      try {
        flush()
      } finally {
        if (fd !== undefined) closeSync(fd)
        fd = undefined
      }
      if (!remove) return
      unlinkSync(path)
      for (const segment of segmentsOf(path)) if (segment.seq <= seq) unlinkSync(segment.file)
    },
  }
}
