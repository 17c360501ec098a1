/**
 * The client rules (./client-rules.ts) that any traffic in a journal can be judged on (`judgedBy` names `journal`),
 * read from the retry audit and the journal: the report card provokes its rules in worlds of its own, this reads what
 * the session's client happened to meet. A rule the journal gives no occasion for is `not-applicable`. The MCP
 * `audit` tool answers these beside the audit they are read from.
 * @see ../shared/spec/pet-store-service.md "Errors", "Exceeding the limit"
 */
import type { AuditReport } from './audit.js'
import { type ClientRuleId, clientRule } from './client-rules.js'

/** What a check needs of a journal entry (the admin API's and the MCP tool's journal lines have it). */
export interface JournalLine {
  readonly seq: number
  readonly method: string
  readonly path: string
  readonly status: number
  readonly key?: string | undefined
}

export interface JournalCheck {
  readonly id: ClientRuleId
  readonly status: 'passed' | 'failed' | 'not-applicable'
  readonly reason: string
  /** The rule, as ./client-rules.ts states it. */
  readonly rule: string
}

const check = (id: ClientRuleId, status: JournalCheck['status'], reason: string): JournalCheck => ({
  id,
  status,
  reason,
  rule: clientRule(id).rule,
})

/** Whether any request came after `entry` with the same key, method and path (a retry of it). */
function retried(entries: readonly JournalLine[], index: number): boolean {
  const entry = entries[index] as JournalLine
  return entries.slice(index + 1).some((next) => next.key === entry.key && next.method === entry.method && next.path === entry.path)
}

/** A 4xx other than 429 sent again unchanged: the spec's errors other than 429 are final. */
function finalErrors(entries: readonly JournalLine[], status: (value: number) => boolean, id: ClientRuleId, what: string): JournalCheck {
  const met = entries.map((entry, index) => ({ entry, index })).filter(({ entry }) => status(entry.status))
  if (met.length === 0) return check(id, 'not-applicable', `No ${what} in the journal.`)
  const again = met.find(({ index }) => retried(entries, index))
  if (again)
    return check(
      id,
      'failed',
      `Request #${again.entry.seq} (${again.entry.method} ${again.entry.path} -> ${again.entry.status}) was sent again: a ${what} is final.`,
    )
  return check(id, 'passed', `Each ${what} (${met.length}) was not retried.`)
}

/**
 * @example
 * journalChecks(world.audit(), lines) // [{ id: 'rate.retry-after-seconds', status: 'passed', … }, …]
 */
export function journalChecks(audit: AuditReport, entries: readonly JournalLine[]): JournalCheck[] {
  const limited = audit.keys.filter((key) => key.rateLimited.length > 0)
  const early = limited.flatMap((key) => key.violations.map((violation) => ({ key: key.key, ...violation })))
  const runs = limited.filter((key) => key.retryGapsMs.some((gaps) => gaps.length >= 2))
  const postRetried = entries.findIndex(
    (entry, index) => entry.method === 'POST' && (entry.status >= 500 || entry.status === 0) && retried(entries, index),
  )
  return [
    limited.length === 0
      ? check('rate.retry-after-seconds', 'not-applicable', 'No 429 in the journal.')
      : early[0]
        ? check(
            'rate.retry-after-seconds',
            'failed',
            `Request #${early[0].seq} (${early[0].key}) came ${early[0].earlyByMs} ms before the Retry-After of #${early[0].after}.`,
          )
        : check('rate.retry-after-seconds', 'passed', `Every retry after a 429 waited for its Retry-After (${limited.length} key(s)).`),
    audit.keys.some((key) => key.banned)
      ? check(
          'rate.stops-before-ban',
          'failed',
          `Banned: ${audit.keys
            .filter((key) => key.banned)
            .map((key) => key.key)
            .join(', ')}.`,
        )
      : check(
          'rate.stops-before-ban',
          limited.length === 0 ? 'not-applicable' : 'passed',
          limited.length === 0 ? 'No 429 in the journal.' : 'No key was banned.',
        ),
    runs.length === 0
      ? check('rate.backoff', 'not-applicable', 'No run of two or more retries after a 429.')
      : runs.every((key) => key.backoffGrew)
        ? check('rate.backoff', 'passed', 'The waits between retries grew in every run.')
        : check(
            'rate.backoff',
            'failed',
            `The waits did not grow for ${runs
              .filter((key) => !key.backoffGrew)
              .map((key) => key.key)
              .join(', ')}.`,
          ),
    finalErrors(entries, (status) => status === 401, 'auth.no-retry-401', '401'),
    finalErrors(
      entries,
      (status) => status >= 400 && status < 500 && status !== 401 && status !== 429,
      'errors.no-retry-4xx',
      '4xx other than 401 and 429',
    ),
    !entries.some((entry) => entry.method === 'POST' && (entry.status >= 500 || entry.status === 0))
      ? check('retry.idempotent-only', 'not-applicable', 'No POST failed with a 5xx or without an answer.')
      : postRetried === -1
        ? check('retry.idempotent-only', 'passed', 'No POST that failed with a 5xx or no answer was sent again.')
        : check(
            'retry.idempotent-only',
            'failed',
            `POST #${(entries[postRetried] as JournalLine).seq} failed and was sent again: POST is not idempotent.`,
          ),
  ]
}
