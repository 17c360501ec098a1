/**
 * The free key's quota (`--free-key KEY --allow-quota`): the 429, its `Retry-After` and headers, the kind of
 * window, waiting `Retry-After` out, and (only with `--allow-ban`) the ban for retrying early; last, that the 429s
 * used no quota (docs/spec-decisions.md rows 22, 24, 27, 28, 29, 30, 31).
 */
import { PLAN_LIMITS } from '../spec.js'
import { optionPatch } from './config.js'
import { brief, rateHeadersOf, retryAfterFormat } from './describe.js'
import { retryWaitMs } from './side.js'
import { type Check, type Exchange, type Observation, type Side, Skip } from './types.js'

const FREE = PLAN_LIMITS.free
/** Early requests sent at most while looking for a ban. */
const MAX_EARLY = 10

interface QuotaRun {
  /** Requests sent, the 429 included. */
  readonly sent: number
  readonly first: Exchange
  /** The first 429, if one came. */
  readonly limited?: Exchange
  /** The key was limited before the run began. */
  readonly already: boolean
}

const listOne = (side: Side, early = false) => side.send({ path: '/pets?limit=1', auth: 'free', raw: true, early })

/** Sends the free key's requests until a 429 (its remaining quota and a few more, one window roll-over allowed). */
async function exhaust(side: Side): Promise<QuotaRun> {
  const first = await listOne(side)
  if (first.status === 429) {
    const waitMs = retryWaitMs(first)
    // A ban (or a used-up day) says nothing about the minute window: try again when the key is free.
    if (waitMs > 61_000)
      throw new Skip(
        `the free key is already limited for ${Math.ceil(waitMs / 1000)} s (a ban, or its day used up): run verify again when it is free`,
      )
    return { sent: 1, first, limited: first, already: true }
  }
  if (first.status !== 200) throw new Skip(`the free key's first request got ${brief(first)}: check --free-key`)
  const start = rateHeadersOf(first)
  const remaining = start.remaining ?? FREE.perMinute
  if (remaining + 1 > side.left())
    throw new Skip(`reaching the limit takes ${remaining + 1} more requests, ${side.left()} left in the budget (--max-requests)`)
  let cap = remaining + 5
  let reset = start.reset
  let rolled = false
  let sent = 1
  for (let i = 0; i < cap; i++) {
    const answer = await listOne(side)
    sent += 1
    if (answer.status === 429) return { sent, first, limited: answer, already: false }
    const now = rateHeadersOf(answer)
    // A fixed window that ends mid-run starts again: allow one roll-over.
    if (!rolled && now.reset !== undefined && reset !== undefined && now.reset > reset) {
      rolled = true
      reset = now.reset
      cap += (now.remaining ?? 0) + 1
    }
  }
  return { sent, first, already: false }
}

const quota = (side: Side): Promise<QuotaRun> => side.once('quota', () => exhaust(side))

async function limitedAnswer(side: Side): Promise<Exchange> {
  const run = await quota(side)
  if (!run.limited) throw new Skip(`no 429 after ${run.sent} requests of the free key`)
  return run.limited
}

async function exceeded(side: Side): Promise<Observation> {
  const run = await quota(side)
  const limit = rateHeadersOf(run.first).limit
  const plan = limit === undefined || limit === FREE.perMinute || limit === FREE.perDay
  const shown =
    limit === undefined ? '' : ` (X-RateLimit-Limit ${limit}${plan ? '' : `: not the Free plan's ${FREE.perMinute} per minute`})`
  if (!run.limited) return { summary: `no 429 after ${run.sent} requests${shown}`, pass: false }
  const when = run.already ? 'at once (the key was already limited)' : `after ${run.sent - 1} requests`
  return { summary: `429 ${when}${shown}`, pass: plan }
}

async function answerOf429(side: Side): Promise<Observation> {
  const answer = await limitedAnswer(side)
  const headers = rateHeadersOf(answer)
  const retryAt = answer.at + retryWaitMs(answer)
  const reset =
    headers.reset === undefined
      ? 'no X-RateLimit-Reset'
      : Math.abs(headers.reset * 1000 - retryAt) <= 1500
        ? 'Reset at the Retry-After time'
        : 'Reset not at the Retry-After time'
  return { summary: `${brief(answer)}; X-RateLimit-Remaining: ${headers.remaining ?? 'none'}; ${reset}` }
}

async function window(side: Side): Promise<Observation> {
  const answer = await limitedAnswer(side)
  const reset = rateHeadersOf(answer).reset
  if (reset === undefined) return { summary: 'no X-RateLimit-Reset to tell' }
  const ahead = reset - answer.at / 1000
  if (reset % 86_400 === 0 && ahead > 60) return { summary: 'the UTC day (the day is used up)' }
  if (reset % 60 === 0 && ahead <= 60) return { summary: 'a fixed UTC minute (it resets on the minute)' }
  return { summary: `it resets ${Math.round(ahead)} s after the 429, not on a UTC minute: not a fixed UTC window` }
}

/** The free key's first request after the 429: the side's gate waits until Retry-After has passed (or skips, over --max-wait). */
const afterRetry = (side: Side): Promise<Exchange> => side.once('after-retry', () => listOne(side))

async function honoured(side: Side): Promise<Observation> {
  const limited = await limitedAnswer(side)
  const waitMs = Math.max(0, side.retryAt('free') - side.now())
  const answer = await afterRetry(side)
  const waited = `${Math.ceil(waitMs / 1000)} s (Retry-After ${limited.headers['retry-after'] ?? 'missing'})`
  return {
    summary: answer.status === 200 ? `200 after waiting ${waited}` : `${brief(answer)} after waiting ${waited}`,
    pass: answer.status === 200,
  }
}

/** Every 429 of the free key says Remaining 0, and the next window counts only its own request: 429s use no quota. */
async function uncounted(side: Side): Promise<Observation> {
  // Only read what rate.retry-after-honoured sent: waiting Retry-After out is that check's (and --max-wait's) call.
  const next = await side.once<Exchange>('after-retry', () => Promise.reject(new Skip('no request was sent after Retry-After')))
  const run = await quota(side)
  const limit = rateHeadersOf(run.first).limit
  const headers = rateHeadersOf(next)
  if (next.status !== 200 || headers.remaining === undefined || headers.limit === undefined)
    throw new Skip(
      `the request after Retry-After got ${brief(next)}${next.status === 200 ? ' without X-RateLimit-Limit and -Remaining' : ''}`,
    )
  if (headers.limit !== limit) throw new Skip(`after Retry-After the headers report another window (X-RateLimit-Limit ${headers.limit})`)
  const zero = side.log
    .filter((answer) => answer.auth === 'free' && answer.status === 429)
    .every((answer) => answer.headers['x-ratelimit-remaining']?.trim() === '0')
  const counted = headers.limit - headers.remaining
  return {
    summary: `${zero ? 'every 429 says' : 'not every 429 says'} X-RateLimit-Remaining 0; after Retry-After, ${
      counted === 1 ? 'only that request is counted' : `${counted} requests are counted, not only that one`
    }`,
  }
}

const duration = (seconds: number) =>
  seconds >= 120 && Math.abs(seconds - Math.round(seconds / 60) * 60) <= 2 ? `${Math.round(seconds / 60)} min` : `${seconds} s`

async function ban(side: Side): Promise<Observation> {
  await quota(side)
  if (side.retryAt('free') <= side.now()) {
    const again = await exhaust(side)
    if (!again.limited) throw new Skip(`no 429 to retry early after (${again.sent} requests)`)
  }
  const windowEnd = side.retryAt('free')
  for (let n = 1; n <= MAX_EARLY; n++) {
    const answer = await listOne(side, true)
    if (answer.status !== 429) return { summary: `${brief(answer)} at early request ${n}: the limit let it through` }
    const until = answer.at + retryWaitMs(answer)
    if (until - windowEnd > 60_000) {
      const seconds = Math.round((until - answer.at) / 1000)
      const minutes = duration(seconds).endsWith('min') ? Math.round(seconds / 60) * 60 : seconds
      return { summary: `banned at early request ${n}, for ${duration(seconds)}`, facts: { after: n, seconds: minutes } }
    }
  }
  return { summary: `no ban after ${MAX_EARLY} early requests`, facts: {} }
}

export const QUOTA_CHECKS: readonly Check[] = [
  {
    id: 'rate.limit-exceeded',
    kind: 'spec',
    title: 'The free key over its limit gets 429',
    spec: 'Free plan: 60 requests per minute, 1,000 per day; a request over the limit receives 429 ("Limits")',
    needs: 'quota',
    cost: FREE.perMinute + 2,
    run: exceeded,
  },
  {
    id: 'rate.retry-after',
    kind: 'spec',
    title: 'The 429 says when to retry',
    spec: 'The client retries after the time indicated by the Retry-After header ("Exceeding the limit" 2)',
    needs: 'quota',
    cost: 0,
    run: async (side) => {
      const format = retryAfterFormat((await limitedAnswer(side)).headers['retry-after'])
      return { summary: format, pass: format.endsWith('delta-seconds') || format.endsWith('HTTP-date') }
    },
  },
  {
    id: 'rate.retry-after-format',
    kind: 'decision',
    title: 'The format of Retry-After',
    spec: 'Format and unit of Retry-After: not shown. Decision row 29: whole seconds',
    needs: 'quota',
    cost: 0,
    run: async (side) => ({ summary: retryAfterFormat((await limitedAnswer(side)).headers['retry-after']) }),
    candidates: () => [
      optionPatch({ rateLimit: { retryAfterFormat: 'http-date' } }),
      optionPatch({ rateLimit: { retryAfterFormat: 'seconds' } }),
    ],
  },
  {
    id: 'rate.429-answer',
    kind: 'decision',
    title: 'The body and headers of a 429',
    spec: 'Body of the 429: not shown. Decisions rows 27, 28: an Error, X-RateLimit-Remaining 0, Reset when Retry-After ends',
    needs: 'quota',
    cost: 0,
    run: answerOf429,
  },
  {
    id: 'rate.window',
    kind: 'decision',
    title: 'The kind of window',
    spec: 'Requests per minute and per day; the kind of window: not shown. Decision row 22: fixed UTC minute and UTC day',
    needs: 'quota',
    cost: 0,
    run: window,
  },
  {
    id: 'rate.retry-after-honoured',
    kind: 'spec',
    title: 'After waiting Retry-After, the key is served again',
    spec: 'The client retries after the time indicated by Retry-After ("Exceeding the limit" 2)',
    needs: 'quota',
    cost: 1,
    run: honoured,
  },
  {
    id: 'rate.ban',
    kind: 'decision',
    title: 'Retrying before Retry-After: the temporary ban',
    spec: 'Repeated requests after a 429 "may lead to a temporary ban"; when and how long: not shown. Decision rows 30, 31: the 5th early request, 15 minutes',
    needs: 'ban',
    cost: FREE.perMinute + 2 + MAX_EARLY,
    run: ban,
    candidates: (target) => {
      const { after, seconds } = (target.facts ?? {}) as { after?: number; seconds?: number }
      if (after === undefined || seconds === undefined)
        return [optionPatch({ rateLimit: { banAfterEarlyRetries: 1_000_000 } }, ' (no ban in practice)')]
      return [optionPatch({ rateLimit: { banAfterEarlyRetries: after, banDurationSeconds: seconds } })]
    },
  },
  {
    id: 'rate.429-uncounted',
    kind: 'decision',
    title: 'A request answered 429 uses no quota',
    spec: 'Not shown. Decision row 24: a 429 uses no quota (Remaining stays 0; the next window counts only its own requests)',
    needs: 'quota',
    cost: 0,
    run: uncounted,
  },
]
