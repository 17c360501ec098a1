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
import { type ConfigProblem, problemLine, problemsOf } from './config-problems.js'
import { readFixturesDir, readScenarioDir } from './files.js'
import type { PetStoreServerOptions } from './http-server.js'
import { loadUserHandlers } from './user-handlers.js'

/** A whole number in [min, max]; every way to miss it gets the one message the command line gives (parse.ts `wholeNumber`). */
const whole = (min: number, max = Number.MAX_SAFE_INTEGER) => {
  const error = `must be a whole number ${max === Number.MAX_SAFE_INTEGER ? `of ${min} or more` : `from ${min} to ${max}`}`
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error })
}
const moment = z.iso.datetime({ offset: true, error: 'must be a date and time with its offset, such as 2030-12-05T00:00:00Z' })
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
    clockSpeed: z
      .number()
      .positive()
      .max(86_400)
      .optional()
      .meta({ description: 'Virtual ms per real ms while the clock runs (default 1; 60: a minute a second)' }),
    explain: z
      .boolean()
      .optional()
      .meta({ description: 'Every answer carries X-Mock-Reason, the rule behind it (default false: only when X-Mock-Explain: 1 asks)' }),
    tracing: z
      .boolean()
      .optional()
      .meta({ description: 'Each API request is an OpenTelemetry span, through the SDK you register (needs @opentelemetry/api)' }),
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
      .union([whole(0), z.object({ min: whole(0), max: whole(0) }).strict()], {
        error: 'must be milliseconds (200) or a range ({ "min": 100, "max": 500 })',
      })
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
      .meta({ description: 'Keep every session in this Redis, so servers pointed at it behave as one (prefer PETSTORE_REDIS)' }),
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
export { type ConfigProblem, problemLine } from './config-problems.js'

/** An object whose optional keys, when present, hold a value. */
type Given<T> = { [K in keyof T]?: Exclude<T[K], undefined> }

/** A bad config file, a folder or module it names that cannot be read: the CLI exits 2 with this message. */
export class ConfigError extends PetStoreMockError {
  override readonly name = 'ConfigError'
  readonly code = 'config_invalid'
  /** Each problem found, for a caller that lists them one per line (`petstore-mock config validate`). */
  readonly problems: readonly ConfigProblem[]

  constructor(message: string, problems: readonly ConfigProblem[] = []) {
    super(message)
    this.problems = problems
  }
}

/** The error of a file's problems: its message is their lines. */
function fileError(file: string, problems: readonly ConfigProblem[]): ConfigError {
  return new ConfigError(`[petstore-mock] ${problems.map((problem) => problemLine(file, problem)).join('\n')}`, problems)
}

/** The JSON Schema text of `config.schema.json`. */
export function configJsonSchema(): string {
  const schema = z.toJSONSchema(ConfigSchema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' })
  return `${JSON.stringify({ ...schema, $id: 'https://petstore-mock.dev/config.schema.json' }, null, 2)}\n`
}

/** The keys naming a folder or module, or a scenario, that `readNamedFiles` reads or checks. */
export type NamedKey = 'scenarios' | 'fixtures' | 'handlers' | 'scenario'

/**
 * Reads the folders and the module the options name, relative to `base`: what flags and the file share. A failure is
 * a ConfigError whose message starts with where the value came from, `source(key)` (`--scenarios`, `FILE: scenarios`).
 */
export async function readNamedFiles(
  names: { scenarios?: string | undefined; fixtures?: string | undefined; handlers?: string | undefined },
  base: string,
  options: PetStoreServerOptions,
  source: (key: NamedKey) => string,
): Promise<void> {
  const step = async (key: NamedKey, read: () => unknown): Promise<void> => {
    try {
      await read()
    } catch (error) {
      // The readers' messages name the folder, file or module and the fix.
      throw new ConfigError(`[petstore-mock] ${source(key)}: ${plainMessage(error)}`, [{ key, message: plainMessage(error) }])
    }
  }
  const { scenarios, fixtures, handlers } = names
  if (scenarios !== undefined) await step('scenarios', async () => (options.scenarios = await readScenarioDir(resolve(base, scenarios))))
  if (fixtures !== undefined)
    await step('fixtures', async () => {
      const read = await readFixturesDir(resolve(base, fixtures))
      if (read.keys) options.keys = read.keys
      if (read.pets) options.pets = read.pets as PetRecordInput[]
    })
  // The user's scenarios are checked now: a bad file or name stops the start, never a silent default. The shipped
  // ones are checked by the suite (test/scenarios), not at every start (a tenth of the CLI's start-up time).
  const catalogue = createScenarioCatalogue(options.scenarios as never[] | undefined)
  await step('scenarios', () => {
    for (const name of catalogue.ownNames()) catalogue.get(name)
  })
  if (options.scenario !== undefined) await step('scenario', () => catalogue.get(options.scenario as string))
  if (handlers !== undefined)
    await step('handlers', async () => {
      const file = resolve(base, handlers)
      options.userHandlers = await loadUserHandlers(file, (module) => import(pathToFileURL(module).href))
    })
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
    const { code, message } = error as NodeJS.ErrnoException
    const why = code === 'ENOENT' ? `there is no file ${where}` : code === 'EISDIR' ? `${where} is a folder` : message
    throw fileError(file, [{ message: `Cannot read the config file: ${why}. Give the path of a JSON file of options.` }])
  }
  const parsed = parseJsonReadable(text)
  if (!parsed.ok) throw fileError(file, [{ message: `is not valid JSON: ${parsed.message}.` }])
  const result = ConfigSchema.safeParse(parsed.value, { reportInput: true })
  if (!result.success)
    throw fileError(
      file,
      result.error.issues.flatMap((issue) => problemsOf(issue, ConfigSchema)),
    )
  const { $schema: _schema, scenarios, fixtures, handlers, stateFile, clock, pets, ...rest } = result.data
  const base = dirname(where)
  // Keys left out stay out (exactOptionalPropertyTypes); the rest must fit the options' own types, so the file and
  // the options cannot drift apart without a type error here.
  const given = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined)) as Given<typeof rest>
  const options: PetStoreServerOptions = given
  if (pets !== undefined) options.pets = pets as number | PetRecordInput[]
  if (clock !== undefined) options.clock = clock
  if (stateFile !== undefined) options.stateFile = resolve(base, stateFile)
  await readNamedFiles({ scenarios, fixtures, handlers }, base, options, (key) => `${file}: ${key}`)
  return options
}
