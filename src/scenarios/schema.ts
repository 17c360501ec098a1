/**
 * The scenario file format: a world to set up (data, keys, clock) and faults to inject, plus the
 * checks that state its expected behaviour. `scenarios/scenario.schema.json` is generated from
 * this schema (`npm run scenario-schema`), so editors complete and check scenario files.
 */
import { z } from 'zod'
import { OPERATION_IDS, PET_STATUSES } from '../spec.js'

const positive = z.number().int().positive()
const whole = z.number().int().min(0)
const int64Json = z.union([z.number().int(), z.string().regex(/^-?\d+$/, 'must be an integer or a string of digits')])

export const PetInput = z
  .object({ id: int64Json, name: z.string(), categoryId: int64Json, status: z.enum(PET_STATUSES).optional() })
  .strict()
  .meta({ description: 'A pet. Ids beyond 2^53 can be written as strings of digits to keep them exact.' })

export const KeyInput = z
  .object({
    key: z.string().min(1).regex(/^\S+$/, 'must not contain spaces'),
    plan: z.enum(['free', 'pro', 'business', 'enterprise']),
    limits: z.object({ perMinute: positive.optional(), perDay: positive.optional() }).strict().optional(),
  })
  .strict()

const KeyStart = z
  .object({
    minuteUsed: z
      .union([whole, z.literal('all')])
      .optional()
      .meta({ description: 'Requests already counted in the current minute ("all": the minute is used up)' }),
    dayUsed: z
      .union([whole, z.literal('all')])
      .optional()
      .meta({ description: 'Requests already counted today ("all": the day is used up)' }),
    bannedForSeconds: positive.optional().meta({ description: 'The key starts banned for this long' }),
  })
  .strict()

/** The fields of each latency distribution: each needs its own, and takes no other (which one would be drawn?). */
const LATENCY_FIELDS = { fixed: ['ms'], uniform: ['min', 'max'], normal: ['mean', 'sd'], lognormal: ['median', 'p99'] } as const

function latencyFields(fault: Record<string, unknown>, ctx: z.RefinementCtx): void {
  const given = Object.keys(fault).filter((key) => key !== 'type' && key !== 'distribution')
  const distribution = (fault['distribution'] as keyof typeof LATENCY_FIELDS | undefined) ?? (given.includes('ms') ? 'fixed' : 'uniform')
  const wanted: readonly string[] = LATENCY_FIELDS[distribution]
  const fields = wanted.map((field) => `"${field}"`).join(' and ')
  if (!wanted.every((field) => given.includes(field)) || given.some((field) => !wanted.includes(field))) {
    const message =
      fault['distribution'] === undefined
        ? 'latency needs "ms", or "min" and "max" with max >= min'
        : `a ${distribution} latency takes ${fields}, and no other field`
    ctx.addIssue({ code: 'custom', message })
  } else if (distribution === 'uniform' && (fault['max'] as number) < (fault['min'] as number)) {
    ctx.addIssue({ code: 'custom', path: ['max'], message: 'must be at least min' })
  } else if (distribution === 'lognormal' && (fault['p99'] as number) < (fault['median'] as number)) {
    ctx.addIssue({ code: 'custom', path: ['p99'], message: 'must be at least the median' })
  }
}

const Fault = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('latency'),
      distribution: z
        .enum(['fixed', 'uniform', 'normal', 'lognormal'])
        .optional()
        .meta({ description: 'fixed (ms), uniform (min, max), normal (mean, sd) or lognormal (median, p99); default: fixed or uniform' }),
      ms: whole.optional(),
      min: whole.optional(),
      max: whole.optional(),
      mean: z.number().min(0).optional(),
      sd: z.number().min(0).optional(),
      median: z.number().positive().optional(),
      p99: z.number().positive().optional(),
    })
    .strict()
    .superRefine(latencyFields),
  z.object({ type: z.literal('network-error') }).strict(),
  z.object({ type: z.literal('timeout') }).strict(),
  z
    .object({
      type: z.literal('status'),
      status: z.union([z.literal(500), z.literal(502), z.literal(503), z.literal(504)]),
      retryAfter: positive.optional(),
      message: z.string().optional(),
    })
    .strict(),
  z.object({ type: z.literal('malformed-body') }).strict(),
  z.object({ type: z.literal('truncated-body') }).strict(),
])

const CHAOS_TYPES = new Set(['network-error', 'timeout', 'status', 'malformed-body', 'truncated-body'])

const FaultRule = z
  .object({
    description: z.string().optional(),
    chaos: z
      .boolean()
      .optional()
      .meta({ description: 'Must be true when the fault is not a behaviour the spec documents (5xx, reset, timeout, broken body)' }),
    match: z
      .object({
        operation: z.enum(OPERATION_IDS).optional(),
        method: z.string().optional(),
        path: z.string().optional().meta({ description: 'Request path; * matches any run of characters, e.g. /v1/pets/*' }),
        key: z.string().optional(),
      })
      .strict()
      .optional(),
    when: z
      .union([
        z.object({ probability: z.number().min(0).max(1) }).strict(),
        z.object({ every: positive }).strict(),
        z.object({ first: positive }).strict(),
        z.object({ always: z.literal(true) }).strict(),
      ])
      .optional()
      .meta({ description: 'Which matching requests: { probability }, { every: N } (the Nth, 2Nth, …), { first: N }; default all' }),
    fault: z.union([Fault, z.array(Fault).min(1)]).meta({ description: 'A fault, or several of which one is drawn per request' }),
  })
  .strict()
  .superRefine((rule, ctx) => {
    const faults = Array.isArray(rule.fault) ? rule.fault : [rule.fault]
    const undocumented = faults.find((fault) => CHAOS_TYPES.has(fault.type))
    if (undocumented && rule.chaos !== true) {
      ctx.addIssue({
        code: 'custom',
        path: ['chaos'],
        message: `must be true: a "${undocumented.type}" fault is not a behaviour the spec documents, so mark the rule "chaos": true`,
      })
    }
  })

const Check = z
  .object({
    description: z.string().optional(),
    request: z
      .object({
        method: z.string().default('GET'),
        path: z.string().startsWith('/'),
        key: z.string().optional().meta({ description: 'Sent as Authorization: Bearer <key>' }),
        headers: z.record(z.string(), z.string()).optional(),
        body: z.unknown().optional(),
      })
      .strict(),
    repeat: positive.max(1000).optional(),
    expect: z
      .object({
        status: z.number().int().optional(),
        headers: z.record(z.string(), z.string()).optional().meta({ description: 'Headers that must have these values ("*": present)' }),
        body: z.unknown().optional().meta({ description: 'A JSON value the body must contain (objects: these fields)' }),
        length: whole.optional().meta({ description: 'The body is an array of this length' }),
        each: z.record(z.string(), z.unknown()).optional().meta({ description: 'Every element of the array body has these fields' }),
        networkError: z.literal(true).optional(),
        timeout: z.literal(true).optional(),
        invalidJson: z.literal(true).optional(),
        minDurationMs: whole.optional(),
        statuses: z
          .record(z.string(), z.tuple([whole, whole]))
          .optional()
          .meta({ description: 'With repeat: how many answers of each status ("network-error" too), as [min, max]' }),
      })
      .strict(),
  })
  .strict()

/** A length of time: `90s`, `5m`, `1h`, `250ms`, or ISO 8601 (`PT1H30M`). */
export const DURATION = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h)|PT(?=\d)(?:\d+H)?(?:\d+M)?(?:\d+(?:\.\d+)?S)?)$/
const Duration = z.string().regex(DURATION, 'must be a length of time such as "90s", "5m", "1h" or "PT5M"')

const Stage = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'must be lower-case letters, digits and dashes'),
    description: z.string().optional(),
    after: Duration.meta({ description: 'When the stage starts, counted from the scenario start on the world clock' }),
    for: Duration.optional().meta({ description: 'How long it lasts (default: until the next stage, or for good)' }),
    faults: z.array(FaultRule).optional().meta({ description: "Faults of the stage, before the scenario's own" }),
    keys: z
      .object({ start: z.record(z.string(), KeyStart) })
      .strict()
      .optional()
      .meta({ description: 'Counters keys take when the stage starts (a window used up, a ban)' }),
  })
  .strict()

export const ScenarioSchema = z
  .object({
    $schema: z.string().optional(),
    name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'must be lower-case letters, digits and dashes'),
    description: z.string().min(1),
    seed: z.number().int().optional().meta({ description: 'Seed of the data and of the fault generator (default: the store seed)' }),
    data: z
      .object({
        pets: z
          .union([whole, z.array(PetInput)])
          .optional()
          .meta({ description: 'How many pets to generate (0: an empty store), or the pets' }),
        categories: positive.optional(),
        status: z.enum(PET_STATUSES).optional().meta({ description: 'Every generated pet gets this status' }),
      })
      .strict()
      .optional(),
    keys: z
      .object({
        list: z.array(KeyInput).optional().meta({ description: 'The keys that exist (default the four test keys; [] for none)' }),
        start: z.record(z.string(), KeyStart).optional().meta({ description: 'Counters each key starts with; "*" is every key' }),
      })
      .strict()
      .optional(),
    clock: z
      .object({ start: z.string().datetime({ offset: true }), frozen: z.boolean().default(true) })
      .strict()
      .optional(),
    faults: z.array(FaultRule).optional(),
    expect: z
      .object({
        maxErrorRate: z.number().min(0).max(1).optional().meta({ description: 'The largest share of answers other than 2xx' }),
        noBan: z.boolean().optional().meta({ description: 'true: no key may end the incident banned' }),
      })
      .strict()
      .optional()
      .meta({ description: 'Limits on what the clients saw over the timeline: its verdict (petStore.timeline(), GET /__mock/timeline)' }),
    timeline: z
      .array(Stage)
      .min(1)
      .optional()
      .meta({ description: 'Stages that start and end on the world clock: an incident (docs/scenarios.md, "Timelines")' }),
    checks: z
      .array(Check)
      .optional()
      .meta({ description: 'Request/response checks that state the expected behaviour; run by the test suite' }),
  })
  .strict()
  .meta({ title: 'petstore-mock scenario' })

export type Scenario = z.output<typeof ScenarioSchema>
export type ScenarioInput = z.input<typeof ScenarioSchema>
export type ScenarioCheck = NonNullable<Scenario['checks']>[number]
