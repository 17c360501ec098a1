/**
 * A scenario's timeline: stages that start and end on the world's clock, counted from the scenario's start. Each
 * stage adds its faults in front of the scenario's own and, when it starts, sets the counters of keys (a window used
 * up, a ban). Nothing runs on a timer: the first request in a stage starts it, so a test moving a manual clock plays
 * an hour-long incident in milliseconds, and each world (each session) plays its own (docs/scenarios.md, "Timelines").
 */
import type { Clock } from '../clock.js'
import type { Api } from '../core/api.js'
import { durationMsOf } from '../core/duration.js'
import { type FaultRule, withFaults } from '../core/faults.js'
import type { Random } from '../core/random.js'
import type { ApiResponse } from '../core/types.js'
import type { JournalEntry } from '../journal/journal.js'
import type { Scenario } from '../scenarios/schema.js'
import { misuse } from './options.js'

type StageInput = NonNullable<Scenario['timeline']>[number]

/**
 * A duration of the scenario format in ms: `90s`, `5m`, `1h`, `250ms`, or ISO 8601 `PT1H30M` (read by the one reader,
 * src/core/duration.ts; the scenario schema's DURATION pattern holds the format to these forms).
 *
 * @example
 * durationMs('5m') // 300000
 */
export function durationMs(text: string): number {
  return durationMsOf(text) ?? misuse(`"${text}" is not a duration: write e.g. "90s", "5m", "1h" or "PT5M".`)
}

export interface Stage {
  readonly name: string
  readonly description: string | undefined
  /** From the scenario's start, in ms. */
  readonly startMs: number
  /** `Infinity` for a last stage that lasts for good. */
  readonly endMs: number
  readonly input: StageInput
}

/** The stages in order, each ending where it says or where the next begins; overlapping stages are refused. */
export function stagesOf(scenario: Scenario): Stage[] {
  const inputs = scenario.timeline ?? []
  const stages = inputs.map((input, index) => {
    const startMs = durationMs(input.after)
    const next = inputs[index + 1]
    const endMs = input.for !== undefined ? startMs + durationMs(input.for) : next ? durationMs(next.after) : Number.POSITIVE_INFINITY
    return { name: input.name, description: input.description, startMs, endMs, input }
  })
  stages.forEach((stage, index) => {
    const before = stages[index - 1]
    const where = `scenario "${scenario.name}" timeline[${index}] ("${stage.name}")`
    if (stages.findIndex((other) => other.name === stage.name) !== index) misuse(`${where}: another stage has this name.`)
    if (stage.endMs <= stage.startMs) misuse(`${where}: "for" must be longer than 0.`)
    if (before && stage.startMs < before.endMs) misuse(`${where}: starts before "${before.name}" ends; stages follow each other.`)
  })
  return stages
}

/** What the clients saw over the incident, against the scenario's `expect` (docs/scenarios.md, "Timelines"). */
export interface IncidentVerdict {
  /** Every limit of `expect` held (`true` when it states none). */
  readonly ok: boolean
  /** The share of answers other than 2xx (a dropped connection counts), 0 without answers. */
  readonly errorRate: number
  /** The scenario's `expect.maxErrorRate`, only when it sets one. */
  readonly maxErrorRate?: number
  /** Per key (plan and last 4 characters, or the key a request carried), its longest run of answers other than 2xx in a row. */
  readonly longestFailureRun: Readonly<Record<string, number>>
  /** The keys whose last answer was a ban. */
  readonly bannedKeys: readonly string[]
  /** The scenario's `expect.noBan`, only when it sets it: a verdict shows the expectations that were set, no others. */
  readonly noBan?: boolean
}

/**
 * The key each answer was for: the plan and hint the key check named (`free …free`), else the key the request carried,
 * by the hint its journaled Authorization keeps (a fault answered before the key check, an unknown key), named as
 * another answer of that key names it when one does; `(no key)` for a request that sent none.
 */
function keyLabels(entries: readonly JournalEntry[]): (entry: JournalEntry) => string {
  const byHint = new Map<string, string>()
  for (const { key } of entries) if (key !== undefined) byHint.set(key.slice(key.lastIndexOf(' ') + 1), key)
  return ({ key, requestHeaders }) => {
    if (key !== undefined) return key
    const carried = /^bearer\s+(\S+)$/i.exec(String(requestHeaders['authorization'] ?? '').trim())?.[1]
    return carried === undefined ? '(no key)' : (byHint.get(carried) ?? carried)
  }
}

function verdictOf(scenario: Scenario, entries: readonly JournalEntry[]): IncidentVerdict {
  const failed = (entry: JournalEntry) => entry.status < 200 || entry.status > 299
  const longestFailureRun: Record<string, number> = {}
  const run: Record<string, number> = {}
  const last: Record<string, JournalEntry> = {}
  const labelOf = keyLabels(entries)
  for (const entry of [...entries].sort((a, b) => a.arrival - b.arrival)) {
    const key = labelOf(entry)
    run[key] = failed(entry) ? (run[key] ?? 0) + 1 : 0
    longestFailureRun[key] = Math.max(longestFailureRun[key] ?? 0, run[key] as number)
    last[key] = entry
  }
  const errorRate = entries.length === 0 ? 0 : entries.filter(failed).length / entries.length
  const bannedKeys = Object.keys(last).filter((key) => last[key]?.code === 'key_temporarily_banned')
  const { maxErrorRate, noBan } = scenario.expect ?? {}
  const ok = (maxErrorRate === undefined || errorRate <= maxErrorRate) && (noBan !== true || bannedKeys.length === 0)
  const expected = { ...(maxErrorRate === undefined ? {} : { maxErrorRate }), ...(noBan === undefined ? {} : { noBan }) }
  return { ok, errorRate, longestFailureRun, bannedKeys, ...expected }
}

/** Nearest-rank percentiles (the smallest value with at least p% of the values at or below it). */
function percentiles(values: number[]): NonNullable<TimelineView['stages'][number]['delayMs']> | null {
  if (values.length === 0) return null
  const sorted = values.sort((a, b) => a - b)
  const at = (p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] as number
  return { p50: at(50), p90: at(90), p99: at(99), max: sorted[sorted.length - 1] as number }
}

/** One stage as the view shows it: when it runs, and the answers given in it. */
function stageView(stage: Stage, entries: readonly JournalEntry[], iso: (ms: number) => string): TimelineView['stages'][number] {
  const statuses: Record<string, number> = {}
  const delays: number[] = []
  for (const entry of entries) {
    if (entry.stage !== stage.name) continue
    delays.push(entry.delayMs)
    statuses[entry.status] = (statuses[entry.status] ?? 0) + 1
  }
  const { name, description } = stage
  const endsAt = Number.isFinite(stage.endMs) ? iso(stage.endMs) : null
  return { name, description, startsAt: iso(stage.startMs), endsAt, requests: delays.length, statuses, delayMs: percentiles(delays) }
}

/** Where a timeline stands, for the admin API and `petStore.timeline()`. */
export interface TimelineView {
  readonly scenario: string
  /** When the scenario (and its timeline) started, on the world's clock. */
  readonly startedAt: string
  readonly elapsedMs: number
  /** The stage now, or `null` between stages and before the first. */
  readonly current: string | null
  readonly stages: readonly {
    readonly name: string
    readonly description: string | undefined
    readonly startsAt: string
    /** `null`: it lasts for good. */
    readonly endsAt: string | null
    /** The journal's answers in this stage, and how many of each status. */
    readonly requests: number
    readonly statuses: Readonly<Record<string, number>>
    /** The delays applied to those answers (nearest-rank percentiles, ms); `null` without answers. */
    readonly delayMs: { readonly p50: number; readonly p90: number; readonly p99: number; readonly max: number } | null
  }[]
  /** What the clients saw since the scenario started, against its `expect`. */
  readonly verdict: IncidentVerdict
}

/** Where a timeline is, as a snapshot keeps it: when it started (ms on the world's clock) and the furthest stage entered. */
export interface TimelinePlace {
  readonly startedAt: number
  /** The index of the furthest stage whose key counters were put in place; -1 before the first. */
  readonly entered: number
}

export interface TimelineStep extends Api {
  view(journal: readonly JournalEntry[]): TimelineView
  place(): TimelinePlace
}

/**
 * Plays `stages` over `api`: each request is answered by the stage of the clock's now, and marked with its name.
 *
 * @example
 * const step = withTimeline(api, { scenario, stages: stagesOf(scenario), clock, random, basePath: '/v1', enter })
 */
export function withTimeline(
  api: Api,
  parts: {
    scenario: Scenario
    stages: readonly Stage[]
    clock: Pick<Clock, 'now'>
    random: Random
    basePath: string
    /** Called once as a stage starts: puts its key counters in place (never again for a stage the clock moves back into). */
    enter(stage: Stage, now: number): void
    /** Where to go on from (a restored snapshot's), instead of starting at the clock's now. */
    resume?: TimelinePlace | undefined
  },
): TimelineStep {
  const { scenario, stages, clock } = parts
  const startedAt = parts.resume?.startedAt ?? clock.now()
  const apis = stages.map((stage) =>
    stage.input.faults?.length
      ? // The schema gives each latency exactly the fields of its distribution (`latencyFields`).
        withFaults(api, {
          rules: stage.input.faults as readonly FaultRule[],
          random: parts.random,
          basePath: parts.basePath,
          scenario: scenario.name,
        })
      : api,
  )
  let entered = parts.resume?.entered ?? -1
  const stageAt = (now: number) => stages.findIndex((stage) => now - startedAt >= stage.startMs && now - startedAt < stage.endMs)
  const inStage =
    (stage: string) =>
    (response: ApiResponse): ApiResponse => ({ ...response, meta: { ...response.meta, stage } })
  return {
    handle(request) {
      const now = clock.now()
      const index = stageAt(now)
      if (index === -1) return api.handle(request)
      const stage = stages[index] as Stage
      // A stage starts once: the clock moved back into a stage played already (or before it) starts nothing again, so
      // its answers do not depend on whether a request came in a later stage (test/scenarios/timeline.test.ts).
      if (index > entered) {
        entered = index
        parts.enter(stage, now)
      }
      const result = (apis[index] as Api).handle(request)
      return result instanceof Promise ? result.then(inStage(stage.name)) : inStage(stage.name)(result)
    },
    place: () => ({ startedAt, entered }),
    view(journal) {
      const now = clock.now()
      const iso = (ms: number) => new Date(startedAt + ms).toISOString()
      // The incident's answers only: a journal kept across a restore (or a one-off world's answers, X-Mock-Scenario)
      // holds other scenarios' and earlier ones (test/scenarios/timeline-snapshot.test.ts).
      const entries = journal.filter((entry) => entry.scenario === scenario.name && entry.at >= startedAt)
      return {
        scenario: scenario.name,
        startedAt: new Date(startedAt).toISOString(),
        elapsedMs: now - startedAt,
        current: stages[stageAt(now)]?.name ?? null,
        stages: stages.map((stage) => stageView(stage, entries, iso)),
        verdict: verdictOf(scenario, entries),
      }
    },
  }
}
