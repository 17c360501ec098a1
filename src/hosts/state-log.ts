/**
 * The change log beside a state file (`FILE.log`): one JSON line per acknowledged change, written
 * to the OS before the answer is sent (with `--fsync`, to the disk), so an answered create survives
 * `kill -9` (issue #13). Lines carry a sequence number; the snapshot says up to which line it holds.
 */
import { closeSync, fstatSync, fsyncSync, openSync, readFileSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs'
import { parseJson } from '../core/json.js'

/** A line of the log, parsed: a pet created in a session, or a session's whole new state. */
export type LogLine = { seq: number; session: string; create: unknown } | { seq: number; session: string; state: unknown }

/** Where the log stood when a snapshot was taken: the snapshot holds every line up to `seq`. */
export interface LogMark {
  readonly seq: number
  readonly offset: number
}

export interface StateLog {
  /** The last sequence number written. */
  readonly seq: number
  /** Appends one change; throws when the OS refuses the write. */
  append(session: string, kind: 'create' | 'state', json: string): void
  /** Where the log stands now. */
  mark(): LogMark
  /** Drops the lines up to `mark` (a snapshot holds them now), keeping any written since. */
  dropThrough(mark: LogMark): void
  /** Closes the log; `remove` deletes it too (after a final snapshot). */
  close(remove: boolean): void
}

/**
 * Reads a log: its lines in order. A torn last line (a crash in the middle of a write) is ignored;
 * a bad line before the last is an error naming its number.
 */
export function readStateLog(path: string): LogLine[] {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw error
  }
  const rows = text.split('\n')
  const lines: LogLine[] = []
  for (const [index, row] of rows.entries()) {
    if (row === '') continue
    const parsed = parseJson(row)
    const value = parsed.ok ? (parsed.value as { seq?: unknown; session?: unknown }) : undefined
    const ok =
      value !== undefined && typeof value.seq === 'bigint' && typeof value.session === 'string' && ('create' in value || 'state' in value)
    if (!ok) {
      // The last row has no newline after it only when a crash cut its write short.
      if (index === rows.length - 1) break
      throw new Error(`[petstore-mock] ${path}, line ${index + 1}, is not a change of the state log. Delete the log or fix the line.`)
    }
    lines.push({ ...(value as LogLine), seq: Number(value.seq) })
  }
  return lines
}

/**
 * Opens the log for appending (made if missing). Throws when the folder is missing or not writable.
 *
 * @example
 * const log = openStateLog('/var/petstore/state.json.log', { fsync: false, seq: 0 })
 * log.append('default', 'create', '{"id":51,"name":"Rex","categoryId":1}')
 */
export function openStateLog(path: string, options: { fsync: boolean; seq: number }): StateLog {
  let fd = openSync(path, 'a')
  let seq = options.seq
  let offset = fstatSync(fd).size
  return {
    get seq() {
      return seq
    },
    append(session, kind, json) {
      const line = `{"seq":${seq + 1},"session":${JSON.stringify(session)},"${kind}":${json}}\n`
      const written = writeSync(fd, line)
      if (written !== Buffer.byteLength(line)) throw new Error(`short write to ${path} (${written} bytes)`)
      if (options.fsync) fsyncSync(fd)
      seq += 1
      offset += written
    },
    mark: () => ({ seq, offset }),
    dropThrough(mark) {
      // The lines written since the mark move to a new log, which replaces the old one atomically.
      const tail = Buffer.alloc(offset - mark.offset)
      if (tail.length > 0) {
        const reader = openSync(path, 'r')
        try {
          readSync(reader, tail, 0, tail.length, mark.offset)
        } finally {
          closeSync(reader)
        }
      }
      const temp = `${path}.${process.pid}.tmp`
      const next = openSync(temp, 'w')
      if (tail.length > 0) writeSync(next, tail)
      fsyncSync(next)
      renameSync(temp, path)
      closeSync(fd)
      fd = next
      offset = tail.length
    },
    close(remove) {
      closeSync(fd)
      if (remove) unlinkSync(path)
    },
  }
}
