/**
 * `--config FILE` (README, "A config file"; test/cli/config.test.ts): every option of the standalone server and of
 * `createPetStore` in one JSON file, checked by one zod schema that also writes the file's JSON Schema
 * (`petstore-mock/config.schema.json`, for editors). Paths in the file (scenarios, fixtures, handlers, stateFile) are
 * relative to the file's folder.
 */
import { readFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { z } from 'zod'
import { PetStoreMockError, plainMessage } from '../core/errors.js'
import { parseJsonReadable } from '../core/json.js'
import { createScenarioCatalogue } from '../scenarios/catalogue.js'
import { KeyInput, PetInput } from '../scenarios/schema.js'
import type { PetRecordInput } from '../schemas.js'
import { PET_STATUSES } from '../spec.js'
import { readFixturesDir, readScenarioDir } from './files.js'
import type { PetStoreServerOptions } from './http-server.js'
import { loadUserHandlers } from './user-handlers.js'

const whole = (min: number, max = Number.MAX_SAFE_INTEGER) => z.number().int().min(min).max(max)
const moment = z.iso.datetime({ offset: true })
const path = z.string().min(1)

/** The config file's content: every key optional; unknown keys are refused (a typo would be silently ignored). */
export const ConfigSchema = z
  .object({
    $schema: z.string().optional(),
    port: whole(0, 65535).optional().meta({ description: 'Port to listen on; 0 picks a free one (default 4010)' }),
    host: z.string().min(1).optional().meta({ description: 'Address to listen on (default 127.0.0.1)' }),
    seed: z.number().int().optional().meta({ description: 'Seed of the generated pets (default 1)' }),
    pets: z
      .union([whole(0, 1_000_000), z.array(PetInput)])
      .optional()
      .meta({ description: 'How many pets to generate (default 50), or the pets' }),
    categories: whole(1).optional().meta({ description: 'Generated pets get categories 1..categories (default 10)' }),
    baseUrl: z.string().min(1).optional().meta({ description: 'Where the API lives (default */v1)' }),
    keys: z.array(KeyInput).optional().meta({ description: 'API keys, their plans and custom limits (default the four test keys)' }),
    clock: moment.optional().meta({ description: 'Freeze the clock at this moment (default real time)' }),
    queryValidation: z.enum(['strict', 'lenient']).optional().meta({ description: 'strict (default): 400 for a bad limit or status' }),
    defaultStatus: z.enum(PET_STATUSES).optional().meta({ description: 'Status stored when POST /pets omits it (default none)' }),
    maxBodyBytes: whole(1).optional().meta({ description: 'Larger request bodies get 413 (default 1048576)' }),
    maxNameLength: whole(1).optional().meta({ description: 'A POST /pets name with more characters gets 400 invalid_body (default 1000)' }),
    mediaTypeErrorStatus: z
      .union([z.literal(400), z.literal(415)])
      .optional()
      .meta({ description: 'Status of a POST body that is not application/json (default 400)' }),
    deprecatedAt: moment.optional().meta({ description: 'When GET /pets/{petId} was deprecated (default 2026-01-01T00:00:00Z)' }),
    scenario: z.string().min(1).optional().meta({ description: 'Scenario to start in (default "default")' }),
    scenarios: path.optional().meta({ description: 'A folder of your own scenario .json files' }),
    fixtures: path.optional().meta({ description: 'A folder with keys.json and/or pets.json' }),
    journalLimit: whole(0).optional().meta({ description: 'Exchanges each journal keeps (default 1000)' }),
    journalMaxBytes: whole(0).optional().meta({ description: 'Bytes all journals hold together (default 67108864)' }),
    rateLimit: z
      .object({
        banAfterEarlyRetries: whole(1).optional(),
        banDurationSeconds: z.number().positive().optional(),
        retryAfterFormat: z.enum(['seconds', 'http-date']).optional(),
        unauthenticatedHeaders: z.enum(['free-plan', 'omit']).optional(),
      })
      .strict()
      .optional()
      .meta({ description: 'Bans, Retry-After format and the headers of a 401 (docs/spec-decisions.md)' }),
    latency: z
      .union([whole(0), z.object({ min: whole(0), max: whole(0) }).strict()])
      .optional()
      .meta({ description: 'Extra latency per API answer, in ms, fixed or { min, max }' }),
    corsOrigin: z
      .union([z.literal('*'), z.array(z.string().regex(/^https?:\/\/[^/]+$/, 'must be an origin such as http://localhost:5173'))])
      .optional()
      .meta({ description: 'Allowed browser origins (default "*")' }),
    proxy: z
      .url({ protocol: /^https?$/ })
      .optional()
      .meta({ description: 'Forward what the mock does not define to this base address, e.g. https://staging.example/v1' }),
    proxyTimeoutMs: whole(1)
      .optional()
      .meta({ description: 'A proxied request not answered, body included, after this gets 504 (default 10000)' }),
    proxyMaxBodyBytes: whole(1)
      .optional()
      .meta({ description: 'A proxied answer with a larger body gets 502; the upstream is read no further (default 8388608)' }),
    adminToken: z.string().min(1).optional().meta({ description: 'Bearer token of /__mock (prefer PETSTORE_ADMIN_TOKEN)' }),
    handlers: path.optional().meta({ description: 'A module of your own msw handlers' }),
    stateFile: path.optional().meta({ description: 'Where to keep the sessions across restarts' }),
    fsync: z.boolean().optional().meta({ description: 'With stateFile: each change reaches the disk before its answer' }),
    redis: z
      .string()
      .regex(/^rediss?:\/\/[^/]/, { error: 'must be a Redis URL such as redis://127.0.0.1:6379' })
      .optional()
      .meta({ description: 'Keep every session in this Redis, so servers pointed at it behave as one (prefer PETSTORE_REDIS_URL)' }),
    log: z.enum(['pretty', 'json', 'silent']).optional().meta({ description: 'One line per request (default pretty)' }),
    maxSessions: whole(1, 1_000_000).optional().meta({ description: 'Live X-Mock-Session worlds (default 1000)' }),
    drainLimitBytes: whole(0).optional().meta({ description: 'Oversized bodies are drained up to this, then the connection closes' }),
    requestTimeoutMs: whole(1).optional().meta({ description: 'A request not arrived whole after this gets 408 (default 30000)' }),
    adminReadMaxBytes: whole(1_048_576)
      .optional()
      .meta({ description: 'Memory all journal reads under way share, 1 MiB each; past it 503 too_many_admin_reads (default 33554432)' }),
  })
  .strict()
  .meta({ title: 'petstore-mock configuration' })

export type ConfigFile = z.input<typeof ConfigSchema>

/** An object whose optional keys, when present, hold a value. */
type Given<T> = { [K in keyof T]?: Exclude<T[K], undefined> }

/** A bad config file, a folder or module it names that cannot be read: the CLI exits 2 with this message. */
export class ConfigError extends PetStoreMockError {
  override readonly name = 'ConfigError'
  readonly code = 'config_invalid'
}

/** The JSON Schema text of `config.schema.json`. */
export function configJsonSchema(): string {
  const schema = z.toJSONSchema(ConfigSchema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' })
  return `${JSON.stringify({ ...schema, $id: 'https://petstore-mock.dev/config.schema.json' }, null, 2)}\n`
}

/** Reads the folders and the module the options name, relative to `base`: what flags and the file share. */
export async function readNamedFiles(
  names: { scenarios?: string | undefined; fixtures?: string | undefined; handlers?: string | undefined },
  base: string,
  options: PetStoreServerOptions,
): Promise<void> {
  if (names.scenarios !== undefined) options.scenarios = await readScenarioDir(resolve(base, names.scenarios))
  if (names.fixtures !== undefined) {
    const fixtures = await readFixturesDir(resolve(base, names.fixtures))
    if (fixtures.keys) options.keys = fixtures.keys
    if (fixtures.pets) options.pets = fixtures.pets as PetRecordInput[]
  }
  // Every scenario is checked now: a bad file or name stops the start, never a silent default.
  const catalogue = createScenarioCatalogue(options.scenarios as never[] | undefined)
  for (const name of catalogue.names()) catalogue.get(name)
  if (options.scenario !== undefined) catalogue.get(options.scenario)
  if (names.handlers !== undefined) {
    const file = resolve(base, names.handlers)
    options.userHandlers = await loadUserHandlers(file, (module) => import(pathToFileURL(module).href))
  }
}

/** The problems of a parsed config, each naming its field and what it allows. */
function problemsOf(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ')
}

/**
 * Reads a config file into the options of `createPetStoreServer` (which `createPetStore` takes too).
 *
 * @example
 * import { createPetStore } from 'petstore-mock'
 * import { loadConfig } from 'petstore-mock/node'
 *
 * const petStore = createPetStore(await loadConfig('./petstore-mock.json'))
 */
export async function loadConfig(file: string): Promise<PetStoreServerOptions> {
  const where = resolve(file)
  let text: string
  try {
    text = await readFile(where, 'utf8')
  } catch (error) {
    throw new ConfigError(`[petstore-mock] Cannot read the config file ${where}: ${(error as Error).message}`)
  }
  const parsed = parseJsonReadable(text)
  if (!parsed.ok) throw new ConfigError(`[petstore-mock] Config file ${where} is not valid JSON: ${parsed.message}.`)
  const result = ConfigSchema.safeParse(parsed.value)
  if (!result.success) throw new ConfigError(`[petstore-mock] Config file ${where}: ${problemsOf(result.error)}.`)
  const { $schema: _schema, scenarios, fixtures, handlers, stateFile, clock, pets, ...rest } = result.data
  const base = dirname(where)
  // Keys left out stay out (exactOptionalPropertyTypes); the rest must fit the options' own types, so the file and
  // the options cannot drift apart without a type error here.
  const given = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined)) as Given<typeof rest>
  const options: PetStoreServerOptions = given
  if (pets !== undefined) options.pets = pets as number | PetRecordInput[]
  if (clock !== undefined) options.clock = clock
  if (stateFile !== undefined) options.stateFile = resolve(base, stateFile)
  try {
    await readNamedFiles({ scenarios, fixtures, handlers }, base, options)
  } catch (error) {
    throw new ConfigError(`[petstore-mock] Config file ${where}: ${plainMessage(error)}`)
  }
  return options
}
