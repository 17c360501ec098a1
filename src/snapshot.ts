/**
 * A world's whole state as JSON: pets, next id, rate-limit counters and bans, clock, scenario.
 * Used by `GET|PUT /__mock/state` and `--state-file`. int64 values are written as exact JSON numbers.
 */
import { z } from 'zod'
import { parseJson, stringifyJson } from './core/json.js'
import { PetRecordSchema } from './schemas.js'

const num = z.union([z.bigint(), z.number()]).transform((value) => Number(value))
const int64 = z.union([z.bigint(), z.number().int()]).transform((value) => BigInt(value))

const WorldSnapshotSchema = z.object({
  version: z.literal(1n).or(z.literal(1)),
  pets: z.array(PetRecordSchema),
  nextId: int64,
  rateLimits: z.record(
    z.string(),
    z.object({
      minuteStart: num,
      minuteCount: num,
      dayStart: num,
      dayCount: num,
      retryAt: num,
      earlyRetries: num,
      bannedUntil: num,
    }),
  ),
  clock: z.object({ frozenAt: num.nullable(), offset: num }),
  scenario: z.string().optional(),
})

/** A world's state, as `petStore.snapshot()` returns it. */
export type WorldSnapshot = z.output<typeof WorldSnapshotSchema>

/** The snapshot as JSON text, bigints as exact numbers. */
export function stringifySnapshot(snapshot: WorldSnapshot, space?: number): string {
  return stringifyJson(snapshot, space)
}

export type SnapshotResult = { ok: true; snapshot: WorldSnapshot } | { ok: false; message: string }

/** Reads and checks a snapshot from JSON text or a parsed value, naming the first bad fields. */
export function parseSnapshot(input: string | unknown): SnapshotResult {
  let value = input
  if (typeof input === 'string') {
    const parsed = parseJson(input)
    if (!parsed.ok) return { ok: false, message: `State is not valid JSON: ${parsed.message}.` }
    value = parsed.value
  }
  const result = WorldSnapshotSchema.safeParse(value)
  if (!result.success) {
    const problems = result.error.issues.slice(0, 5).map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    return { ok: false, message: `Invalid state: ${problems.join('; ')}.` }
  }
  return { ok: true, snapshot: result.data }
}
