/**
 * The card as a whole, on synthetic results and evidence: its version, its verdict (`ok`) when a recommended check
 * fails, the summary line, the order the checks start in, and what `timeout.gives-up` says of a client that gave up
 * late against one that never gave up.
 */
import { describe, expect, it } from 'vitest'
import type { JournalEntry } from '../journal/journal.js'
import { CHECKS, TIMEOUT_LIMIT_MS } from './catalogue.js'
import { summaryText } from './report.js'
import { isCardOk, startOrder } from './run.js'
import { CARD_VERSION, type CardReport, type CheckResult, type RunEvidence, type TaskOutcome } from './types.js'

const result = (id: string, level: CheckResult['level'], status: CheckResult['status']): CheckResult => ({
  id,
  level,
  status,
  rule: '',
  source: '',
  fix: '',
  reason: '',
  evidence: [],
  durationMs: 1,
})
const report = (checks: CheckResult[]): CardReport => ({
  card: CARD_VERSION,
  ok: isCardOk(checks),
  startedAt: '2030-01-01T00:00:00.000Z',
  durationMs: 12_300,
  checks,
})

describe('the card', () => {
  it('is petstore-client-checks/2', () => {
    expect(CARD_VERSION).toBe('petstore-client-checks/2')
  })

  it('stays ok when a recommended check fails: advice, reported beside the verdict', () => {
    const checks = [result('retry.backoff', 'required', 'passed'), result('retry.jitter', 'recommended', 'failed')]
    expect(isCardOk(checks)).toBe(true)
    expect(summaryText(report(checks))).toBe(
      'petstore-client-checks/2: 1 passed, 1 failed, 0 not applicable in 12.3 s: no required check failed; the recommended retry.jitter failed (advice: the exit status stays 0).\n',
    )
  })

  it('stays ok with only a failed recommended check: the client met its condition', () => {
    expect(isCardOk([result('retry.jitter', 'recommended', 'failed')])).toBe(true)
  })

  it('is not ok when a required check failed, nor when no check met its condition', () => {
    expect(isCardOk([result('retry.backoff', 'required', 'failed'), result('auth.bearer', 'required', 'passed')])).toBe(false)
    expect(isCardOk([result('auth.bearer', 'required', 'not-applicable'), result('retry.jitter', 'recommended', 'not-applicable')])).toBe(
      false,
    )
    expect(summaryText(report([result('retry.backoff', 'required', 'failed'), result('retry.jitter', 'recommended', 'failed')]))).toMatch(
      /: a required check failed\.\n$/,
    )
  })

  it('starts the checks that may take longest first: timeout.gives-up (40 s), then the staggered back-off runs', () => {
    const order = startOrder(CHECKS).map((index) => CHECKS[index]?.id)
    expect(order.slice(0, 3)).toEqual(['timeout.gives-up', 'retry.backoff', 'retry.jitter'])
    // A limit for every task (`limitMs`, as a test passes) leaves the staggered runs longest.
    expect(startOrder(CHECKS, 1_500).map((index) => CHECKS[index]?.id)[0]).toBe('retry.backoff')
  })
})

describe('timeout.gives-up', () => {
  const check = CHECKS.find((one) => one.id === 'timeout.gives-up')
  const sent = (seq: number) =>
    ({ seq, at: seq * 1_000, durationMs: 0, method: 'GET', path: '/v1/pets', query: '', status: 504, fault: 'timeout' }) as JournalEntry
  const runs = (outcome: TaskOutcome, requests = 1): RunEvidence[] => [
    { run: check?.runs[0] ?? { task: 'list-pets' }, outcome, entries: Array.from({ length: requests }, (_, i) => sent(i + 1)) },
  ]

  it("waits 40 s for an answer that never comes: room for ky's 10 s and a 30 s SDK default", () => {
    expect(TIMEOUT_LIMIT_MS).toBe(40_000)
    expect(check?.runs[0]?.limitMs).toBe(TIMEOUT_LIMIT_MS)
  })

  it('says how long a client took to give up', () => {
    expect(check?.judge(runs({ ended: 'error', ms: 10_240, message: 'TimeoutError: Request timed out' }))).toMatchObject({
      status: 'passed',
      reason: 'The client gave up after 10.2 s on an answer that never came.',
    })
  })

  it('tells a client that never gave up apart from one that gave up late', () => {
    const verdict = check?.judge(runs({ ended: 'limit', ms: 40_003 }))
    expect(verdict).toMatchObject({
      status: 'failed',
      reason: 'The client was still waiting on its one request after 40.0 s: it never gave up.',
    })
    // The check's own fix (a timeout per request), in no one language's terms.
    expect(verdict?.fix).toBeUndefined()
    expect(check?.fix).toBe('Give every request a timeout, and surface it to the caller when it passes.')
  })

  it("tells a client whose own timeouts fired, and that retried until the check's end, what it did and what to change", () => {
    expect(check?.judge(runs({ ended: 'limit', ms: 40_003 }, 4))).toMatchObject({
      status: 'failed',
      reason:
        "The client's own timeout fired and it sent the request again, 4 times in 40.0 s, without surfacing the timeout to its caller.",
      fix: 'Give the call as a whole a deadline, its retries included, and surface the timeout when it passes.',
    })
  })
})

describe('rate.stops-before-ban', () => {
  const check = CHECKS.find((one) => one.id === 'rate.stops-before-ban')
  const limited = (seq: number, code = 'rate_limited') =>
    ({
      seq,
      at: seq,
      durationMs: 0,
      method: 'GET',
      path: '/v1/pets',
      query: '',
      status: 429,
      code,
      responseHeaders: { 'retry-after': '21600' },
    }) as unknown as JournalEntry
  const runs = (outcome: TaskOutcome, entries: JournalEntry[]): RunEvidence[] => [
    { run: check?.runs[0] ?? { task: 'list-pets' }, outcome, entries },
  ]

  it('tells a client that waited out hours of Retry-After (no early retry) to surface the 429, not to retry less', () => {
    expect(check?.judge(runs({ ended: 'limit', ms: 20_000 }, [limited(1)]))).toMatchObject({
      status: 'failed',
      reason: 'The client was still waiting after 20.0 s for a Retry-After of 21600 s, the 429 not surfaced to its caller.',
      fix: 'Surface a 429 whose Retry-After is longer than the caller can wait (with that Retry-After), instead of waiting it out.',
    })
  })

  it('tells a client banned for early retries to wait the Retry-After', () => {
    const entries = [limited(1), limited(2), limited(3, 'key_temporarily_banned')]
    expect(check?.judge(runs({ ended: 'error', ms: 300, message: '429' }, entries))).toMatchObject({
      status: 'failed',
      reason: 'The key was banned at request #3: the client retried before a Retry-After of 21600 s had passed.',
      fix: 'Wait at least the Retry-After before retrying a 429, and surface it when that is longer than the caller can wait.',
    })
  })
})
