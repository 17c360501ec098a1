/**
 * Runs the card: each run of each check in a world of its own, served on a free loopback port, so a client of any
 * language reaches it by URL alone and the checks cannot disturb each other. The in-process runner (`checkClient`)
 * and the command runner (`petstore-mock check-client`) differ only in how they run a task.
 */
import type { JournalEntry } from '../journal/journal.js'
import { createPetStoreServer } from '../server/http-server.js'
import { CARD_KEY, CHECKS } from './catalogue.js'
import {
  CARD_VERSION,
  type CardReport,
  type CheckDefinition,
  type CheckResult,
  type CheckRun,
  DEFAULT_LIMIT_MS,
  type RunEvidence,
  type TaskRunner,
} from './types.js'

export interface CardOptions {
  /** Run only these checks (ids). */
  readonly only?: readonly string[] | undefined
  /** How many checks run at once (default 4: each may start a process of the client). */
  readonly concurrency?: number | undefined
  /** How long each task may run before it counts as never ending (default: the check's own, else 10,000 ms). */
  readonly limitMs?: number | undefined
  /** Told when each check is done, e.g. to print progress. */
  readonly onResult?: ((result: CheckResult) => void) | undefined
}

/** After the task ended, answers still on their way are recorded and marked delivered within this many ms. */
const SETTLE_MS = 50

/** The checks `only` names, in the card's order; an unknown id is an error that lists the known ones. */
export function selectChecks(only: readonly string[] | undefined): readonly CheckDefinition[] {
  if (!only || only.length === 0) return CHECKS
  const unknown = only.filter((id) => !CHECKS.some((check) => check.id === id))
  if (unknown.length > 0) {
    throw new RangeError(`Unknown check ${unknown.join(', ')}: the checks are ${CHECKS.map((check) => check.id).join(', ')}.`)
  }
  return CHECKS.filter((check) => only.includes(check.id))
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms))

/** One run: its world on a free port, the task (after the run's `startAfterMs`), then the world's journal. */
async function runOnce(run: CheckRun, runner: TaskRunner, limitMs: number | undefined): Promise<RunEvidence> {
  const server = createPetStoreServer({
    host: '127.0.0.1',
    port: 0,
    log: 'silent',
    seed: 1,
    keys: [{ key: CARD_KEY, plan: 'pro' }],
    scenarios: [{ name: 'check', description: 'A world of the client report card.', ...run.scenario }],
    scenario: 'check',
    ...run.options,
  })
  const url = await server.listen()
  try {
    if (run.startAfterMs) await sleep(run.startAfterMs)
    const input = { baseUrl: `${url}${server.petStore.basePath}`, key: run.key ?? CARD_KEY, ...(run.petId ? { petId: run.petId } : {}) }
    const outcome = await runner(run.task, input, limitMs ?? run.limitMs ?? DEFAULT_LIMIT_MS)
    await sleep(SETTLE_MS)
    const entries: JournalEntry[] = server.petStore.journal.all().sort((a, b) => a.arrival - b.arrival)
    return { run, outcome, entries }
  } finally {
    // The check is judged: answers a fault still holds (`timeout`) are of no use to anyone.
    server.server.closeAllConnections()
    await server.close()
  }
}

/** The evidence of each set of runs in one card: checks that share their runs (`retry.backoff`, `retry.jitter`) make them once. */
type Made = Map<readonly CheckRun[], Promise<RunEvidence[]>>

async function runCheck(check: CheckDefinition, runner: TaskRunner, limitMs: number | undefined, made: Made): Promise<CheckResult> {
  const started = Date.now()
  const pending = made.get(check.runs) ?? Promise.all(check.runs.map((run) => runOnce(run, runner, limitMs)))
  made.set(check.runs, pending)
  const runs = await pending
  const { id, level, rule, source, fix } = check
  return { id, level, rule, source, fix, ...check.judge(runs), durationMs: Date.now() - started }
}

/** The longest a check may take: its latest run's start plus that run's limit. */
const longestMs = (check: CheckDefinition, limitMs: number | undefined): number =>
  Math.max(...check.runs.map((run) => (run.startAfterMs ?? 0) + (limitMs ?? run.limitMs ?? DEFAULT_LIMIT_MS)))

/**
 * The order the checks start in (their indexes): those that may take longest first (`timeout.gives-up`'s 40 s), so
 * that the others run beside them and a card lasts about as long as its longest check.
 */
export function startOrder(checks: readonly CheckDefinition[], limitMs?: number): number[] {
  const longest = checks.map((check) => longestMs(check, limitMs))
  return checks.map((_, index) => index).sort((a, b) => (longest[b] as number) - (longest[a] as number))
}

/**
 * The card's verdict: no required check failed, and the client met one check's condition at least (one passed, or a
 * recommended one failed). A task that never reaches the mock (a typo in the command, a crash at start) meets none: it
 * passes nothing, and that is no pass (docs/check-client.md). A recommended check is advice: its failure is reported,
 * and leaves the verdict alone.
 */
export function isCardOk(results: readonly Pick<CheckResult, 'level' | 'status'>[]): boolean {
  return (
    results.some((result) => result.status !== 'not-applicable') &&
    results.every((result) => result.level !== 'required' || result.status !== 'failed')
  )
}

/**
 * Runs the checks with `runner` and reports each verdict, in the card's order; `ok` as `isCardOk` says. The checks
 * that may take longest start first, so that a card lasts about as long as its longest check (docs/check-client.md).
 *
 * @example
 * const report = await runCard(async (task, input, limitMs) => ({ ended: 'result', ms: 5 }))
 */
export async function runCard(runner: TaskRunner, options: CardOptions = {}): Promise<CardReport> {
  const checks = selectChecks(options.only)
  const startedAt = new Date()
  const results: CheckResult[] = new Array(checks.length)
  const order = startOrder(checks, options.limitMs)
  const made: Made = new Map()
  let next = 0
  const worker = async () => {
    for (let index = order[next++]; index !== undefined; index = order[next++]) {
      const result = await runCheck(checks[index] as CheckDefinition, runner, options.limitMs, made)
      results[index] = result
      options.onResult?.(result)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 4) }, worker))
  const ok = isCardOk(results)
  return { card: CARD_VERSION, ok, startedAt: startedAt.toISOString(), durationMs: Date.now() - startedAt.getTime(), checks: results }
}
