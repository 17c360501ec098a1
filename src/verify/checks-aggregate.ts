/**
 * Rules of every answer, read from all the answers of the run (no requests of their own, so they come last):
 * the rate-limit headers, the Error body, JSON bodies.
 */
import { errorBodyProblem, rateHeadersOf } from './describe.js'
import type { Check, Exchange, Observation, Side } from './types.js'

/** "all 31 answers …", or how many broke the rule and the first one that did. */
function tally(
  side: Side,
  applies: (answer: Exchange) => boolean,
  problemOf: (answer: Exchange) => string | undefined,
  what: string,
): Observation {
  const answers = side.log.filter((answer) => answer.status !== 0 && applies(answer))
  if (answers.length === 0) return { summary: `no answers to read ${what} from`, pass: true }
  const bad = answers.map((answer) => ({ answer, problem: problemOf(answer) })).filter(({ problem }) => problem !== undefined)
  const [example] = bad
  if (!example) return { summary: `all ${answers.length} answers ${what}`, pass: true }
  const { answer, problem } = example
  return {
    summary: `${bad.length} of ${answers.length} answers do not, e.g. ${answer.method} ${answer.path.split('?')[0]} -> ${answer.status}: ${problem}`,
    pass: false,
  }
}

export const AGGREGATE_CHECKS: readonly Check[] = [
  {
    id: 'headers.rate-limit',
    kind: 'spec',
    title: 'Every answer to a valid key carries the rate-limit headers',
    spec: 'Every API response carries X-RateLimit-Limit and -Remaining (integers) and -Reset (a Unix timestamp) ("Limits", Rate limit headers)',
    cost: 0,
    run: async (side) =>
      tally(
        side,
        (answer) => (answer.auth === 'key' || answer.auth === 'free') && answer.status !== 401,
        (answer) => rateHeadersOf(answer).problems[0],
        'carry them',
      ),
  },
  {
    id: 'errors.body',
    kind: 'spec',
    title: 'Every error answer has the Error body',
    spec: 'Error responses carry an Error: code (string), message (string), status (integer, the HTTP status) ("Errors")',
    cost: 0,
    run: async (side) =>
      tally(
        side,
        (answer) => answer.status >= 400 && answer.method !== 'HEAD',
        (answer) => errorBodyProblem(answer),
        'with an error status have it',
      ),
  },
  {
    id: 'bodies.json',
    kind: 'spec',
    title: 'Every body is application/json',
    spec: 'All request and response bodies are application/json ("What the service does")',
    cost: 0,
    run: async (side) =>
      tally(
        side,
        (answer) => answer.text !== '',
        (answer) => {
          const type = answer.headers['content-type']
          if (!/^application\/json\s*(;|$)/i.test(type ?? '')) return `Content-Type ${type ?? 'missing'}`
          return answer.json === undefined ? 'the body is not JSON' : undefined
        },
        'with a body are JSON',
      ),
  },
]
