import { describe, expect, it } from 'vitest'
import { elapsedText, stageAt, stripLayout, verdictText } from './timeline-view.js'
import type { TimelineRow } from './types.js'

const START = Date.parse('2026-06-01T12:00:00Z')
const at = (minutes: number) => new Date(START + minutes * 60_000).toISOString()
const verdict: TimelineRow['verdict'] = {
  ok: true,
  errorRate: 0,
  longestFailureRun: {},
  bannedKeys: [],
}

/** A timeline view as `GET /__mock/timeline` answers it: stages as `[name, from, to]` in minutes (`to` null: for good). */
function viewOf(elapsedMinutes: number, current: string | null, stages: [string, number, number | null][]): TimelineRow {
  return {
    scenario: 'incident',
    startedAt: at(0),
    elapsedMs: elapsedMinutes * 60_000,
    current,
    stages: stages.map(([name, from, to], index) => ({
      name,
      description: `stage ${name}`,
      startsAt: at(from),
      endsAt: to === null ? null : at(to),
      requests: index,
      statuses: {},
      delayMs: null,
    })),
    verdict,
  } as TimelineRow
}

const geometry = (view: TimelineRow) => stripLayout(view).segments.map(({ name, left, width, current }) => ({ name, left, width, current }))

describe("the timeline strip's layout", () => {
  it('draws outage-incident on one scale from the start, the open last stage a fifth of the strip, now at 11 minutes', () => {
    const view = viewOf(11, 'outage', [
      ['slowing', 5, 10],
      ['outage', 10, 20],
      ['recovered', 20, null],
    ])
    expect(geometry(view)).toEqual([
      { name: 'slowing', left: 20, width: 20, current: false },
      { name: 'outage', left: 40, width: 40, current: true },
      { name: 'recovered', left: 80, width: 20, current: false },
    ])
    expect(stripLayout(view).now).toBe(44)
    expect(stripLayout(view).segments.map((segment) => segment.requests)).toEqual([0, 1, 2])
  })

  it('fills the strip with stages that all end, and stops the marker at its edges', () => {
    const stages: [string, number, number | null][] = [
      ['a', 0, 10],
      ['b', 10, 40],
    ]
    expect(geometry(viewOf(0, 'a', stages))).toEqual([
      { name: 'a', left: 0, width: 25, current: true },
      { name: 'b', left: 25, width: 75, current: false },
    ])
    expect(stripLayout(viewOf(90, null, stages)).now).toBe(100)
    // The clock set back before the scenario's start.
    expect(stripLayout(viewOf(-5, null, stages)).now).toBe(0)
  })

  it('gives a lone stage that starts at once and lasts for good the whole strip, an hour wide', () => {
    const view = viewOf(15, 'only', [['only', 0, null]])
    expect(geometry(view)).toEqual([{ name: 'only', left: 0, width: 100, current: true }])
    expect(stripLayout(view).now).toBe(25)
  })

  it('takes another share for the open stage when asked', () => {
    const view = viewOf(0, null, [
      ['a', 0, 10],
      ['b', 10, null],
    ])
    expect(stripLayout(view, 0.5).segments.map((segment) => segment.width)).toEqual([50, 50])
  })
})

describe('the stage at a moment', () => {
  it('is the stage whose start it is at or after and whose end it is before; none before, between or after', () => {
    const view = viewOf(0, null, [
      ['a', 5, 10],
      ['b', 15, null],
    ])
    const minutes = [0, 5, 9.99, 10, 12, 15, 600].map((minute) => stageAt(view, minute * 60_000))
    expect(minutes).toEqual([null, 'a', 'a', null, null, 'b', 'b'])
  })
})

describe("the timeline's text", () => {
  it('says the elapsed time in hours, minutes and seconds', () => {
    expect(elapsedText(660_000)).toBe('11 min 0 s')
    expect(elapsedText(3_723_400)).toBe('1 h 2 min 3 s')
    expect(elapsedText(-1)).toBe('0 min 0 s')
  })

  it('says the verdict with its error rate, the limit and the banned keys', () => {
    expect(verdictText(verdict)).toBe('Verdict: ok (the scenario expects nothing). Error rate 0 %. Banned keys: none.')
    expect(verdictText({ ...verdict, maxErrorRate: 0.5, errorRate: 0.125 })).toBe(
      'Verdict: ok. Error rate 12.5 % (at most 50 %). Banned keys: none.',
    )
    expect(verdictText({ ...verdict, ok: false, errorRate: 0.4, maxErrorRate: 0.1, bannedKeys: ['free …free'], noBan: true })).toBe(
      'Verdict: not ok. Error rate 40 % (at most 10 %). Banned keys: free …free (none allowed).',
    )
  })
})
