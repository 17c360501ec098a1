/**
 * The MCP tools of keys, scenarios and pets. Each does what one admin request does (docs/mcp.md lists the pairs), and
 * its description states the rule of the Pet Store spec it exercises.
 * @see ../shared/spec/pet-store-service.md
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { MAX_ADDED_PETS, type MockAdmin } from '../admin/operations.js'
import { parseJson } from '../core/json.js'
import type { KeyStatus } from '../core/key-status.js'
import { PET_STATUSES } from '../schemas.js'
import { answer, guarded } from './results.js'

/** The `session` argument of every tool: the admin API's `X-Mock-Session`. */
export const session = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,64}$/)
  .optional()
  .describe('The session (X-Mock-Session) to act on: a world of its own. Default: the default world.')

/** A key as an agent reads it: plan, what each window has used, the ban. */
const keyView = (key: KeyStatus) => ({
  key: key.key,
  plan: key.plan,
  minuteUsed: key.perMinute - key.minuteRemaining,
  perMinute: key.perMinute,
  minuteResetsAt: key.minuteResetsAt,
  dayUsed: key.perDay - key.dayRemaining,
  perDay: key.perDay,
  dayResetsAt: key.dayResetsAt,
  bannedUntil: key.bannedUntil,
})
const keyLine = (key: KeyStatus) =>
  `${key.key} (${key.plan}) ${key.perMinute - key.minuteRemaining}/${key.perMinute} this minute, ${key.perDay - key.dayRemaining}/${key.perDay} today${key.bannedUntil ? `, banned until ${key.bannedUntil}` : ''}`

/** Registers list_keys, exhaust_quota and ban_key. */
export function addKeyTools(server: McpServer, admin: MockAdmin): void {
  server.registerTool(
    'list_keys',
    {
      description:
        'Lists the API keys of the world: plan, requests used in the current UTC minute and day against the plan\'s limits, when each window resets, and any temporary ban. Spec: "Rate limits by plan", "Rate limit headers". Same as GET /__mock/keys.',
      inputSchema: { session },
      annotations: { readOnlyHint: true },
    },
    guarded(async (args) => {
      const keys = await admin.keys(args.session)
      return answer(keys.map(keyLine).join('; ') || 'No keys.', keys.map(keyView))
    }),
  )
  server.registerTool(
    'exhaust_quota',
    {
      description:
        'Uses up a key\'s quota for the current UTC minute or day: its next API request is answered 429 Too Many Requests with Retry-After until the window ends. Spec: "Rate limits by plan", "Exceeding the limit" (1, 2). Same as POST /__mock/keys/{key} with {"minuteUsed":"all"} or {"dayUsed":"all"}.',
      inputSchema: {
        key: z.string().min(1).describe('The API key, e.g. test-free (list_keys names them)'),
        window: z.enum(['minute', 'day']).default('minute').describe('Which window to use up'),
        session,
      },
    },
    guarded(async (args) => {
      const keys = await admin.setKey(args.key, args.window === 'day' ? { dayUsed: 'all' } : { minuteUsed: 'all' }, args.session)
      const key = keys.find((one) => one.key === args.key) as KeyStatus
      const resets = args.window === 'day' ? key.dayResetsAt : key.minuteResetsAt
      return answer(`${args.key}: the ${args.window} is used up; API requests get 429 with Retry-After until ${resets}.`, keyView(key))
    }),
  )
  server.registerTool(
    'ban_key',
    {
      description:
        'Bans a key for a number of seconds, as the mock does to a client that keeps retrying before Retry-After: every API request with it is answered 429 with Retry-After until the ban ends (0 lifts a ban). Spec: "Exceeding the limit" (3). Same as POST /__mock/keys/{key} with {"bannedForSeconds":N}.',
      inputSchema: {
        key: z.string().min(1).describe('The API key, e.g. test-free'),
        seconds: z.number().min(0).max(31_622_400).describe('How long the ban lasts, in seconds (0 lifts it)'),
        session,
      },
    },
    guarded(async (args) => {
      const keys = await admin.setKey(args.key, { bannedForSeconds: args.seconds }, args.session)
      const key = keys.find((one) => one.key === args.key) as KeyStatus
      return answer(key.bannedUntil ? `${args.key} is banned until ${key.bannedUntil}.` : `${args.key} is not banned.`, keyView(key))
    }),
  )
}

/** Registers reset, set_scenario and list_scenarios. */
export function addScenarioTools(server: McpServer, admin: MockAdmin): void {
  server.registerTool(
    'reset',
    {
      description:
        'Puts the session back to the seeded start of its current scenario: pets, ids, counters and bans, journal; the clock returns to real time (or the scenario\'s start). Spec: "States and transitions". Same as POST /__mock/reset.',
      inputSchema: { session },
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    guarded(async (args) => {
      await admin.reset(args.session)
      return answer(`Reset to the start of scenario ${await admin.currentScenario(args.session)}.`, await admin.clock(args.session))
    }),
  )
  server.registerTool(
    'set_scenario',
    {
      description:
        'Switches the session to a scenario from scratch: its pets, keys, starting counters and bans, clock, fault rules and timeline (rate-limited, flaky, sunset, …; list_scenarios names them). Spec: "Errors", "Exceeding the limit", "Versioning", as each scenario states. Same as PUT /__mock/scenario {"name":…}.',
      inputSchema: { name: z.string().min(1).describe('The scenario, e.g. rate-limited'), session },
      annotations: { destructiveHint: true },
    },
    guarded(async (args) => {
      const name = await admin.useScenario(args.name, args.session)
      const timeline = await admin.timeline(args.session)
      const stages = timeline.stages.length
      return answer(`Scenario ${name} started${stages > 0 ? `, with a timeline of ${stages} stages` : ''}.`, { scenario: name, timeline })
    }),
  )
  server.registerTool(
    'list_scenarios',
    {
      description:
        "Lists the scenarios this mock knows (shipped and the server's own), each with its description, whether it injects faults, and which is current; the resources petstore://scenarios/{name} hold each definition. Same as GET /__mock/scenarios.",
      inputSchema: { session },
      annotations: { readOnlyHint: true },
    },
    guarded(async (args) => {
      const list = await admin.scenarios(args.session)
      const current = list.find((one) => one.current)?.name ?? 'none'
      return answer(`${list.length} scenarios; current: ${current}.`, list)
    }),
  )
}

/** Registers create_pets: the admin API's `POST /__mock/pets`, whose cost is the pets added, not the store's size. */
export function addPetTools(server: McpServer, admin: MockAdmin): void {
  server.registerTool(
    'create_pets',
    {
      description:
        'Adds generated pets to the store (names and categories from a seed, so the same seed gives the same pets), with the next free ids, as POST /pets would create them. Spec: "Resources and their fields" (Pet, PetStatus), "POST /pets". Same as POST /__mock/pets (counters, clock, scenario and journal are kept).',
      inputSchema: {
        count: z.number().int().min(1).max(MAX_ADDED_PETS).describe(`How many pets to add (1-${MAX_ADDED_PETS})`),
        status: z.enum(PET_STATUSES).optional().describe('The status every new pet gets; default: a seeded mix'),
        seed: z.number().int().min(0).default(1).describe('Seed of the generated names and categories'),
        session,
      },
    },
    guarded(async (args) => {
      const text = await admin.addPets({ count: args.count, status: args.status, seed: args.seed }, args.session)
      const parsed = parseJson(text)
      const pets = (parsed.ok ? parsed.value : []) as { id: bigint }[]
      const ids = pets.length === 0 ? 'none: no int64 id is left' : `ids ${pets[0]?.id} to ${pets.at(-1)?.id}`
      return answer(`Added ${pets.length} pets, ${ids}.`, pets)
    }),
  )
}
