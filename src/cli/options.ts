/**
 * The command line's options: each a flag and an environment variable (flags win), checked into the
 * standalone server's options; `--help` is written from the same list, so it names every option.
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { plainMessage } from '../core/errors.js'
import { loadConfig, readNamedFiles } from '../server/config-file.js'
import type { LogFormat, PetStoreServerOptions } from '../server/http-server.js'

interface OptionSpec {
  readonly name: string
  readonly env: string
  /** What the option takes, for --help; empty for a switch (a flag without a value; env 1/true/0/false). */
  readonly value: string
  readonly help: string
}

const OPTIONS: readonly OptionSpec[] = [
  {
    name: 'config',
    env: 'PETSTORE_CONFIG',
    value: 'FILE',
    help: 'A JSON file of options (every option below and more; schema: petstore-mock/config.schema.json); flags and env win',
  },
  { name: 'port', env: 'PETSTORE_PORT', value: 'N', help: 'Port to listen on; 0 picks a free one (default 4010)' },
  { name: 'host', env: 'PETSTORE_HOST', value: 'ADDR', help: 'Address to listen on (default 127.0.0.1)' },
  { name: 'seed', env: 'PETSTORE_SEED', value: 'N', help: 'Seed of the generated pets: the same seed gives the same data (default 1)' },
  { name: 'pets', env: 'PETSTORE_PETS', value: 'N', help: 'How many pets to generate (default 50)' },
  {
    name: 'scenario',
    env: 'PETSTORE_SCENARIO',
    value: 'NAME',
    help: 'Scenario to start in, e.g. rate-limited, flaky (default: default; see docs/scenarios.md)',
  },
  {
    name: 'scenarios',
    env: 'PETSTORE_SCENARIOS',
    value: 'DIR',
    help: 'A folder of your own scenario .json files: they add to or override the shipped ones',
  },
  {
    name: 'fixtures',
    env: 'PETSTORE_FIXTURES',
    value: 'DIR',
    help: 'A folder with keys.json and/or pets.json (npm run fixtures writes one)',
  },
  {
    name: 'state-file',
    env: 'PETSTORE_STATE_FILE',
    value: 'FILE',
    help: 'Load state from FILE at start; each acknowledged change goes to FILE.log before its answer, the snapshot at shutdown',
  },
  {
    name: 'redis',
    env: 'PETSTORE_REDIS_URL',
    value: 'URL',
    help: 'Keep every session in this Redis (redis://host:6379): servers pointed at one Redis behave as one (not with --state-file)',
  },
  {
    name: 'fsync',
    env: 'PETSTORE_FSYNC',
    value: '',
    help: 'With --state-file: each change reaches the disk (fsync) before its answer, not only the OS (slower)',
  },
  {
    name: 'journal-max-bytes',
    env: 'PETSTORE_JOURNAL_MAX_BYTES',
    value: 'N',
    help: "Bytes all sessions' request journals may hold together, oldest dropped first (default 67108864, 64 MiB)",
  },
  {
    name: 'media-type-status',
    env: 'PETSTORE_MEDIA_TYPE_STATUS',
    value: '400|415',
    help: "Status of a POST body that is not application/json: 400 (default, the spec's) or 415",
  },
  {
    name: 'proxy',
    env: 'PETSTORE_PROXY',
    value: 'URL',
    help: 'Forward what the mock does not define (the store group, other paths) to a real base address, e.g. https://staging.example/v1',
  },
  { name: 'latency', env: 'PETSTORE_LATENCY', value: 'MS|MIN-MAX', help: 'Extra latency per API response, e.g. 200 or 100-500 (seeded)' },
  { name: 'cors-origin', env: 'PETSTORE_CORS_ORIGIN', value: 'ORIGINS', help: 'Allowed CORS origins, comma-separated (default any)' },
  { name: 'admin-token', env: 'PETSTORE_ADMIN_TOKEN', value: 'TOKEN', help: 'Bearer token for /__mock; required to use it off loopback' },
  {
    name: 'handlers',
    env: 'PETSTORE_HANDLERS',
    value: 'FILE',
    help: 'A module exporting your own msw handlers, put in front of the built-in ones',
  },
  { name: 'log', env: 'PETSTORE_LOG', value: 'FORMAT', help: 'Request log: pretty (default), json or silent' },
  { name: 'max-sessions', env: 'PETSTORE_MAX_SESSIONS', value: 'N', help: 'Live X-Mock-Session worlds kept at most (default 1000)' },
]

/** A mistake in the command line: printed without a stack, exit code 2. */
export class UsageError extends Error {}

export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
  return pkg.version
}

export function helpText(): string {
  const width = Math.max(...OPTIONS.map((o) => `--${o.name} ${o.value}`.length))
  const lines = OPTIONS.map((o) => `  ${`--${o.name} ${o.value}`.padEnd(width)}  ${o.help} [env ${o.env}]`)
  return [
    `petstore-mock ${version()}: a stateful mock of the Pet Store API, with auth per key, rate limits, bans and a controllable clock.`,
    '',
    'Usage: petstore-mock [options]      (in a clone: npm start -- [options])',
    '',
    'Options:',
    ...lines,
    `  ${'--help'.padEnd(width)}  Show this help`,
    `  ${'--version'.padEnd(width)}  Show the version`,
    '',
    'A load test on one core (taskset -c 0, a container with one CPU): the server sets no V8 flag of its own, so give node',
    "  these, which keep V8's collector on the server's thread and its young generation small:",
    '  node --max-semi-space-size=16 --single-threaded-gc $(npm root)/petstore-mock/dist/src/cli/main.js --port 4010',
    '  (NODE_OPTIONS takes --max-semi-space-size=16, not --single-threaded-gc.)',
    '',
    'Examples:',
    '  petstore-mock --port 4999 --seed 7',
    '  curl -H "Authorization: Bearer test-free" http://127.0.0.1:4010/v1/pets?limit=5',
    '  curl -X POST -d \'{"advanceSeconds":60}\' http://127.0.0.1:4010/__mock/clock',
    '  curl -X PUT -d \'{"name":"flaky"}\' http://127.0.0.1:4010/__mock/scenario',
  ].join('\n')
}

/** An option's value from the flags or the environment, and where it came from (`--port` or `PETSTORE_PORT`), for messages. */
type Lookup = (name: string) => string | undefined
type Label = (name: string) => string

function integer(label: string, text: string, min: number, max: number): number {
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max)
    throw new UsageError(`${label} must be a whole number from ${min} to ${max}, got ${JSON.stringify(text)}.`)
  return Number(text)
}

/** The options given as plain values. */
function valueOptions(get: Lookup, label: Label): PetStoreServerOptions {
  const options: PetStoreServerOptions = {}
  const port = get('port')
  if (port !== undefined) options.port = integer(label('port'), port, 0, 65535)
  const host = get('host')
  if (host !== undefined) options.host = host
  const seed = get('seed')
  if (seed !== undefined) options.seed = integer(label('seed'), seed, 0, 2 ** 31 - 1)
  const pets = get('pets')
  if (pets !== undefined) options.pets = integer(label('pets'), pets, 0, 1_000_000)
  const stateFile = get('state-file')
  if (stateFile !== undefined) options.stateFile = resolve(stateFile)
  const redis = get('redis')
  if (redis !== undefined) {
    if (!/^rediss?:\/\/[^/]/.test(redis))
      throw new UsageError(
        `${label('redis')} must be a Redis URL such as redis://127.0.0.1:6379, got ${JSON.stringify(redis.replace(/:[^:@/]*@/, ':***@'))}.`,
      )
    options.redis = redis
  }
  const latency = get('latency')
  if (latency !== undefined) {
    const match = /^(\d+)(?:-(\d+))?$/.exec(latency)
    if (!match || (match[2] !== undefined && Number(match[2]) < Number(match[1]))) {
      throw new UsageError(`${label('latency')} must be milliseconds (200) or a range (100-500), got ${JSON.stringify(latency)}.`)
    }
    options.latency = match[2] === undefined ? Number(match[1]) : { min: Number(match[1]), max: Number(match[2]) }
  }
  const cors = get('cors-origin')
  if (cors !== undefined) {
    const origins = cors
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean)
    for (const origin of origins) {
      if (origin !== '*' && !/^https?:\/\/[^/]+$/.test(origin))
        throw new UsageError(`${label('cors-origin')} takes origins like http://localhost:5173 (no path), got ${JSON.stringify(origin)}.`)
    }
    options.corsOrigin = origins.includes('*') ? '*' : origins
  }
  const proxy = get('proxy')
  if (proxy !== undefined) {
    if (!/^https?:\/\/[^/]/.test(proxy))
      throw new UsageError(
        `${label('proxy')} must be an http(s) base address such as https://staging.example/v1, got ${JSON.stringify(proxy)}.`,
      )
    options.proxy = proxy
  }
  const adminToken = get('admin-token')
  if (adminToken !== undefined) options.adminToken = adminToken
  const log = get('log')
  if (log !== undefined) {
    if (!['pretty', 'json', 'silent'].includes(log))
      throw new UsageError(`${label('log')} must be pretty, json or silent, got ${JSON.stringify(log)}.`)
    options.log = log as LogFormat
  }
  const fsync = get('fsync')
  if (fsync !== undefined) {
    if (!/^(1|0|true|false)$/i.test(fsync))
      throw new UsageError(`${label('fsync')} must be 1, 0, true or false, got ${JSON.stringify(fsync)}.`)
    options.fsync = /^(1|true)$/i.test(fsync)
  }
  const journalMaxBytes = get('journal-max-bytes')
  if (journalMaxBytes !== undefined)
    options.journalMaxBytes = integer(label('journal-max-bytes'), journalMaxBytes, 0, Number.MAX_SAFE_INTEGER)
  const mediaTypeStatus = get('media-type-status')
  if (mediaTypeStatus !== undefined) {
    if (mediaTypeStatus !== '400' && mediaTypeStatus !== '415')
      throw new UsageError(`${label('media-type-status')} must be 400 or 415, got ${JSON.stringify(mediaTypeStatus)}.`)
    options.mediaTypeErrorStatus = Number(mediaTypeStatus) as 400 | 415
  }
  const maxSessions = get('max-sessions')
  if (maxSessions !== undefined) options.maxSessions = integer(label('max-sessions'), maxSessions, 1, 1_000_000)
  return options
}

/** Reads flags and environment into server options; throws UsageError on anything wrong. */
/** The server's options, and the config file they were read from (for the banner). */
export interface ParsedCli {
  options: PetStoreServerOptions
  config?: string
  /** Where the address to listen on came from (`--host`, `PETSTORE_HOST`, the config file), for a message about it. */
  hostLabel: string
}

export async function parseCli(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<ParsedCli | 'help' | 'version'> {
  let values: Record<string, string | boolean | undefined>
  try {
    ;({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        ...Object.fromEntries(OPTIONS.map((o) => [o.name, { type: o.value === '' ? ('boolean' as const) : ('string' as const) }])),
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    }))
  } catch (error) {
    throw new UsageError(`${(error as Error).message.replace(/\. To specify.*$/s, '.')} Run petstore-mock --help for the options.`)
  }
  if (values.help) return 'help'
  if (values.version) return 'version'
  const spec = (name: string) => OPTIONS.find((o) => o.name === name) as OptionSpec
  const get = (name: string): string | undefined => {
    const flag = values[name]
    if (typeof flag === 'string') return flag
    if (flag === true) return 'true'
    const fromEnv = env[spec(name).env]
    return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv
  }
  const label = (name: string) => (values[name] === undefined ? spec(name).env : `--${name}`)
  return withFiles(get, label)
}

/** The config file (if any), then the flags and environment over it; then the files they all name, read and checked. */
async function withFiles(get: Lookup, label: Label): Promise<ParsedCli> {
  const config = get('config')
  let file: PetStoreServerOptions = {}
  if (config !== undefined) {
    try {
      file = await loadConfig(config)
    } catch (error) {
      throw new UsageError(`${label('config')}: ${plainMessage(error)}`)
    }
  }
  const options: PetStoreServerOptions = { ...file, ...valueOptions(get, label) }
  const scenario = get('scenario')
  if (scenario !== undefined) options.scenario = scenario
  if (options.redis !== undefined && options.stateFile !== undefined)
    throw new UsageError('--redis and --state-file cannot go together: with --redis, Redis holds the state (use its own persistence).')
  const names = { scenarios: get('scenarios'), fixtures: get('fixtures'), handlers: get('handlers') }
  try {
    await readNamedFiles(names, process.cwd(), options)
  } catch (error) {
    // The readers' messages name the folder or module and the fix.
    throw new UsageError(plainMessage(error))
  }
  const hostLabel = get('host') !== undefined ? label('host') : options.host !== undefined ? '"host" of the config file' : '--host'
  return config === undefined ? { options, hostLabel } : { options, config: resolve(config), hostLabel }
}
