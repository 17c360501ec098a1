/**
 * The judges of `retry.backoff` (the waits grow: the spec's rule) and `retry.jitter` (the waits differ between runs:
 * advice, not the spec's rule), over one set of runs both checks share. Each judge reads order statistics across the
 * runs, chosen so that noise cannot cross the margin: the time from an answer to the next request is never shorter than
 * the client's wait (the server records a request no sooner than it arrives), so noise only lengthens waits, and a
 * stall of the machine lengthens those of the runs whose timers fell due during it. The margins are measured over many
 * simulated cards: `npx tsx bench/card-verdicts.ts`, and docs/check-client.md ("How sure a verdict is").
 * @see ../shared/spec/pet-store-service.md "Exceeding the limit" 3 ("Clients use exponential backoff")
 */
import type { JournalEntry } from '../journal/journal.js'
import { outcomeText, sentAt } from './evidence.js'
import type { CheckRun, RunEvidence, Verdict } from './types.js'

/** How many runs of the client meet the 503s: twenty, so that order statistics across them can leave out the late. */
export const BACKOFF_RUN_COUNT = 20
/**
 * Run n starts n * 150 ms after the first: fewer clients start at once (a start is the busiest moment of a client's
 * process), and a stall of the machine lands on different retries of different runs, instead of on the same retry of
 * every run.
 */
export const BACKOFF_STAGGER_MS = 150
/**
 * Each retry's wait must be this many times the one before it (1.05^(n-1) from the first to the nth), at least: a small
 * factor, as a busy machine stretches the first wait (below); growth is told from a constant wait by the margin, and
 * from a random one by `alike`.
 */
export const GROWTH_FACTOR = 1.05
/**
 * The waits of a retry are alike enough to compare when the shortest is at least half the median; waits under this
 * many ms (an immediate first retry, as urllib3's) are held to half of it instead.
 */
export const ALIKE_FLOOR_MS = 400
/** Jitter spreads the shortest 40% of the runs' waits at a retry over this share of the second-shortest (10%), at least. */
export const JITTER_SPREAD = 0.1
/** A spread is measured against this much at least: timer noise of a few ms on a near-zero wait is no jitter. */
export const JITTER_FLOOR_MS = 250

/** The runs both checks share: a 503 for the first three requests, each run in a world of its own. */
export const BACKOFF_RUNS: readonly CheckRun[] = Array.from({ length: BACKOFF_RUN_COUNT }, (_, n) => ({
  label: `run ${n + 1}`,
  task: 'list-pets' as const,
  scenario: { faults: [{ chaos: true, when: { first: 3 }, fault: { type: 'status' as const, status: 503 as const } }] },
  provokes: 503,
  startAfterMs: n * BACKOFF_STAGGER_MS,
}))

/**
 * The waits of each run, in ms: from each answer to the next request, oldest first. The client cannot start waiting
 * before it has the answer, so noise (a late timer, a busy server) only ever makes a wait look longer.
 */
export const waitsOf = (runs: readonly RunEvidence[]): number[][] =>
  runs.map(({ entries }) => entries.slice(1).map((entry, i) => sentAt(entry) - (entries[i] as JournalEntry).at))

const ascending = (values: readonly number[]): number[] => [...values].sort((a, b) => a - b)
const column = (waits: readonly (readonly number[])[], retry: number): number[] => ascending(waits.map((run) => run[retry] as number))
const ms = (value: number): string => `${Math.round(value)} ms`
/** The shortest wait is at least half the median (`ALIKE_FLOOR_MS`). */
const alike = (sorted: readonly number[]): boolean => {
  const median = sorted[sorted.length >> 1] as number
  return (sorted[0] as number) >= median - 0.5 * Math.max(median, ALIKE_FLOOR_MS)
}

export interface Growth {
  /** The retries every run made; the first and this last one are compared. */
  readonly retries: number
  /** The lower quartile of the waits before the first retry, across the runs. */
  readonly firstQuartile: number
  /** The shortest wait before the last retry, across the runs. */
  readonly shortestLast: number
  /** `shortestLast / firstQuartile`. */
  readonly factor: number
  /** `GROWTH_FACTOR ^ (retries - 1)`: the factor the waits must reach. */
  readonly needed: number
  /** The retry (1 or `retries`) whose waits are too unlike to compare, if one is. */
  readonly unlike: { readonly retry: number; readonly shortest: number; readonly median: number } | undefined
  readonly grew: boolean
}

/**
 * Did the waits grow, as exponential back-off makes them? The shortest wait before the last retry against the lower
 * quartile of the waits before the first. Margins:
 * - noise cannot make the shortest last wait short (it only lengthens);
 * - the first wait also holds the first run of the client's retry code, which a loaded machine (and the other runs'
 *   start) stretches by up to hundreds of ms (250 ms at a load average of 15 on 2 cores): read at its lower quartile,
 *   it takes 15 of 20 runs held up by 272 ms to fail ky's 300 then 600 ms (600 >= 1.05 * 571);
 * - a wait that does not grow fails: a constant one would need all 20 of its last waits 5% later than a quarter of its
 *   first ones (25 ms at 500 ms), though noise lengthens the first as much as the last, and the first more;
 * - a wait drawn afresh from 0 up (a random wait, or full jitter) is too unlike between runs to compare: at the first
 *   and the last retry, the shortest of the 20 waits must be half their median at least (`alike`), which 20 draws
 *   from 0 up meet about once in 300 cards each, and growth on top of both about never.
 * `undefined` when a run made fewer than two retries.
 */
export function growthOf(waits: readonly (readonly number[])[]): Growth | undefined {
  const retries = Math.min(...waits.map((run) => run.length))
  if (waits.length === 0 || retries < 2) return undefined
  const first = column(waits, 0)
  const last = column(waits, retries - 1)
  const firstQuartile = first[first.length >> 2] as number
  const shortestLast = last[0] as number
  const needed = GROWTH_FACTOR ** (retries - 1)
  const unlikeAt = [
    [1, first],
    [retries, last],
  ].find(([, sorted]) => !alike(sorted as number[])) as [number, number[]] | undefined
  const unlike = unlikeAt && {
    retry: unlikeAt[0],
    shortest: unlikeAt[1][0] as number,
    median: unlikeAt[1][unlikeAt[1].length >> 1] as number,
  }
  const factor = shortestLast / Math.max(firstQuartile, 1)
  return { retries, firstQuartile, shortestLast, factor, needed, unlike, grew: !unlike && shortestLast >= needed * firstQuartile }
}

export interface Jitter {
  /** The retries judged (1 is the first): every retry but the first, or the first when it is the only one. */
  readonly retries: readonly number[]
  /** At each judged retry: how much longer the 8th-shortest of the runs' waits is than the second-shortest, as a share. */
  readonly spreads: readonly number[]
  /** Their mean. */
  readonly spread: number
  readonly jittered: boolean
}

/**
 * Do the waits carry randomness? At each judged retry, the 8th-shortest of 20 waits against the second-shortest (the
 * shortest may be one run a busy machine happened to favour: on a 2-core machine at a load average of 10, ky's
 * shortest wait came 30 ms before the rest). Margins: a client without jitter shows only noise there, so 13 of its
 * 20 runs would have to be late by 10% of the wait at once (60 ms at ky's 600 ms, 200 ms at got's 2 s); a stall of
 * the machine reaches the few runs whose timers fell due during it, and a late minority is left out with the longest
 * 60%. The first retry is left out when there are more:
 * its wait also holds what a client does once before retrying (loading its retry code), which differs between runs
 * without being jitter. got's 0-100 ms of "noise" (its docs' word) is 5% at most of the 2 s wait judged: half the 10%
 * asked, and too little to tell from a loaded machine, so it does not count as jitter.
 */
export function jitterOf(waits: readonly (readonly number[])[]): Jitter | undefined {
  const made = Math.min(...waits.map((run) => run.length))
  if (waits.length === 0 || made < 1) return undefined
  const rank = Math.ceil(0.4 * waits.length) - 1
  const retries = made > 1 ? Array.from({ length: made - 1 }, (_, i) => i + 2) : [1]
  const spreads = retries.map((retry) => {
    const sorted = column(waits, retry - 1)
    const shortest = sorted[1] as number
    return ((sorted[rank] as number) - shortest) / Math.max(shortest, JITTER_FLOOR_MS)
  })
  const spread = spreads.reduce((sum, one) => sum + one, 0) / spreads.length
  return { retries, spreads, spread, jittered: spread >= JITTER_SPREAD }
}

/** One line per run: its statuses, its waits and how the task ended (twenty runs of every request would be 100 lines). */
function runLines(runs: readonly RunEvidence[], waits: readonly (readonly number[])[]): string[] {
  return runs.map((run, i) => {
    const path = run.entries[0] ? `${run.entries[0].method} ${run.entries[0].path} -> ` : ''
    const statuses = run.entries.map((entry) => entry.status).join(', ')
    const waited = waits[i]?.length ? `; waits ${waits[i]?.map((wait) => Math.round(wait)).join(', ')} ms` : ''
    return `${run.run.label}: ${path}${statuses || 'no request'}${waited}; the task ${outcomeText(run.outcome)}`
  })
}

const fewRetries = (runs: readonly RunEvidence[], waits: readonly (readonly number[])[], least: number): Verdict => {
  const index = waits.findIndex((run) => run.length < least)
  const what = least === 1 ? 'did not retry a 503' : 'retried a 503 fewer than twice'
  const why = least === 1 ? 'no wait to judge' : 'no growth to judge'
  return {
    status: 'not-applicable',
    reason: `In ${runs[index]?.run.label ?? 'a run'} the client ${what}: ${why}.`,
    evidence: runLines(runs, waits),
  }
}

/** The verdict of `retry.backoff`. */
export function judgeGrowth(runs: readonly RunEvidence[]): Verdict {
  const waits = waitsOf(runs)
  const growth = growthOf(waits)
  if (!growth) return fewRetries(runs, waits, 2)
  const { retries, firstQuartile, shortestLast, factor, needed, unlike } = growth
  const measured = `before retry ${retries} the shortest of ${runs.length} runs waited ${ms(shortestLast)}, ${factor.toFixed(2)} times the lower quartile of the waits before retry 1 (${ms(firstQuartile)})`
  const reason = unlike
    ? `The waits before retry ${unlike.retry} differ too much between runs to show growth: the shortest (${ms(unlike.shortest)}) is under half the median (${ms(unlike.median)}), as with a wait drawn from 0 up.`
    : growth.grew
      ? `The waits grew: ${measured}; ${needed.toFixed(2)} needed.`
      : `The waits did not grow: ${measured}, not ${needed.toFixed(2)} times.`
  return { status: growth.grew ? 'passed' : 'failed', reason, evidence: runLines(runs, waits) }
}

/** The verdict of `retry.jitter`. */
export function judgeJitter(runs: readonly RunEvidence[]): Verdict {
  const waits = waitsOf(runs)
  const jitter = jitterOf(waits)
  if (!jitter) return fewRetries(runs, waits, 1)
  const rank = Math.ceil(0.4 * runs.length)
  const each = jitter.retries.map((retry, i) => `retry ${retry}: ${Math.round((jitter.spreads[i] as number) * 100)}%`).join(', ')
  const measured = `the ${rank}th-shortest of ${runs.length} waits at a retry is ${Math.round(jitter.spread * 100)}% longer than the second-shortest (${each})`
  const reason = jitter.jittered
    ? `The waits differ between runs: ${measured}.`
    : `The runs waited alike: ${measured}; jitter makes it ${Math.round(JITTER_SPREAD * 100)}% at least.`
  return { status: jitter.jittered ? 'passed' : 'failed', reason, evidence: runLines(runs, waits) }
}
