/**
 * `--state-file`: durable sessions (docs/spec-decisions.md row 51). Every acknowledged change is appended to the change
 * log before its answer is sent: a pet the API created (written ahead from the store), a session's
 * whole state after an admin call. The creates of one event-loop turn are written together: their
 * lines are queued, and one write (and with `--fsync` one fsync) takes them all before the server
 * sends the turn's answers (`flush`, which the server's delivery calls first), or at the end of the
 * turn if no answer goes then; so no answer is sent before what it acknowledges is written. The
 * snapshot is rewritten now and then (counters and clocks go with it) and at shutdown, then the log
 * lines it holds are dropped. Start-up loads the snapshot, then replays the log (`load.ts`). Failures are loud:
 * a bad file or folder stops the start; a failing write marks the server degraded
 * (`/__mock/health`) and is logged.
 */
import { performance } from 'node:perf_hooks'
import { StaleSnapshotError, stringifySnapshot } from '../../snapshot.js'
import { createIndexOnlyData, type IndexOnlyData } from '../../store/pet-data.js'
import type { ServerWorld } from '../../world/create-world.js'
import type { Sessions } from '../sessions.js'
import { writeStateFile } from './file.js'
import { openState } from './load.js'
import type { StateLog } from './log.js'

/** The snapshot is rewritten at most this often, and never taking more than a tenth of the time. */
const MIN_COMPACT_DELAY_MS = 1_000

export interface StateSaver {
  /** The storage of a session's pets, writing each create ahead into the log. */
  readonly dataFor: ((session: string) => IndexOnlyData) | undefined
  /** Checks the file and its folder, restores the snapshot and replays the log into `sessions`. */
  load(): Promise<void>
  /** Something changed that only the snapshot keeps (counters, clocks): rewrite it soon. */
  changed(): void
  /** A session was evicted: logged, so a restart drops the same one and keeps those that were live (sessions.ts). */
  evicted(session: string): void
  /** An admin call changed a session's world: logged before it answers; `false` when it could not be written. */
  logState(session: string, world: ServerWorld): boolean
  /**
   * Writes the queued creates now (the server calls it before it sends the answers of a turn): `false` when a change
   * since the last call could not be written, by this write or another (a snapshot's mark writes the queue first).
   */
  flush(): boolean
  /** Writes the snapshot now and closes the log; rejects when it cannot be written. */
  close(): Promise<void>
  /** Why saving fails, while it does. */
  readonly failure: string | undefined
}

/** The saver of a server without `--state-file`: it keeps nothing. */
export const NO_SAVER: StateSaver = {
  dataFor: undefined,
  load: async () => {},
  changed: () => {},
  evicted: () => {},
  logState: () => true,
  flush: () => true,
  close: async () => {},
  failure: undefined,
}

/** Writing to the log, if open: a failure is reported (`failed`), not thrown; the caller decides its answer from the result. */
function logWriter(current: () => StateLog | undefined, failed: (error: unknown) => void) {
  /** `false` when the write failed (reported through `failed`). */
  const logging = (write: (log: StateLog) => void): boolean => {
    try {
      const log = current()
      if (log) write(log)
      return true
    } catch (error) {
      failed(error)
      return false
    }
  }
  const flush = (): boolean => logging((log) => log.flush())
  let lostSeen = 0 // the log's `lost` when `keptSinceLast` last said
  return {
    logging,
    flush,
    /** A session was evicted: written at once (the request that evicted it waits for nothing else of the log). */
    evicted: (session: string): void => void logging((log) => log.append(session, 'evicted', 'true')),
    /** Flushes: `false` when a change since the last call could not be written, by this write or another (a mark's). */
    keptSinceLast(): boolean {
      const written = flush()
      const lost = current()?.lost ?? 0
      const kept = written && lost === lostSeen
      lostSeen = lost
      return kept
    },
    /** A create is queued, and written with the others of its turn before their answers (or at the turn's end). */
    queueCreate: (session: string, json: string): void => {
      logging((log) => {
        // Written by the flush before the turn's answers (server-delivery.ts), whose result decides them; this one, a
        // loop later so it comes after that flush, writes what no answer of the turn waited for (one held by a latency).
        if (!log.pending) setImmediate(() => setImmediate(flush))
        log.queue(session, 'create', json)
      })
    },
  }
}

/**
 * Writes the snapshot of every session and drops the log lines it holds; `false` when the pets changed while it was
 * written (the log still holds every change). `inSteps`: read from the storage as it is written, copying no pets
 * (decisions/014-state-log-segments.md, "Later: the snapshot taken without a copy"). `last`: the log is removed next
 * (a clean stop), so the snapshot names no log to continue it.
 */
async function writeSnapshot(target: string, log: StateLog, sessions: Sessions, inSteps: boolean, last: boolean): Promise<boolean> {
  const mark = log.mark()
  const worlds = sessions.names().map((name) => [name, sessions.get(name) as ServerWorld] as const)
  const snapshots = new Map(worlds.map(([name, world]) => [name, inSteps ? world.snapshotInSteps() : world.snapshot()]))
  try {
    await writeStateFile(target, { version: 1, logSeq: mark.seq, log: last ? undefined : mark.id, sessions: snapshots })
  } catch (error) {
    if (error instanceof StaleSnapshotError) return false
    throw error
  }
  log.dropThrough(mark)
  return true
}

/**
 * When the snapshot is rewritten: `soon()` after a change (at most every MIN_COMPACT_DELAY_MS, and never taking more
 * than a tenth of the time), again soon when the pets changed while it was written; `now()` at once, or joins the
 * rewrite under way. `write` reports whether it was written.
 */
function snapshotSchedule(write: (inSteps: boolean, last: boolean) => Promise<boolean>, failed: (error: unknown) => void) {
  let timer: NodeJS.Timeout | undefined
  let running: Promise<boolean> | undefined
  let lastMs = 0
  const now = (inSteps = true, last = false): Promise<boolean> => {
    if (running) return running
    const started = performance.now()
    running = write(inSteps, last)
      .then((written) => {
        if (written) lastMs = performance.now() - started
        return written
      })
      .finally(() => {
        running = undefined
      })
    return running
  }
  const soon = (): void => {
    if (timer) return
    timer = setTimeout(
      () => {
        timer = undefined
        // Pets were replaced or removed while it was written: write it again soon.
        now().then((written) => (written ? undefined : soon()), failed)
      },
      Math.max(MIN_COMPACT_DELAY_MS, 10 * lastMs),
    )
  }
  return {
    now,
    soon,
    /** Cancels the rewrite due, and waits for the one under way. */
    async settle(): Promise<void> {
      clearTimeout(timer)
      timer = undefined
      await running?.catch(() => undefined)
    },
  }
}

/**
 * @example
 * const saver = createStateSaver('/tmp/petstore.json', { fsync: false, sessions: () => sessions })
 * await saver.load()
 */
export function createStateSaver(file: string | undefined, options: { fsync: boolean; sessions: () => Sessions }): StateSaver {
  if (file === undefined) return NO_SAVER
  let target = file
  let log: StateLog | undefined
  let failure: string | undefined
  let unlock = (): void => {}
  let stores: Map<string, IndexOnlyData> | undefined = new Map() // only while the log is replayed: evicted sessions must not stay
  const fail = (what: string, error: unknown): void => {
    failure = `${what} ${target}: ${(error as Error).message}`
    console.error(`[petstore-mock] Could not ${what} ${target}: ${(error as Error).message}`)
  }
  const logFailed = (error: unknown): void => fail('append a change to the log of', error)
  const { logging, flush, queueCreate, keptSinceLast, evicted } = logWriter(() => log, logFailed)
  const schedule = snapshotSchedule(
    async (inSteps, last) => {
      if (!log) return true
      if (!(await writeSnapshot(target, log, options.sessions(), inSteps, last))) return false
      failure = undefined
      return true
    },
    (error) => fail('write the state file', error),
  )
  const changed = (): void => {
    if (log) schedule.soon()
  }

  return {
    dataFor(session) {
      const data = createIndexOnlyData((entry) => queueCreate(session, entry.json))
      stores?.set(session, data)
      return data
    },
    async load() {
      const { stale, ...opened } = await openState(file, options, stores ?? new Map())
      ;({ target, log, unlock } = opened)
      stores = undefined
      if (stale) changed() // a state file that does not name its log yet names it soon
    },
    changed,
    evicted,
    logState(session, world) {
      const written = logging((open) => open.append(session, 'state', stringifySnapshot(world.snapshot())))
      changed()
      return written
    },
    flush: keptSinceLast,
    async close() {
      await schedule.settle()
      if (!log) return
      flush()
      // The last snapshot must be written before the log goes: a copy, if the pets change while it is written.
      if (!(await schedule.now(true, true))) await schedule.now(false, true)
      log.close(true)
      log = undefined
      unlock()
    },
    get failure() {
      return failure
    },
  }
}
