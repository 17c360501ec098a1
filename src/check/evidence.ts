/**
 * What a verdict shows: the requests of a run, one line each, with the header that set the rule, and the small
 * judgements several checks share.
 */
import type { JournalEntry } from '../journal/journal.js'
import type { CheckStatus, RunEvidence, TaskOutcome, Verdict } from './types.js'

/** When the request arrived, in ms of the world's clock (the journal records when its answer was ready). */
export const sentAt = (entry: JournalEntry): number => entry.at - entry.durationMs

/** `+1.204 s GET /v1/pets -> 429 (retry-after: 2)`: times from the run's first request. */
export function lineOf(entry: JournalEntry, first: number, header?: string): string {
  const shown = header === undefined ? undefined : entry.responseHeaders[header]
  const seconds = ((sentAt(entry) - first) / 1000).toFixed(3)
  const status = entry.fault === 'network-error' || entry.fault === 'timeout' ? entry.fault : String(entry.status)
  return `+${seconds} s ${entry.method} ${entry.path}${entry.query ? `?${entry.query}` : ''} -> ${status}${shown === undefined ? '' : ` (${header}: ${shown})`}`
}

/** Every request of a run as evidence lines, labelled when the check makes several runs. */
export function linesOf(evidence: RunEvidence, header?: string): string[] {
  const first = evidence.entries[0] === undefined ? 0 : sentAt(evidence.entries[0])
  const label = evidence.run.label ? `${evidence.run.label}: ` : ''
  const lines = evidence.entries.map((entry) => `${label}${lineOf(entry, first, header)}`)
  return [...lines, `${label}the task ${outcomeText(evidence.outcome)}`]
}

export function outcomeText(outcome: TaskOutcome): string {
  const seconds = `${(outcome.ms / 1000).toFixed(1)} s`
  if (outcome.ended === 'result') return `returned a result after ${seconds}`
  if (outcome.ended === 'error') return `surfaced an error after ${seconds}${outcome.message ? `: ${outcome.message}` : ''}`
  return `was still running at the check's limit (${seconds}) and was stopped`
}

export function verdict(status: CheckStatus, reason: string, evidence: readonly RunEvidence[], header?: string, fix?: string): Verdict {
  const lines = evidence.flatMap((run) => linesOf(run, header))
  return fix === undefined ? { status, reason, evidence: lines } : { status, reason, evidence: lines, fix }
}

/**
 * The rule of `auth.no-retry-401`, `errors.no-retry-4xx` and `lifecycle.after-sunset`: the first answer had the status
 * the run provokes, the client sent nothing more and surfaced it as an error.
 */
export function surfacedOnce(runs: readonly RunEvidence[], what: string): Verdict {
  for (const run of runs) {
    const status = run.run.provokes
    const [first, ...rest] = run.entries
    if (first?.status !== status) {
      const got = first === undefined ? 'no request' : `${first.status}`
      return verdict('not-applicable', `${run.run.label ?? 'The run'} did not meet a ${status} (got ${got}).`, runs)
    }
    if (rest.length > 0) return verdict('failed', `${what} was sent ${rest.length + 1} times: a ${status} is final.`, runs)
    if (run.outcome.ended !== 'error') {
      const ended = run.outcome.ended === 'result' ? 'returned a result' : 'never ended'
      return verdict('failed', `The SDK ${ended} for a ${status}: it must surface it as an error.`, runs)
    }
  }
  const statuses = runs.map((run) => run.run.provokes).join(' and ')
  return verdict('passed', `The ${statuses} ${runs.length > 1 ? 'were each' : 'was'} surfaced as an error after one request.`, runs)
}
