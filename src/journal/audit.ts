/**
 * The retry audit: did a client honour `Retry-After` and back off? Computed per key from the
 * journal, so it answers "does my SDK behave?" in one call.
 * @see ../shared/spec/pet-store-service.md "Exceeding the limit"
 */
import type { Plan } from '../core/types.js'
import type { JournalEntry } from './journal.js'

/** A 429 the key was sent. */
export interface RateLimitedAnswer {
  readonly seq: number
  readonly time: string
  readonly code: string | undefined
  /** When the key was told it may retry (ISO 8601). */
  readonly retryAt: string | undefined
}

/** A request sent before the `Retry-After` of an earlier 429 had passed. */
export interface RetryViolation {
  readonly seq: number
  readonly time: string
  /** How much too early, in ms. */
  readonly earlyByMs: number
  /** The 429 whose `Retry-After` it ignored. */
  readonly after: number
}

export interface KeyAudit {
  /** The key, redacted: plan and last 4 characters. */
  readonly key: string
  readonly plan: Plan | undefined
  readonly requests: number
  readonly rateLimited: readonly RateLimitedAnswer[]
  readonly violations: readonly RetryViolation[]
  /** For each run of retries after a 429 (until an answer other than 429), the gaps between requests, in ms. */
  readonly retryGapsMs: readonly (readonly number[])[]
  /** Whether the gaps grew in every run (a run of fewer than two gaps counts as growing). */
  readonly backoffGrew: boolean
  readonly banned: boolean
  /** No violations and no ban. */
  readonly ok: boolean
}

export interface AuditReport {
  /** Every key is ok. */
  readonly ok: boolean
  readonly keys: readonly KeyAudit[]
  /** One line per key that is not ok, for assertion messages. */
  readonly problems: readonly string[]
}

/**
 * Audits the retry behaviour of each key in `entries` (oldest first).
 *
 * @example
 * const report = auditJournal(petStore.journal.all())
 * report.ok // false when a key retried early or was banned
 */
export function auditJournal(entries: readonly JournalEntry[]): AuditReport {
  const byKey = new Map<string, JournalEntry[]>()
  for (const entry of entries) {
    if (entry.key === undefined) continue
    const list = byKey.get(entry.key) ?? []
    list.push(entry)
    byKey.set(entry.key, list)
  }
  const keys: KeyAudit[] = []
  for (const [key, unordered] of byKey) {
    // Judge in the order requests arrived, which is the order the client sent them.
    const list = [...unordered].sort((a, b) => a.arrival - b.arrival)
    const rateLimited: RateLimitedAnswer[] = []
    const violations: RetryViolation[] = []
    const retryGapsMs: number[][] = []
    /** 429s whose Retry-After has not passed yet. */
    let open: { seq: number; arrival: number; delivered: number | undefined; retryAt: number }[] = []
    let streak: { last: number; gaps: number[] } | undefined
    let banned = false
    for (const entry of list) {
      open = open.filter((answer) => entry.at < answer.retryAt)
      // Only a 429 the client had already received makes an early request a violation.
      const ignored = open.filter((answer) => entry.arrival >= (answer.delivered ?? answer.arrival + 1))
      const last = ignored[ignored.length - 1]
      if (last) violations.push({ seq: entry.seq, time: entry.time, earlyByMs: last.retryAt - entry.at, after: last.seq })
      if (streak) {
        streak.gaps.push(entry.at - streak.last)
        streak.last = entry.at
      }
      if (entry.status === 429) {
        const retryAt = entry.rateLimit.retryAt
        rateLimited.push({
          seq: entry.seq,
          time: entry.time,
          code: entry.code,
          retryAt: retryAt === undefined ? undefined : new Date(retryAt).toISOString(),
        })
        if (entry.code === 'key_temporarily_banned') banned = true
        if (retryAt !== undefined) open.push({ seq: entry.seq, arrival: entry.arrival, delivered: entry.delivered, retryAt })
        streak ??= { last: entry.at, gaps: [] }
      } else {
        if (streak) retryGapsMs.push(streak.gaps)
        streak = undefined
      }
    }
    if (streak && streak.gaps.length > 0) retryGapsMs.push(streak.gaps)
    const backoffGrew = retryGapsMs.every((gaps) => gaps.every((gap, i) => i === 0 || gap > (gaps[i - 1] as number)))
    keys.push({
      key,
      plan: list[0]?.plan,
      requests: list.length,
      rateLimited,
      violations,
      retryGapsMs,
      backoffGrew,
      banned,
      ok: violations.length === 0 && !banned,
    })
  }
  const problems = keys
    .filter((k) => !k.ok)
    .map((k) => {
      const parts: string[] = []
      if (k.violations.length > 0) {
        const first = k.violations[0] as RetryViolation
        parts.push(
          `sent ${k.violations.length} request(s) before Retry-After had passed (first: #${first.seq}, ${first.earlyByMs} ms early after the 429 #${first.after})`,
        )
      }
      if (k.banned) parts.push('was temporarily banned')
      return `key ${k.key} ${parts.join(' and ')}`
    })
  return { ok: problems.length === 0, keys, problems }
}
