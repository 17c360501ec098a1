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
import { closeSync, fsyncSync, ftruncateSync, openSync, renameSync, statSync, truncateSync, unlinkSync, writeSync } from 'node:fs'
import { type LogHeader, segmentsOf } from './log-read.js'

/** What a line of the log records: a create, a session's whole state after an admin call, or a session evicted. */
export type LogKind = 'create' | 'state' | 'evicted'

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

/** The first line of a fresh log: its id, and the last change before it. */
const headerLine = (seq: number, id: string): string => `{"seq":${seq},"log":${JSON.stringify(id)}}\n`
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
  const live = liveFile(path, { ...options, written: Math.min(size, options.wholeBytes) })
  let seq = options.seq
  let writtenSeq = seq // the number of the last line written whole
  let lost = 0
  let queued: string[] = []
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
      live.append(text)
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
      return live.id
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
      if (live.holdsChanges) live.moveAside(seq)
      return { seq, id: live.id }
    },
    dropThrough(mark) {
      for (const segment of segmentsOf(path)) if (segment.seq <= mark.seq) unlinkSync(segment.file)
    },
    close(remove) {
      try {
        flush()
      } finally {
        live.close()
      }
      if (!remove) return
      unlinkSync(path)
      for (const segment of segmentsOf(path)) if (segment.seq <= seq) unlinkSync(segment.file)
    },
  }
}

/**
 * The live log's file: written whole lines at a time (`writeWhole`), begun with a line naming its id (when empty, after
 * the change `seq`), and moved aside to a segment when a snapshot starts. `written`: its bytes that hold whole lines.
 */
function liveFile(
  path: string,
  options: { fsync: boolean; seq: number; written: number; header?: LogHeader | undefined; write?: (fd: number, text: string) => number },
) {
  const write = options.write ?? ((fd: number, text: string) => writeSync(fd, text))
  // Never a closed descriptor kept (node gives its number to the next socket, which a line would then go to): reopened.
  let fd: number | undefined = openSync(path, 'a')
  const handle = (): number => (fd ??= openSync(path, 'a'))
  let written = options.written
  const kept = written > 0 ? options.header : undefined
  let id = kept?.id
  /** The bytes of the first line, its id: a log of only that holds no change. */
  let headerBytes = kept?.bytes ?? 0
  const append = (text: string): void => {
    written += writeWhole(handle(), text, written, { path, write, fsync: options.fsync })
  }
  /** Begins the empty file with a new id; a file that could not be given one has none (the snapshot then names none). */
  const begin = (seq: number): void => {
    const fresh = randomUUID()
    const header = headerLine(seq, fresh)
    try {
      append(header)
      id = fresh
      headerBytes = Buffer.byteLength(header)
    } catch {
      id = undefined
      headerBytes = 0
    }
  }
  if (written === 0) begin(options.seq)
  return {
    get id() {
      return id
    },
    /** It holds a change, not only its first line. */
    get holdsChanges() {
      return written > headerBytes
    },
    append,
    begin,
    /** Renames it to the segment of `seq` and begins a new one. */
    moveAside(seq: number): void {
      // A rename, nothing copied, while the log is open (libuv opens files so that Windows allows it too): a rename that
      // fails leaves the log open and appended to as before (saver.test.ts).
      renameSync(path, `${path}.${seq}`)
      const renamed = fd
      fd = undefined
      written = 0
      if (renamed !== undefined) closeSync(renamed)
      handle()
      begin(seq)
    },
    close(): void {
      if (fd !== undefined) closeSync(fd)
      fd = undefined
    },
  }
}
