/**
 * The change log beside a state file (`FILE.log`): one JSON line per acknowledged change, written
 * to the OS before the answer is sent (with `--fsync`, to the disk), so an answered create survives
 * `kill -9` (issue #13). Lines carry a sequence number; the snapshot says up to which line it holds.
 * Creates may be queued and written together (`queue`, then one `flush`): one write for all the
 * creates of an event-loop turn, whose answers wait for it (issue #18).
 *
 * When a snapshot starts, the log moves aside to a segment `FILE.log.<last seq>` (a rename, nothing
 * copied: issue #18) and new lines go to a fresh `FILE.log`; once the snapshot is written, the
 * segments it holds are deleted. Start-up replays the segments, oldest first, then `FILE.log`.
 */
import {
  closeSync,
  fsyncSync,
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
import { parseJson } from '../core/json.js'

/** A line of the log, parsed: a pet created in a session, or a session's whole new state. */
export type LogLine = { seq: number; session: string; create: unknown } | { seq: number; session: string; state: unknown }

/** Where the log stood when a snapshot was taken: the snapshot holds every line up to `seq`. */
export interface LogMark {
  readonly seq: number
}

export interface StateLog {
  /** The last sequence number given to a line (written, or queued). */
  readonly seq: number
  /** Lines are queued and not yet written. */
  readonly pending: boolean
  /** Writes the queued lines, then this change; throws when the OS refuses the write. */
  append(session: string, kind: 'create' | 'state', json: string): void
  /** Queues one change, written by the next `flush` (or `append`, `mark`, `close`). */
  queue(session: string, kind: 'create' | 'state', json: string): void
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

/** The lines of one file of the log. Only in the live log may the last line be torn (a crash in the middle of a write). */
function readLines(path: string, live: boolean, lines: LogLine[]): number {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0
    throw error
  }
  const rows = text.split('\n')
  let whole = 0
  for (const [index, row] of rows.entries()) {
    if (row === '') continue
    const parsed = parseJson(row)
    const value = parsed.ok ? (parsed.value as { seq?: unknown; session?: unknown }) : undefined
    const ok =
      value !== undefined && typeof value.seq === 'bigint' && typeof value.session === 'string' && ('create' in value || 'state' in value)
    if (!ok) {
      // The last row has no newline after it only when a crash cut its write short.
      if (live && index === rows.length - 1) break
      throw new Error(`[petstore-mock] ${path}, line ${index + 1}, is not a change of the state log. Delete the log or fix the line.`)
    }
    lines.push({ ...(value as LogLine), seq: Number(value.seq) })
    whole += Buffer.byteLength(row) + 1
  }
  return whole
}

/**
 * Reads a log: the lines of its segments and of the live log, in order, and how many bytes of the live log hold
 * whole lines. A torn last line of the live log is ignored; any other bad line is an error naming its file and number.
 */
export function readStateLog(path: string): { lines: LogLine[]; wholeBytes: number } {
  const lines: LogLine[] = []
  for (const segment of segmentsOf(path)) readLines(segment.file, false, lines)
  const wholeBytes = readLines(path, true, lines)
  return { lines, wholeBytes }
}

/**
 * Opens the log for appending (made if missing), cut back to its whole lines (`wholeBytes`, from `readStateLog`) so
 * that a line torn by a crash is not glued to the next one. Throws when the folder is missing or not writable.
 *
 * @example
 * const log = openStateLog('/var/petstore/state.json.log', { fsync: false, seq: 0, wholeBytes: 0 })
 * log.append('default', 'create', '{"id":51,"name":"Rex","categoryId":1}')
 */
export function openStateLog(path: string, options: { fsync: boolean; seq: number; wholeBytes: number }): StateLog {
  let size = 0
  try {
    size = statSync(path).size
  } catch {
    // No log yet: made below.
  }
  if (size > options.wholeBytes) truncateSync(path, options.wholeBytes)
  let fd = openSync(path, 'a')
  let seq = options.seq
  let written = Math.min(size, options.wholeBytes)
  let queued: string[] = []
  const line = (session: string, kind: 'create' | 'state', json: string): string => {
    seq += 1
    return `{"seq":${seq},"session":${JSON.stringify(session)},"${kind}":${json}}\n`
  }
  const flush = (): void => {
    if (queued.length === 0) return
    const text = queued.length === 1 ? (queued[0] as string) : queued.join('')
    // Taken first: lines a failed write lost are not written again ahead of later ones.
    queued = []
    const bytes = writeSync(fd, text)
    if (bytes !== Buffer.byteLength(text)) throw new Error(`short write to ${path} (${bytes} bytes)`)
    if (options.fsync) fsyncSync(fd)
    written += bytes
  }
  return {
    get seq() {
      return seq
    },
    get pending() {
      return queued.length > 0
    },
    append(session, kind, json) {
      queued.push(line(session, kind, json))
      flush()
    },
    queue(session, kind, json) {
      queued.push(line(session, kind, json))
    },
    flush,
    mark() {
      flush()
      if (written > 0) {
        // A rename: the lines stay where they were written, whatever their number (no copy on the event loop).
        closeSync(fd)
        renameSync(path, `${path}.${seq}`)
        fd = openSync(path, 'a')
        written = 0
      }
      return { seq }
    },
    dropThrough(mark) {
      for (const segment of segmentsOf(path)) if (segment.seq <= mark.seq) unlinkSync(segment.file)
    },
    close(remove) {
      try {
        flush()
      } finally {
        closeSync(fd)
      }
      if (!remove) return
      unlinkSync(path)
      for (const segment of segmentsOf(path)) if (segment.seq <= seq) unlinkSync(segment.file)
    },
  }
}
