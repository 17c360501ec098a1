/**
 * The MCP tools of time, the journal and the whole state. Each does what one admin request does (docs/mcp.md).
 * @see ../shared/spec/pet-store-service.md "Rate limits by plan", "Exceeding the limit", "Versioning"
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import type { MockAdmin } from '../admin/operations.js'
import { journalChecks } from '../journal/client-checks.js'
import { DAY_MS, MINUTE_MS, SUNSET } from '../spec.js'
import { type JournalLine, lineOf } from './journal-lines.js'
import { answer, durationSeconds, guarded } from './results.js'
import { session } from './tools.js'

/** The journal entries a read gives at most: a page an agent can read whole. */
const JOURNAL_MAX = 200
/** The largest state `export_state` answers whole; beyond, GET /__mock/state streams it. */
const STATE_MAX_CHARS = 2 * 1024 * 1024

/** The moment `to` names, from the clock's `now` (ms). */
function targetOf(to: string, now: number): number {
  if (to === 'sunset') return Date.parse(SUNSET)
  if (to === 'next-minute') return now - (now % MINUTE_MS) + MINUTE_MS
  if (to === 'next-day') return now - (now % DAY_MS) + DAY_MS
  const at = /^\d{4}-\d{2}-\d{2}T/.test(to) ? Date.parse(to) : Number.NaN
  if (Number.isNaN(at))
    throw new Error(
      `"to" must be "sunset", "next-minute", "next-day" or an ISO 8601 time such as 2030-12-05T00:00:00Z; got ${JSON.stringify(to)}.`,
    )
  return at
}

/** Registers advance_clock. */
export function addClockTools(server: McpServer, admin: MockAdmin): void {
  server.registerTool(
    'advance_clock',
    {
      description:
        'Moves the world\'s clock, frozen or running, by a duration or to a moment: "next-minute" or "next-day" ends the current rate-limit window (quotas refill, Retry-After passes), "sunset" reaches the removal of the deprecated GET /pets/{petId} (2030-12-05, then 410 Gone). Spec: "Rate limits by plan", "Exceeding the limit", "Versioning" (3). Same as POST /__mock/clock {"advanceSeconds": N}, N computed from the clock for "to".',
      inputSchema: {
        by: z.union([z.number(), z.string()]).optional().describe('A duration: seconds, or "90s", "15m", "2h", "1d", "500ms", "PT1M"'),
        to: z.string().optional().describe('"sunset", "next-minute", "next-day", or an ISO 8601 time'),
        session,
      },
    },
    guarded(async (args) => {
      if ((args.by === undefined) === (args.to === undefined))
        throw new Error('Give exactly one of "by" (a duration, e.g. "15m") or "to" ("next-minute", "next-day", "sunset" or an ISO time).')
      let seconds: number
      if (args.by !== undefined) seconds = durationSeconds(args.by)
      else {
        const now = Date.parse((await admin.clock(args.session)).now)
        seconds = (targetOf(args.to as string, now) - now) / 1000
      }
      const clock = await admin.advanceClock(seconds, args.session)
      const moved = seconds < 0 ? `back ${-seconds}` : `forward ${seconds}`
      return answer(`Clock moved ${moved} s: it is now ${clock.now}${clock.frozen ? ' (frozen)' : ''}.`, clock)
    }),
  )
}

/**
 * The newest `limit` entries that `matches` (newest last), read a page of the journal at a time from the newest back,
 * until enough are found, the journal ends, or an entry `older` than what is asked for is reached: a filter the admin
 * API has not (the key, a time) looks through the whole journal, not only its newest page (test/mcp/tools.test.ts).
 */
async function searchJournal(
  admin: MockAdmin,
  query: { status?: number | undefined; operation?: string | undefined },
  session: string | undefined,
  search: { limit: number; matches(entry: JournalLine): boolean; older(entry: JournalLine): boolean },
): Promise<JournalLine[]> {
  const found: JournalLine[] = []
  let before: number | undefined
  for (;;) {
    const page = (await admin.journal({ ...query, before, limit: JOURNAL_MAX }, session)).map(lineOf)
    for (let i = page.length - 1; i >= 0; i--) {
      const entry = page[i] as JournalLine
      if (search.older(entry)) return found.reverse()
      if (search.matches(entry)) found.push(entry)
      if (found.length === search.limit) return found.reverse()
    }
    if (page.length < JOURNAL_MAX || page[0] === undefined) return found.reverse()
    before = page[0].seq
  }
}

/** Registers read_journal and audit. */
export function addJournalTools(server: McpServer, admin: MockAdmin): void {
  server.registerTool(
    'read_journal',
    {
      description: `Reads the journal of answered API requests, newest last, at most ${JOURNAL_MAX}: method, path, status, operation, key hint (plan and last 4 characters), error code, fault, Retry-After. Shows what a client under test did and what it was told. Spec: "Errors", "Rate limit headers". Same as GET /__mock/requests with its filters.`,
      inputSchema: {
        key: z.string().optional().describe('Only requests with this API key (matched by its last 4 characters)'),
        status: z.number().int().min(100).max(599).optional().describe('Only answers with this status, e.g. 429'),
        operation: z.string().optional().describe('Only this operation, e.g. listPets, createPet, getPet'),
        since: z
          .union([z.number().int().min(0), z.string()])
          .optional()
          .describe('Only entries after this sequence number, or at or after this ISO time'),
        limit: z.number().int().min(1).max(JOURNAL_MAX).default(50).describe(`How many entries at most (1-${JOURNAL_MAX})`),
        session,
      },
      annotations: { readOnlyHint: true },
    },
    guarded(async (args) => {
      const since = args.since
      const after = typeof since === 'number' ? since : undefined
      const from = typeof since === 'string' ? Date.parse(since) : undefined
      if (from !== undefined && Number.isNaN(from))
        throw new Error(`"since" must be a sequence number or an ISO time; got ${JSON.stringify(since)}.`)
      const query = { status: args.status, operation: args.operation }
      const tail = args.key?.slice(-4)
      const entries =
        tail === undefined && from === undefined
          ? (await admin.journal({ ...query, after, limit: args.limit }, args.session)).map(lineOf)
          : await searchJournal(admin, query, args.session, {
              limit: args.limit,
              matches: (entry) =>
                (tail === undefined || entry.key?.endsWith(tail) === true) && (from === undefined || Date.parse(entry.time) >= from),
              older: (entry) => (after !== undefined && entry.seq <= after) || (from !== undefined && Date.parse(entry.time) < from),
            })
      const statuses = [...new Set(entries.map((entry) => entry.status))].join(', ')
      return answer(
        entries.length === 0
          ? 'No matching requests.'
          : `${entries.length} requests, #${entries[0]?.seq} to #${entries.at(-1)?.seq}; statuses ${statuses}.`,
        entries,
      )
    }),
  )
  server.registerTool(
    'audit',
    {
      description:
        'Judges the client from the journal: the retry audit per key (did it wait for Retry-After, did its back-off grow, was it banned) and the report card\'s rules the traffic gave occasion for (docs/check-client.md: rate.retry-after-seconds, rate.stops-before-ban, retry.backoff, auth.no-retry-401, errors.no-retry-4xx, retry.idempotent-only). Spec: "Exceeding the limit", "Errors". The audit is GET /__mock/audit; the checks read GET /__mock/requests.',
      inputSchema: { session },
      annotations: { readOnlyHint: true },
    },
    guarded(async (args) => {
      const audit = await admin.audit(args.session)
      const entries = await admin.journal({ limit: 1000 }, args.session)
      const checks = journalChecks(audit, entries)
      const failed = checks.filter((one) => one.status === 'failed').map((one) => one.id)
      const summary =
        failed.length === 0
          ? `No rule broken (${audit.keys.length} keys audited).`
          : `Broken: ${failed.join(', ')}. ${audit.problems.join(' ')}`
      return answer(summary.trim(), { audit, checks })
    }),
  )
}

/** Registers export_state and import_state. */
export function addStateTools(server: McpServer, admin: MockAdmin): void {
  server.registerTool(
    'export_state',
    {
      description: `Exports the whole state of the world as JSON: pets, next id, each key's counters and bans, the clock, the scenario; import_state puts it back. Answers states up to ${STATE_MAX_CHARS / 1024 / 1024} MiB; GET /__mock/state streams larger ones. Same as GET /__mock/state.`,
      inputSchema: { session },
      annotations: { readOnlyHint: true },
    },
    guarded(async (args) => {
      const text = await admin.exportState(args.session, STATE_MAX_CHARS)
      if (text === undefined)
        throw new Error(`The state is over ${STATE_MAX_CHARS} characters: read it with GET /__mock/state instead, which streams it.`)
      return {
        content: [
          { type: 'text' as const, text: 'The state, as GET /__mock/state answers it:' },
          { type: 'text' as const, text },
        ],
      }
    }),
  )
  server.registerTool(
    'import_state',
    {
      description:
        'Replaces the whole state of the world with one export_state gave (or GET /__mock/state): checked first, so a bad state changes nothing and the error names the fields. Same as PUT /__mock/state.',
      inputSchema: {
        state: z.union([z.string(), z.record(z.string(), z.unknown())]).describe('The state: its JSON text (ids exact), or the object'),
        session,
      },
      annotations: { destructiveHint: true },
    },
    guarded(async (args) => {
      await admin.importState(typeof args.state === 'string' ? args.state : JSON.stringify(args.state), args.session)
      return answer(`State imported; scenario ${await admin.currentScenario(args.session)}.`, await admin.clock(args.session))
    }),
  )
}
