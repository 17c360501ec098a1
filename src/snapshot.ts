/**
 * A world's whole state as JSON: pets, next id, rate-limit counters and bans, clock, scenario.
 * Used by `GET|PUT /__mock/state` and `--state-file`. int64 values are written as exact JSON numbers.
 */
import { z } from 'zod'
import { MAX_TIME } from './clock.js'
import { PetStoreMockError } from './core/errors.js'
import { issuesText } from './core/issues.js'
import { type PetTexts, parseJson, serializePet, stringifyJson } from './core/json.js'
import { INT64_MAX, PetRecordSchema } from './schemas.js'

/** A count: a whole number from 0. */
const count = z
  .union([z.bigint(), z.number()])
  .transform((value) => Number(value))
  .pipe(z.number().int('must be a whole number').min(0, 'must be at least 0').max(Number.MAX_SAFE_INTEGER, 'is too large'))
/** A moment in ms since the epoch, within the range of a `Date` (docs/spec-decisions.md row 50: 1e300 broke the server). */
const moment = z
  .union([z.bigint(), z.number()])
  .transform((value) => Number(value))
  .pipe(
    z
      .number()
      .int('must be whole milliseconds')
      .min(-MAX_TIME, 'is before the range of a Date')
      .max(MAX_TIME, 'is past the range of a Date'),
  )
/** The index of a timeline's stage, or -1 for none yet. */
const stageIndex = z
  .union([z.bigint(), z.number()])
  .transform((value) => Number(value))
  .pipe(z.number().int('must be a whole number').min(-1, 'must be -1 or a stage index').max(Number.MAX_SAFE_INTEGER, 'is too large'))
const int64 = z.union([z.bigint(), z.number().int()]).transform((value) => BigInt(value))
/** The id after the largest int64 means "no id left": creates then answer 507. */
const ID_SPACE_END = INT64_MAX + 1n

const WorldSnapshotSchema = z
  .object({
    version: z.literal(1n).or(z.literal(1)),
    pets: z.array(PetRecordSchema),
    nextId: int64,
    rateLimits: z.record(
      z.string(),
      z.object({
        minuteStart: moment,
        minuteCount: count,
        dayStart: moment,
        dayCount: count,
        retryAt: moment,
        earlyRetries: count,
        bannedUntil: moment,
      }),
    ),
    clock: z.object({ frozenAt: moment.nullable(), offset: moment }),
    scenario: z.string().optional(),
    /** Where the scenario's timeline was (src/world/timeline.ts `TimelinePlace`); absent, it starts at the restored clock. */
    timeline: z.object({ startedAt: moment, entered: stageIndex }).optional(),
  })
  .superRefine((state, ctx) => {
    const seen = new Set<bigint>()
    let largest = 0n
    for (const [index, pet] of state.pets.entries()) {
      if (seen.has(pet.id))
        ctx.addIssue({ code: 'custom', path: ['pets', index, 'id'], message: `is ${pet.id}, which an earlier pet has too` })
      seen.add(pet.id)
      if (pet.id > largest) largest = pet.id
    }
    if (state.nextId <= largest)
      ctx.addIssue({ code: 'custom', path: ['nextId'], message: `must be above the largest pet id (${largest}), got ${state.nextId}` })
    if (state.nextId < 1n || state.nextId > ID_SPACE_END)
      ctx.addIssue({ code: 'custom', path: ['nextId'], message: `must be from 1 to ${ID_SPACE_END} (int64 ids), got ${state.nextId}` })
  })

/** A world's state, as `petStore.snapshot()` returns it. */
export type WorldSnapshot = z.output<typeof WorldSnapshotSchema>

/** The snapshot as JSON text, bigints as exact numbers. */
export function stringifySnapshot(snapshot: WorldSnapshot, space?: number): string {
  return stringifyJson(snapshot, space)
}

/** Pets per piece of `snapshotPieces`: about 50 KB of text, short enough to join between two answers. */
const PETS_PER_PIECE = 1_000

/**
 * A world's state whose pets are read from its storage as they are written (`World.snapshotInSteps`): taking it copies
 * nothing, so a large state is no pause (decisions/014-state-log-segments.md). Its pieces throw `StaleSnapshotError`
 * once the pets are no longer as they were when it was taken.
 */
export interface SteppedSnapshot extends Omit<WorldSnapshot, 'pets'> {
  readonly pets: PetTexts
}

/** The pets changed (other than by creates) while a `SteppedSnapshot` was written: write it again, taken anew. */
export class StaleSnapshotError extends PetStoreMockError {
  override readonly name = 'StaleSnapshotError'
  readonly code = 'snapshot_stale'
}

const isStepped = (snapshot: WorldSnapshot | SteppedSnapshot): snapshot is SteppedSnapshot => 'current' in snapshot.pets

/**
 * A plain snapshot as a `SteppedSnapshot`: its pets are its own array, so they stay current, and each is written as it
 * goes (a storage's own texts come through `World.snapshotInSteps`).
 */
export function steppedOf(snapshot: WorldSnapshot): SteppedSnapshot {
  const { pets } = snapshot
  const textOf = (i: number) => serializePet(pets[i] as WorldSnapshot['pets'][number])
  return { ...snapshot, pets: { length: pets.length, textOf, current: () => true } }
}

/**
 * The snapshot's JSON text (as `stringifySnapshot` writes it, keys in another order) in pieces of a few thousand
 * pets, so a writer can give the event loop back between them: a state of a million pets is not one long pause
 * (decisions/014-state-log-segments.md).
 */
export function* snapshotPieces(snapshot: WorldSnapshot | SteppedSnapshot): Generator<string> {
  const { pets, ...rest } = isStepped(snapshot) ? snapshot : steppedOf(snapshot)
  for (let start = 0; start < pets.length; start += PETS_PER_PIECE) {
    // The writer may have given the event loop back since the last piece.
    if (!pets.current()) throw new StaleSnapshotError('The pets changed while the snapshot was written.')
    const end = Math.min(pets.length, start + PETS_PER_PIECE)
    const parts: string[] = []
    for (let i = start; i < end; i++) parts.push(pets.textOf(i))
    yield `${start === 0 ? '{"pets":[' : ','}${parts.join(',')}`
  }
  // `rest` has `version`, so its text starts with `{"`: the pets go before its first key.
  yield `${pets.length === 0 ? '{"pets":[' : ''}],${stringifyJson(rest).slice(1)}`
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
    return { ok: false, message: `Invalid state: ${issuesText(result.error)}.` }
  }
  return { ok: true, snapshot: result.data }
}
