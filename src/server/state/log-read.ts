/**
 * Reading the change log beside a state file (`FILE.log` and its segments, ./log.ts) at start: its lines in order,
 * checked to continue the state file, the ids its files begin with, and a torn last line a crash left.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { parseJson } from '../../core/json.js'

/** A line of the log, parsed, with where it was read (its file and line number) for the messages that name it. */
export type LogLine = ({ create: unknown } | { state: unknown } | { evicted: true }) & {
  seq: number
  session: string
  file: string
  line: number
}

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
