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
  /** How long each task may run before it counts as never ending (default 10,000 ms, or the check's own). */
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

/** One run: its world on a free port, the task, then the world's journal. */
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
    const input = { baseUrl: `${url}${server.petStore.basePath}`, key: run.key ?? CARD_KEY, ...(run.petId ? { petId: run.petId } : {}) }
    const outcome = await runner(run.task, input, limitMs ?? run.limitMs ?? DEFAULT_LIMIT_MS)
    await new Promise((done) => setTimeout(done, SETTLE_MS))
    const entries: JournalEntry[] = server.petStore.journal.all().sort((a, b) => a.arrival - b.arrival)
    return { run, outcome, entries }
  } finally {
    // The check is judged: answers a fault still holds (`timeout`) are of no use to anyone.
    server.server.closeAllConnections()
    await server.close()
  }
}

async function runCheck(check: CheckDefinition, runner: TaskRunner, limitMs: number | undefined): Promise<CheckResult> {
  const started = Date.now()
  const runs = await Promise.all(check.runs.map((run) => runOnce(run, runner, limitMs)))
  const { id, level, rule, source, fix } = check
  return { id, level, rule, source, fix, ...check.judge(runs), durationMs: Date.now() - started }
}

/**
 * Runs the checks with `runner` and reports each verdict; `ok` when every required check passed or did not apply, and
 * one passed at least.
 *
 * @example
 * const report = await runCard(async (task, input, limitMs) => ({ ended: 'result', ms: 5 }))
 */
export async function runCard(runner: TaskRunner, options: CardOptions = {}): Promise<CardReport> {
  const checks = selectChecks(options.only)
  const startedAt = new Date()
  const results: CheckResult[] = new Array(checks.length)
  let next = 0
  const worker = async () => {
    for (let index = next++; index < checks.length; index = next++) {
      const result = await runCheck(checks[index] as CheckDefinition, runner, options.limitMs)
      results[index] = result
      options.onResult?.(result)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 4) }, worker))
  // A task that never reaches the mock (a typo in the command, a crash at start) meets no check's condition: it passes
  // nothing, and that is no pass (docs/check-client.md).
  const ok =
    results.some((result) => result.status === 'passed') &&
    results.every((result) => result.level !== 'required' || result.status !== 'failed')
  return { card: CARD_VERSION, ok, startedAt: startedAt.toISOString(), durationMs: Date.now() - startedAt.getTime(), checks: results }
}
