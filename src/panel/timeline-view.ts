/**
 * The Timeline section: the scenario's stages as a strip, each as wide as it lasts, a marker at the clock's now, the
 * current stage highlighted, and the verdict against the scenario's `expect` (docs/scenarios.md, "Timelines"). Start
 * plays the incident again from the clock's now, Stop switches to the default scenario. Hidden without a timeline.
 */
import { button, h, messageOf, replace } from './dom.js'
import type { ClockRow, PanelSource, TimelineRow } from './types.js'

type Notify = (message: string, error?: boolean) => void

/** The share of the strip a last stage that lasts for good takes: it has no length to be proportional to. */
export const OPEN_SHARE = 0.2

/** A scenario that stops any timeline: the catalogue's default one, the same the server starts with. */
const STOPPED = 'default'

export interface StripSegment {
  readonly name: string
  readonly description: string | undefined
  /** From the strip's left edge, in percent of its width. */
  readonly left: number
  /** In percent of the strip's width. */
  readonly width: number
  readonly requests: number
  readonly current: boolean
}

export interface StripLayout {
  readonly segments: readonly StripSegment[]
  /** Where the clock's now is, in percent of the strip's width (0 to 100). */
  readonly now: number
}

/**
 * Lays the stages out on one scale from the scenario's start: the time before the first stage and between stages stays
 * blank, and a last stage that lasts for good is drawn as `openShare` of the whole at the same scale (an hour when
 * nothing comes before it). The now marker stops at the right edge.
 *
 * @example
 * // outage-incident 11 minutes in: slowing 5-10 min, outage 10-20 min, recovered from 20 min for good
 * stripLayout(view).segments.map((segment) => [segment.left, segment.width]) // [[20, 20], [40, 40], [80, 20]]
 * stripLayout(view).now // 44
 */
export function stripLayout(view: TimelineRow, openShare = OPEN_SHARE): StripLayout {
  const start = Date.parse(view.startedAt)
  const spans = view.stages.map((stage) => ({
    stage,
    from: Date.parse(stage.startsAt) - start,
    to: stage.endsAt === null ? null : Date.parse(stage.endsAt) - start,
  }))
  const open = spans.length > 0 && spans[spans.length - 1]?.to === null
  const finite = Math.max(0, ...spans.map((span) => span.to ?? span.from))
  const total = open ? (finite > 0 ? finite / (1 - openShare) : 3_600_000) : finite
  const percent = (ms: number) => (total > 0 ? Math.min(100, Math.max(0, (ms / total) * 100)) : 0)
  const segments = spans.map(({ stage, from, to }) => {
    const left = percent(from)
    return {
      name: stage.name,
      description: stage.description,
      left,
      width: (to === null ? 100 : percent(to)) - left,
      requests: stage.requests,
      current: stage.name === view.current,
    }
  })
  return { segments, now: percent(view.elapsedMs) }
}

/** The stage at `elapsedMs` from the scenario's start, as the world finds it; `null` before, between and after stages. */
export function stageAt(view: TimelineRow, elapsedMs: number): string | null {
  const at = Date.parse(view.startedAt) + elapsedMs
  const stage = view.stages.find((each) => at >= Date.parse(each.startsAt) && (each.endsAt === null || at < Date.parse(each.endsAt)))
  return stage?.name ?? null
}

/** `660000` -> `11 min 0 s`; `3723000` -> `1 h 2 min 3 s`. */
export function elapsedText(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000))
  const hours = Math.floor(seconds / 3600)
  return `${hours > 0 ? `${hours} h ` : ''}${Math.floor((seconds % 3600) / 60)} min ${seconds % 60} s`
}

/** The verdict as one line: `Verdict: not ok. Error rate 40 % (at most 10 %). Banned keys: none.` */
export function verdictText(verdict: TimelineRow['verdict']): string {
  const rate = (share: number) => `${Math.round(share * 1000) / 10} %`
  const limit = verdict.maxErrorRate === undefined ? '' : ` (at most ${rate(verdict.maxErrorRate)})`
  const banned = verdict.bannedKeys.length === 0 ? 'none' : verdict.bannedKeys.join(', ')
  // Without `expect` there is nothing to hold, and `ok` says only that (docs/scenarios.md, "Timelines").
  const none = verdict.maxErrorRate === undefined && verdict.noBan === undefined ? ' (the scenario expects nothing)' : ''
  return `Verdict: ${verdict.ok ? 'ok' : 'not ok'}${none}. Error rate ${rate(verdict.errorRate)}${limit}. Banned keys: ${banned}${verdict.noBan ? ' (none allowed)' : ''}.`
}

function segmentOf(segment: StripSegment, stage: TimelineRow['stages'][number]): HTMLElement {
  const statuses = Object.entries(stage.statuses).map(([status, count]) => `${status}: ${count}`)
  const title = [
    `${segment.name}${segment.description ? `: ${segment.description}` : ''}`,
    `${stage.startsAt} to ${stage.endsAt ?? 'for good'}`,
    `${segment.requests} requests${statuses.length > 0 ? ` (${statuses.join(', ')})` : ''}`,
  ].join('\n')
  const element = h(
    'div',
    { class: segment.current ? 'stage current' : 'stage', role: 'listitem', title, 'aria-current': segment.current ? 'step' : undefined },
    h('span', { class: 'stage-name' }, segment.name),
    h('span', { class: 'stage-count' }, `${segment.requests} req`),
  )
  // Through the CSSOM, not a style attribute: a stricter style-src than the page's would still allow it.
  element.style.left = `${segment.left}%`
  element.style.width = `${segment.width}%`
  return element
}

/**
 * Runs `read` one at a time: a call while it runs makes it run once more after, so requests that come in bursts cost
 * at most two reads and the last one sees them all.
 */
function oneAtATime(read: () => Promise<void>): () => Promise<void> {
  let reading: Promise<void> | undefined
  let again = false
  return () => {
    if (reading) {
      again = true
      return reading
    }
    reading = (async () => {
      try {
        do {
          again = false
          await read()
        } while (again)
      } finally {
        reading = undefined
      }
    })()
    return reading
  }
}

/** Start (the shown scenario again) and Stop (the default scenario), each switching as `PUT /__mock/scenario` does. */
function controlsOf(source: PanelSource, notify: Notify, shown: () => TimelineRow | null, load: () => Promise<void>): HTMLElement {
  const switchTo = async (name: string, done: string) => {
    for (const control of controls.children) (control as HTMLButtonElement).disabled = true
    try {
      await source.useScenario(name)
      notify(done)
      await load()
    } catch (error) {
      notify(`Could not switch to "${name}": ${messageOf(error)}`, true)
    } finally {
      for (const control of controls.children) (control as HTMLButtonElement).disabled = false
    }
  }
  const start = () => {
    const scenario = shown()?.scenario
    if (scenario) return switchTo(scenario, `Scenario "${scenario}" started again: its timeline runs from the clock's now.`)
  }
  const controls = h(
    'div',
    { class: 'buttons' },
    button('Start', start, { title: 'Switch to this scenario again: its timeline starts from the clock’s now' }),
    button('Stop', () => switchTo(STOPPED, `Timeline stopped: scenario "${STOPPED}" is on.`), {
      title: `Switch to the "${STOPPED}" scenario`,
    }),
  )
  return controls
}

/**
 * @example
 * const timeline = timelineView(source, notify); await timeline.load()
 */
export function timelineView(source: PanelSource, notify: Notify) {
  const stages = h('div', { class: 'stages', role: 'list', 'aria-label': 'Timeline stages' })
  const marker = h('div', { class: 'now', 'aria-hidden': 'true' })
  const now = h('p', { class: 'timeline-now' })
  const verdict = h('p', { class: 'verdict' })
  let shown: TimelineRow | null = null
  let readAt = 0
  let running: ClockRow | undefined
  const moveMarker = (view: TimelineRow, elapsedMs: number) => {
    marker.style.left = `${stripLayout({ ...view, elapsedMs }).now}%`
    const where = view.current === null ? 'no stage' : `stage "${view.current}"`
    now.textContent = `Scenario "${view.scenario}", ${elapsedText(elapsedMs)} since its start: ${where}.`
  }
  const show = (view: TimelineRow | null) => {
    shown = view
    readAt = Date.now()
    element.hidden = view === null
    if (view === null) return
    const layout = stripLayout(view)
    replace(stages, ...layout.segments.map((segment, index) => segmentOf(segment, view.stages[index] as TimelineRow['stages'][number])))
    moveMarker(view, view.elapsedMs)
    verdict.textContent = verdictText(view.verdict)
    verdict.className = `verdict ${view.verdict.ok ? 'ok' : 'bad'}`
  }
  const load = oneAtATime(async () => {
    const view = await source.timeline()
    show(view.stages.length > 0 ? (view as TimelineRow) : null)
  })
  // A running clock (real time, `--clock-speed`) moves on between events: the marker follows it each second, and the
  // strip is read again once the clock enters another stage (the world marks the current stage, docs/scenarios.md).
  const tick = setInterval(() => {
    if (!shown || !running) return
    const elapsedMs = shown.elapsedMs + (Date.now() - readAt) * running.speed
    moveMarker(shown, elapsedMs)
    if (stageAt(shown, elapsedMs) !== shown.current) void load().catch(() => undefined)
  }, 1000)
  const element: HTMLElement = h(
    'section',
    { class: 'timeline', hidden: true, 'aria-labelledby': 'timeline-heading' },
    h('h2', { id: 'timeline-heading' }, 'Timeline'),
    h('div', { class: 'strip' }, stages, marker),
    now,
    verdict,
    controlsOf(source, notify, () => shown, load),
  )
  return {
    element,
    load,
    /** The clock as last read: a frozen one leaves the marker where the last read put it. */
    clock: (row: ClockRow): void => {
      running = row.frozen ? undefined : row
    },
    stop: (): void => clearInterval(tick),
    /** After a request or a clock move: read again only while a timeline shows (a switch to one reloads everything). */
    changed: (): void => {
      if (shown !== null) void load().catch(() => undefined)
    },
  }
}
