/**
 * The judges of `retry.backoff` and `retry.jitter` on synthetic evidence: twenty runs whose waits are those a client's
 * documentation gives, plus the noise a loaded machine adds (always lateness: a wait is never measured shorter than it
 * was). Deterministic: the "random" clients draw from a seeded generator. The rates over many cards are in
 * bench/card-verdicts.ts.
 */
import { describe, expect, it } from 'vitest'
import type { JournalEntry } from '../journal/journal.js'
import { BACKOFF_RUN_COUNT, BACKOFF_RUNS, BACKOFF_STAGGER_MS, jitterOf, judgeGrowth, judgeJitter, waitsOf } from './back-off.js'
import { CHECKS } from './catalogue.js'
import type { RunEvidence } from './types.js'

/** A seeded generator (mulberry32), so a "random" client waits the same in every test run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = Math.imul(state ^ (state >>> 15), state | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Twenty runs of a client whose wait before retry n (from 1) is `wait(n, run)`, each answered 1 ms after it arrived. */
function cardOf(wait: (n: number, run: number) => number, retries: number): RunEvidence[] {
  return BACKOFF_RUNS.map((run, index) => {
    const entries: JournalEntry[] = []
    let arrived = 10_000 + index * BACKOFF_STAGGER_MS
    for (let n = 0; n <= retries; n++) {
      if (n > 0) arrived = (entries[n - 1] as JournalEntry).at + wait(n, index)
      const status = n < 3 ? 503 : 200
      entries.push({
        seq: n + 1,
        arrival: n + 1,
        at: arrived + 1,
        durationMs: 1,
        method: 'GET',
        path: '/v1/pets',
        query: '',
        status,
      } as JournalEntry)
    }
    return {
      run,
      outcome: retries < 3 ? { ended: 'error', ms: 1_000, message: 'HTTPError: 503' } : { ended: 'result', ms: 2_000 },
      entries,
    }
  })
}

/** A loaded machine: each run's first retry held up by 0-190 ms (the client's retry code run the first time), each timer 0-38 ms late. */
const late = (n: number, run: number) => (run % 20) * 2 + (n === 1 ? (run % 20) * 10 : 0)
const ky = (n: number, run: number) => 300 * 2 ** (n - 1) + late(n, run)
const got = (random: () => number) => (n: number, run: number) => 1000 * 2 ** (n - 1) + random() * 100 + late(n, run)

describe('retry.backoff', () => {
  it("passes ky's documented waits (0.3 s, then 0.6 s, no jitter) though the first waits are held up by up to 190 ms", () => {
    const verdict = judgeGrowth(cardOf(ky, 2))
    expect(verdict.status).toBe('passed')
    expect(verdict.reason).toMatch(
      /^The waits grew: before retry 2 the shortest of 20 runs waited 600 ms, 1\.67 times the lower quartile of the waits before retry 1 \(360 ms\); 1\.05 needed\.$/,
    )
  })

  it("passes ky's waits though 15 of the 20 first waits are held up by 265 ms (its margin: 272 ms)", () => {
    const heldUp = (n: number, run: number) => 300 * 2 ** (n - 1) + (n === 1 && run >= 5 ? 265 : 0)
    expect(judgeGrowth(cardOf(heldUp, 2)).status).toBe('passed')
  })

  it("passes got's documented waits (1 s * 2^(n-1) plus 0-100 ms of noise)", () => {
    expect(judgeGrowth(cardOf(got(seeded(1)), 2)).status).toBe('passed')
  })

  it("passes urllib3's waits, whose first retry is immediate (0, 1, 2 s)", () => {
    expect(judgeGrowth(cardOf((n, run) => (n === 1 ? 0 : 500 * 2 ** (n - 1)) + late(n, run), 3)).status).toBe('passed')
  })

  it('passes equal jitter (half the back-off fixed, half random), as the reference client waits', () => {
    const random = seeded(2)
    const equal = (n: number, run: number) => 125 * 2 ** (n - 1) * (1 + random()) + late(n, run)
    expect(judgeGrowth(cardOf(equal, 3)).status).toBe('passed')
  })

  it('fails a constant wait, however late the machine runs its timers', () => {
    const verdict = judgeGrowth(cardOf((n, run) => 500 + late(n, run), 3))
    expect(verdict.status).toBe('failed')
    expect(verdict.reason).toMatch(/^The waits did not grow: before retry 3 the shortest of 20 runs waited 50\d ms, 0\.\d\d times/)
  })

  it('fails a wait drawn afresh from 0-1000 ms each time: too unlike between runs to show growth', () => {
    const random = seeded(3)
    const verdict = judgeGrowth(cardOf(() => random() * 1000, 2))
    expect(verdict.status).toBe('failed')
    expect(verdict.reason).toMatch(
      /^The waits before retry \d differ too much between runs to show growth: the shortest \(\d+ ms\) is under half/,
    )
  })

  it('does not apply when a run retried fewer than twice, and names the run', () => {
    const verdict = judgeGrowth(cardOf(ky, 1))
    expect(verdict.status).toBe('not-applicable')
    expect(verdict.reason).toBe('In run 1 the client retried a 503 fewer than twice: no growth to judge.')
  })

  it('shows one evidence line per run: its statuses, its waits and how the task ended', () => {
    const verdict = judgeGrowth(cardOf(ky, 2))
    expect(verdict.evidence).toHaveLength(BACKOFF_RUN_COUNT)
    expect(verdict.evidence[0]).toBe(
      'run 1: GET /v1/pets -> 503, 503, 503; waits 300, 600 ms; the task surfaced an error after 1.0 s: HTTPError: 503',
    )
  })
})

describe('retry.jitter', () => {
  it("fails ky's waits, which carry no randomness, on a loaded machine", () => {
    const verdict = judgeJitter(cardOf(ky, 2))
    expect(verdict.status).toBe('failed')
    expect(verdict.reason).toMatch(
      /^The runs waited alike: the 8th-shortest of 20 waits at a retry is \d% longer than the second-shortest \(retry 2: \d%\); jitter makes it 10% at least\.$/,
    )
  })

  it("fails got's 0-100 ms of noise: 5% of its 2 s wait at most, half the 10% asked", () => {
    expect(judgeJitter(cardOf(got(seeded(5)), 2)).status).toBe('failed')
  })

  it('fails a client whose first waits differ only by its start-up: the first retry is left out when there are more', () => {
    const startUp = (n: number, run: number) => (n === 1 ? 250 + run * 40 : 250 * 2 ** (n - 1))
    expect(jitterOf(waitsOf(cardOf(startUp, 3)))?.retries).toEqual([2, 3])
    expect(judgeJitter(cardOf(startUp, 3)).status).toBe('failed')
  })

  it('passes equal jitter and full jitter', () => {
    const random = seeded(6)
    expect(judgeJitter(cardOf((n) => 125 * 2 ** (n - 1) * (1 + random()), 3)).status).toBe('passed')
    expect(judgeJitter(cardOf((n) => 300 * 2 ** (n - 1) * random(), 2)).status).toBe('passed')
  })

  it('measures a near-zero wait against 250 ms: a few ms of timer noise on an immediate retry is no jitter', () => {
    const immediate = (_n: number, run: number) => 1 + (run % 5)
    expect(judgeJitter(cardOf(immediate, 1)).status).toBe('failed')
  })

  it('does not apply when the client did not retry', () => {
    expect(judgeJitter(cardOf(ky, 0))).toMatchObject({
      status: 'not-applicable',
      reason: 'In run 1 the client did not retry a 503: no wait to judge.',
    })
  })
})

describe('the runs of retry.backoff and retry.jitter', () => {
  it('are twenty, started 150 ms apart, and shared by both checks (made once in a card)', () => {
    const backoff = CHECKS.find((check) => check.id === 'retry.backoff')
    const jitter = CHECKS.find((check) => check.id === 'retry.jitter')
    expect(backoff?.runs).toBe(jitter?.runs)
    expect(BACKOFF_RUNS.map((run) => run.startAfterMs)).toEqual(Array.from({ length: 20 }, (_, n) => n * 150))
  })

  it("rate retry.backoff as required (the spec's rule) and retry.jitter as recommended, with its source", () => {
    expect(CHECKS.find((check) => check.id === 'retry.backoff')).toMatchObject({
      level: 'required',
      source: expect.stringContaining('spec'),
    })
    expect(CHECKS.find((check) => check.id === 'retry.jitter')).toMatchObject({
      level: 'recommended',
      source: expect.stringMatching(/^advice, not the spec: AWS Architecture Blog/),
    })
  })
})
