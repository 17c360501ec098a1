/**
 * Keys and routes: 401 on every operation without a valid key (the spec), and the decisions about the headers
 * of a 401, other paths and methods, the order of checks, HEAD and which requests count (a 404, a 401, a 400)
 * (docs/spec-decisions.md rows 9, 21, 24, 26, 46).
 */
import { optionPatch } from './config.js'
import { brief, rateHeaderNames, rateHeadersOf, UNUSED_ID } from './describe.js'
import { operations, probe, withoutValidKey } from './requests.js'
import { type Auth, type Check, type Exchange, type Observation, type RunContext, type Side, Skip } from './types.js'

/** A path under the base address that no operation has. */
const UNKNOWN_PATH = '/petstore-mock-verify/no-such-path'

async function refused(side: Side, context: RunContext, auth: Auth): Promise<Observation> {
  const seen: { id: string; answer: string }[] = []
  for (const operation of operations(context)) {
    seen.push({ id: operation.id, answer: brief(await withoutValidKey(side, context, auth, operation)) })
  }
  const pass = seen.every(({ answer }) => answer === '401 Error')
  const first = seen[0]?.answer
  const summary = seen.every(({ answer }) => answer === first)
    ? `${first} on ${seen.map(({ id }) => id).join(', ')}`
    : seen.map(({ id, answer }) => `${id}: ${answer}`).join('; ')
  return { summary, pass }
}

async function unauthenticatedHeaders(side: Side, context: RunContext): Promise<Observation> {
  const answer = await withoutValidKey(side, context, 'none', { method: 'GET', path: '/pets' })
  return { summary: `${brief(answer)} with ${rateHeaderNames(answer)}` }
}

async function head(side: Side): Promise<Observation> {
  const get = await probe(side)
  const answer = await side.send({ method: 'HEAD', path: '/pets?limit=1', auth: 'key' })
  const same = answer.status === get.status ? 'as GET' : `GET: ${get.status}`
  return { summary: `${answer.status} (${same}), ${answer.text === '' ? 'no body' : 'a body'}, ${rateHeaderNames(answer)}` }
}

async function wrongMethod(side: Side): Promise<Observation> {
  const answer = await side.send({ method: 'DELETE', path: `/pets/${UNUSED_ID}`, auth: 'key' })
  const methods = answer.headers.allow
    ?.toUpperCase()
    .split(/\s*,\s*/)
    .sort()
  return { summary: `${brief(answer)}, ${methods === undefined ? 'no Allow' : `Allow: ${methods.join(', ')}`}` }
}

const WINDOW_CHANGED = 'the rate-limit window changed between the requests: run verify again'

/**
 * Runs a counting sequence, and once more when the minute ended in the middle of it (the remaining counts of two
 * windows cannot be compared); the check's cost holds both runs.
 */
function inOneWindow(run: (side: Side) => Promise<Observation>): (side: Side) => Promise<Observation> {
  return (side) =>
    run(side).catch((error: unknown) => {
      if (error instanceof Skip && error.message === WINDOW_CHANGED) return run(side)
      throw error
    })
}

/** X-RateLimit-Remaining of three answers, skipped when one has none or the window changed between them. */
function remainingOf(side: Side, answers: readonly [Exchange, Exchange, Exchange]): [number, number, number] {
  const headers = answers.map(rateHeadersOf)
  if (headers.some((one) => one.remaining === undefined)) throw new Skip(`the ${side.name} sends no X-RateLimit-Remaining to count with`)
  if (new Set(headers.map((one) => one.reset)).size > 1) throw new Skip(WINDOW_CHANGED)
  return headers.map((one) => one.remaining) as [number, number, number]
}

const otherClients = (a: number, b: number, c: number) =>
  new Skip(`X-RateLimit-Remaining went ${a}, ${b}, ${c}: other clients used the key meanwhile`)

/** Remaining before and after a 404 and a 401 tell which of them count; the last request counts itself. */
async function counting(side: Side): Promise<Observation> {
  const before = await side.send({ path: '/pets?limit=1', auth: 'key' })
  const notFound = await side.send({ path: UNKNOWN_PATH, auth: 'key' })
  await side.send({ path: '/pets?limit=1', auth: 'none' })
  const after = await side.send({ path: '/pets?limit=1', auth: 'key' })
  const [a, b, c] = remainingOf(side, [before, notFound, after])
  if (c >= a) return { summary: `X-RateLimit-Remaining stays at ${a}: no request counts` }
  const notFoundCounts = a - b
  const unauthenticatedCounts = b - c - 1
  if (![0, 1].includes(notFoundCounts) || ![0, 1].includes(unauthenticatedCounts)) throw otherClients(a, b, c)
  return {
    summary: `a 404 ${notFoundCounts ? 'counts' : 'does not count'}; a 401 ${unauthenticatedCounts ? 'counts' : 'does not count'}`,
  }
}

/** GETs a service may answer 400: a limit outside 1..100 (the mock's 400, row 7), else a petId that is not an integer. */
const BAD_REQUESTS = ['/pets?limit=0', '/pets/abc'] as const

/** Remaining before a 400 (the answer just before it), on it and after it: does the 400 use quota? */
async function countingBadRequest(side: Side): Promise<Observation> {
  let previous = await side.send({ path: '/pets?limit=1', auth: 'key' })
  let bad: Exchange | undefined
  for (const path of BAD_REQUESTS) {
    const answer = await side.send({ path, auth: 'key' })
    if (answer.status === 400) {
      bad = answer
      break
    }
    previous = answer
  }
  if (!bad) throw new Skip(`the ${side.name} answers neither ${BAD_REQUESTS.join(' nor ')} with 400: no 400 to count`)
  const after = await side.send({ path: '/pets?limit=1', auth: 'key' })
  const [a, b, c] = remainingOf(side, [previous, bad, after])
  if (c >= a) return { summary: `X-RateLimit-Remaining stays at ${a}: no request counts` }
  const counts = a - b
  if (![0, 1].includes(counts) || b - c !== 1) throw otherClients(a, b, c)
  return { summary: counts ? 'a 400 counts (X-RateLimit-Remaining down by one)' : 'a 400 does not count (X-RateLimit-Remaining unchanged)' }
}

export const ROUTE_CHECKS: readonly Check[] = [
  {
    id: 'auth.missing-key',
    kind: 'spec',
    title: 'Every operation without a key answers 401',
    spec: 'Every operation requires a Bearer key; a missing key gets 401 with an Error ("Authentication" 1, 2)',
    cost: 4,
    run: (side, context) => refused(side, context, 'none'),
  },
  {
    id: 'auth.wrong-key',
    kind: 'spec',
    title: 'Every operation with a wrong key answers 401',
    spec: 'An invalid key gets 401 with an Error ("Authentication" 2)',
    cost: 4,
    run: (side, context) => refused(side, context, 'wrong'),
  },
  {
    id: 'rate.unauthenticated-headers',
    kind: 'decision',
    title: 'The rate-limit headers of a 401',
    spec: 'Every response carries X-RateLimit-* ("Limits"); a 401 has no key to count against. Decision row 26: the Free plan\'s minute, uncounted',
    cost: 0,
    run: unauthenticatedHeaders,
    candidates: () => [
      optionPatch({ rateLimit: { unauthenticatedHeaders: 'omit' } }),
      optionPatch({ rateLimit: { unauthenticatedHeaders: 'free-plan' } }),
    ],
  },
  {
    id: 'route.unknown-path',
    kind: 'decision',
    title: 'A path no operation has',
    spec: 'Other operations: not shown. Decision row 9: 404 with an Error',
    cost: 1,
    run: async (side) => ({ summary: brief(await side.send({ path: UNKNOWN_PATH, auth: 'key' })) }),
  },
  {
    id: 'route.order',
    kind: 'decision',
    title: 'A path no operation has, without a key',
    spec: 'Order of checks: not shown. Decision row 21: the key first (401), so a caller without a key learns nothing about paths',
    cost: 1,
    run: async (side) => ({ summary: brief(await side.send({ path: UNKNOWN_PATH, auth: 'none' })) }),
  },
  {
    id: 'route.wrong-method',
    kind: 'decision',
    title: 'Another method on a known path (DELETE of an id no pet has)',
    spec: 'Update or delete of animals: not shown. Decision row 9: 405 with an Error and Allow',
    needs: 'writes',
    cost: 1,
    run: wrongMethod,
  },
  {
    id: 'route.head',
    kind: 'decision',
    title: 'HEAD /pets',
    spec: 'Not shown. Decision row 46: wherever GET is, with its status and headers and no body',
    cost: 1,
    run: head,
  },
  {
    id: 'rate.counting',
    kind: 'decision',
    title: 'Which requests use quota (a 404, a 401)',
    spec: 'Not shown. Decision row 24: every request with a valid key counts, whatever its answer; a 401 does not',
    cost: 8,
    run: inOneWindow(counting),
  },
  {
    id: 'rate.counting-400',
    kind: 'decision',
    title: 'A request answered 400 uses quota',
    spec: 'Not shown. Decision row 24: every request with a valid key counts, a 400 (e.g. limit=0) too',
    cost: 8,
    run: inOneWindow(countingBadRequest),
  },
]
