/**
 * The checks of `petstore-client-checks/2`: each a rule from the spec's failure rules or an RFC (or, at level
 * `recommended`, advice with its source), the worlds that provoke it, and how the journal of those worlds judges the
 * client. Every run has its own world, so the checks are
 * independent; each world runs on real time (the client's own clock reads `Retry-After` dates and waits for real).
 * @see ../shared/spec/pet-store-service.md "Authentication", "Errors", "Exceeding the limit", "Versioning"
 */
import { auditJournal } from '../journal/audit.js'
import { clientRule } from '../journal/client-rules.js'
import { SUNSET } from '../spec.js'
import { BACKOFF_RUNS, judgeGrowth, judgeJitter } from './back-off.js'
import { surfacedOnce, verdict } from './evidence.js'
import type { CheckDefinition, CheckRun, RunEvidence, Verdict } from './types.js'

/** The key the card gives the client (plan Pro), long enough that the journal shows its last 4 characters. */
export const CARD_KEY = 'petstore-check-key-0001'
/** A key no world of the card knows: every request with it is answered 401. */
const UNKNOWN_KEY = 'petstore-check-unknown-0002'

/** The card's key starting with these counters (`keys.start` of a scenario). */
const keysWith = (start: Record<string, unknown>) => ({ start: { [CARD_KEY]: start } })

/** The key starts banned for 2 s: its first request is a 429 whose `Retry-After` passes within the check. */
const banned = (format: 'seconds' | 'http-date'): CheckRun => ({
  task: 'list-pets',
  scenario: { keys: keysWith({ bannedForSeconds: 2 }) },
  options: { rateLimit: { retryAfterFormat: format } },
  provokes: 429,
})

/** The rule of both `Retry-After` forms: after the 429, nothing before the time it names. */
function honoursRetryAfter(runs: readonly RunEvidence[]): Verdict {
  const [run] = runs
  if (run?.entries[0]?.status !== 429) return verdict('not-applicable', 'The first request was not answered 429.', runs, 'retry-after')
  const audit = auditJournal(run.entries).keys[0]
  const early = audit?.violations[0]
  if (early) {
    const seconds = (early.earlyByMs / 1000).toFixed(3)
    return verdict(
      'failed',
      `Request #${early.seq} came ${seconds} s before the Retry-After of #${early.after} had passed.`,
      runs,
      'retry-after',
    )
  }
  const retried = run.entries.length > 1 ? 'retried only after it' : 'surfaced the 429 without retrying'
  return verdict('passed', `The client ${retried}.`, runs, 'retry-after')
}

function stopsBeforeBan(runs: readonly RunEvidence[]): Verdict {
  const [run] = runs
  const first = run?.entries[0]
  if (run === undefined || first?.status !== 429)
    return verdict('not-applicable', 'The first request was not answered 429.', runs, 'retry-after')
  const wait = `a Retry-After of ${first.responseHeaders['retry-after'] ?? '(none)'} s`
  const ban = run.entries.find((entry) => entry.code === 'key_temporarily_banned')
  if (ban) {
    const early = `The key was banned at request #${ban.seq}: the client retried before ${wait} had passed.`
    return verdict(
      'failed',
      early,
      runs,
      'retry-after',
      'Wait at least the Retry-After before retrying a 429, and surface it when that is longer than the caller can wait.',
    )
  }
  if (run.outcome.ended === 'limit') {
    // Not an early retry: the client waited (or slept) through the whole check. The rule's usual fix would mislead.
    const waited = `The client was still waiting after ${(run.outcome.ms / 1000).toFixed(1)} s for ${wait}, the 429 not surfaced to its caller.`
    return verdict(
      'failed',
      waited,
      runs,
      'retry-after',
      'Surface a 429 whose Retry-After is longer than the caller can wait (with that Retry-After), instead of waiting it out.',
    )
  }
  if (run.outcome.ended === 'result') return verdict('failed', 'The SDK returned a result for a 429.', runs, 'retry-after')
  return verdict('passed', `The client surfaced the 429 after ${run.entries.length} request(s), unbanned.`, runs, 'retry-after')
}

function postSentOnce(runs: readonly RunEvidence[]): Verdict {
  const again = runs.find((run) => run.entries.filter((entry) => entry.method === 'POST').length > 1)
  if (again) return verdict('failed', `${again.run.label}: the POST was sent again; a create is not idempotent.`, runs)
  if (runs.some((run) => run.entries.length === 0)) return verdict('not-applicable', 'A run sent no request.', runs)
  return verdict('passed', 'Each POST that met a failure was sent once.', runs)
}

/**
 * Room for a common default timeout to show that it gives up: ky's 10 s, the 30 s of many SDKs. Only a client that
 * waits this long makes the check (and the card) take this long.
 */
export const TIMEOUT_LIMIT_MS = 40_000

/**
 * Says "gave up after N s" apart from "never gave up", and a client whose own timeout fired (it sent the request
 * again) apart from one still waiting on its first request: each needs a different change.
 */
function givesUp(runs: readonly RunEvidence[]): Verdict {
  const [run] = runs
  if (!run || run.entries.length === 0) return verdict('not-applicable', 'The client sent no request.', runs)
  const seconds = `${(run.outcome.ms / 1000).toFixed(1)} s`
  if (run.outcome.ended !== 'limit') return verdict('passed', `The client gave up after ${seconds} on an answer that never came.`, runs)
  const sent = run.entries.length
  if (sent > 1) {
    const retried = `The client's own timeout fired and it sent the request again, ${sent} times in ${seconds}, without surfacing the timeout to its caller.`
    return verdict(
      'failed',
      retried,
      runs,
      undefined,
      'Give the call as a whole a deadline, its retries included, and surface the timeout when it passes.',
    )
  }
  return verdict('failed', `The client was still waiting on its one request after ${seconds}: it never gave up.`, runs)
}

/** A day after the sunset of `GET /pets/{petId}`. */
const SUNSET_CLOCK = new Date(Date.parse(SUNSET) + 86_400_000).toISOString()

export const CHECKS: readonly CheckDefinition[] = [
  {
    ...clientRule('auth.bearer'),
    runs: [{ task: 'list-pets', provokes: 200 }],
    judge(runs) {
      const run = runs[0] as RunEvidence
      if (run.entries.length === 0) return verdict('not-applicable', 'The client sent no request.', runs)
      const hint = CARD_KEY.slice(-4)
      for (const entry of run.entries) {
        const { authorization, cookie, ...others } = entry.requestHeaders
        if (!authorization || !new RegExp(`^bearer …${hint}$`, 'i').test(authorization)) {
          return verdict('failed', `Request #${entry.seq} sent Authorization: ${authorization ?? '(none)'}.`, runs)
        }
        const elsewhere = [cookie ? 'a cookie' : '', entry.query.includes(CARD_KEY) ? 'the query' : '']
          // The journal keeps only the last 4 characters of a credential header (Proxy-Authorization): matched by them.
          .concat(
            Object.entries(others).flatMap(([name, value]) =>
              value.includes(CARD_KEY) || value.endsWith(`…${hint}`) ? [`the ${name} header`] : [],
            ),
          )
          .filter(Boolean)
        if (elsewhere.length > 0) return verdict('failed', `Request #${entry.seq} also sent a credential in ${elsewhere.join(', ')}.`, runs)
      }
      if (run.outcome.ended !== 'result') return verdict('failed', 'The SDK did not list pets with a valid key.', runs)
      return verdict('passed', 'Every request sent the key as a Bearer token, and nowhere else.', runs)
    },
  },
  {
    ...clientRule('auth.no-retry-401'),
    runs: [{ task: 'list-pets', key: UNKNOWN_KEY, provokes: 401 }],
    judge: (runs) => surfacedOnce(runs, 'The request with an unknown key'),
  },
  {
    ...clientRule('errors.no-retry-4xx'),
    runs: [
      { label: '404', task: 'get-pet', petId: '999999999', provokes: 404 },
      // Names of 2 or more characters are refused in this world: the client's own body meets a 400.
      { label: '400', task: 'create-pet', options: { maxNameLength: 1 }, provokes: 400 },
    ],
    judge: (runs) => surfacedOnce(runs, 'The request'),
  },
  {
    ...clientRule('rate.retry-after-seconds'),
    runs: [banned('seconds')],
    judge: honoursRetryAfter,
  },
  {
    ...clientRule('rate.retry-after-date'),
    runs: [banned('http-date')],
    judge: honoursRetryAfter,
  },
  {
    ...clientRule('rate.stops-before-ban'),
    runs: [{ task: 'list-pets', scenario: { keys: keysWith({ dayUsed: 'all' }) }, provokes: 429 }],
    judge: stopsBeforeBan,
  },
  {
    ...clientRule('retry.backoff'),
    runs: BACKOFF_RUNS,
    judge: judgeGrowth,
  },
  {
    ...clientRule('retry.jitter'),
    // The same runs as retry.backoff: they run once and both checks judge them (run.ts).
    runs: BACKOFF_RUNS,
    judge: judgeJitter,
  },
  {
    ...clientRule('retry.idempotent-only'),
    runs: (['network-error', 'status'] as const).map((type) => ({
      label: type === 'status' ? '503' : 'reset',
      task: 'create-pet' as const,
      scenario: {
        faults: [{ chaos: true, when: { first: 1 }, fault: type === 'status' ? { type, status: 503 as const } : { type } }],
      },
    })),
    judge: postSentOnce,
  },
  {
    ...clientRule('timeout.gives-up'),
    runs: [{ task: 'list-pets', scenario: { faults: [{ chaos: true, fault: { type: 'timeout' } }] }, limitMs: TIMEOUT_LIMIT_MS }],
    judge: givesUp,
  },
  {
    ...clientRule('lifecycle.after-sunset'),
    runs: [{ task: 'get-pet', petId: '1', scenario: { clock: { start: SUNSET_CLOCK, frozen: true } }, provokes: 410 }],
    judge: (runs) => surfacedOnce(runs, 'The request after the sunset'),
  },
]
