/**
 * The server's command line: each option a flag and an environment variable (flags win), read by the shared parser
 * (parse.ts) from the table below and checked into the standalone server's options; `--help` is written from the
 * same table, so it names every option.
 */
import { resolve } from 'node:path'
import { plainMessage } from '../core/errors.js'
import { ConfigError, loadConfig, problemLine, readNamedFiles } from '../server/config-file.js'
import type { PetStoreServerOptions } from '../server/http-server.js'
import { COMMANDS, type Command, parseCommand, UsageError, version, wholeNumber } from './parse.js'
import { oneOf, readClockSpeed, readLatency, readMediaTypeStatus, readOrigins, readProxy, readRedis } from './values.js'

const LISTENS = 'Where it listens'
const WORLD = 'The world'
const SCENARIOS = 'Rate limits and scenarios'
const PERSISTENCE = 'Persistence and replicas'
const ADMIN = 'Admin and logging'

/** In the order of --help and the README's table (scripts/option-table.ts), a group's options together. */
export const OPTIONS = {
  port: { group: LISTENS, value: 'N', default: '4010', help: 'Port to listen on; 0 picks a free one', read: wholeNumber(0, 65535) },
  host: {
    group: LISTENS,
    value: 'ADDR',
    default: '127.0.0.1',
    help: 'Address to listen on',
    readme: "Address to listen on: one of this machine's (a name that resolves to none, or another machine's address, exits 2)",
  },
  'cors-origin': {
    group: LISTENS,
    value: 'ORIGINS',
    default: 'any',
    help: 'Allowed CORS origins, comma-separated',
    readme: 'Allowed browser origins, comma-separated',
    read: readOrigins,
  },
  config: {
    group: WORLD,
    value: 'FILE',
    help: 'A JSON file of options (every option below and more; schema: petstore-mock/config.schema.json); flags and env win',
    readme: 'A JSON file of options: every option here and every option of `createPetStore` (below)',
  },
  seed: {
    group: WORLD,
    value: 'N',
    default: '1',
    help: 'Seed of the generated pets: the same seed gives the same data',
    readme: 'Seed of the generated pets',
    read: wholeNumber(0, 2 ** 31 - 1),
  },
  pets: {
    group: WORLD,
    value: 'N',
    default: '50',
    help: 'How many pets to generate',
    readme: 'Number of generated pets',
    read: wholeNumber(0, 1_000_000),
  },
  fixtures: {
    group: WORLD,
    value: 'DIR',
    help: 'A folder with keys.json and/or pets.json (npm run fixtures writes one)',
    readme: 'A folder with `keys.json` and/or `pets.json` (`npm run fixtures` writes one)',
  },
  handlers: {
    group: WORLD,
    value: 'FILE',
    help: 'A module exporting your own msw handlers, put in front of the built-in ones',
    readme: 'Your own msw handlers, in front of the built-in operations',
  },
  'media-type-status': {
    group: WORLD,
    value: '400|415',
    default: '400',
    help: "Status of a POST body that is not application/json: 400 (the spec's) or 415",
    readme: 'Status of a `POST` body that is not `application/json` (the code is `unsupported_media_type` either way)',
    read: readMediaTypeStatus,
  },
  latency: {
    group: WORLD,
    value: 'MS|MIN-MAX',
    default: '0',
    help: 'Extra latency per API response, e.g. 200 or 100-500, a range drawn from the seed',
    readme: 'Extra latency per API response (a range is drawn from a seeded generator)',
    read: readLatency,
  },
  'clock-speed': {
    group: WORLD,
    value: 'N',
    default: '1',
    help: 'Virtual ms per real ms while the clock runs: 60 plays an hour-long timeline in a minute',
    readme:
      'How fast the running clock goes: `60` makes one real second one virtual minute, so a person watching the panel sees an hour-long [timeline](docs/scenarios.md#timelines) in a minute (a frozen clock stays frozen)',
    read: readClockSpeed,
  },
  proxy: {
    group: WORLD,
    value: 'URL',
    help: 'Forward what the mock does not define (the store group, other paths) to a real base address, e.g. https://staging.example/v1',
    readme:
      'Forward what the mock does not define (the store group, updates, deletes, other paths) to a real base address, e.g. `https://staging.example/v1`; its answers are relayed and journaled (502/504 when it fails, 502 for a body over `proxyMaxBodyBytes`, 8 MiB by default); a path that leaves the base once normalised is never sent',
    read: readProxy,
  },
  scenario: {
    group: SCENARIOS,
    value: 'NAME',
    default: 'default',
    help: 'Scenario to start in, e.g. rate-limited, flaky; see docs/scenarios.md',
    readme: 'Scenario to start in (`rate-limited`, `flaky`, …; see [docs/scenarios.md](docs/scenarios.md))',
  },
  scenarios: {
    group: SCENARIOS,
    value: 'DIR',
    help: 'A folder of your own scenario .json files: they add to or override the shipped ones',
    readme: 'A folder of your own scenario `.json` files, added to the shipped ones',
  },
  'state-file': {
    group: PERSISTENCE,
    value: 'FILE',
    help: 'Load state from FILE at start; each acknowledged change goes to FILE.log before its answer, the snapshot at shutdown',
    readme:
      'Load at start; every acknowledged change is appended to `FILE.log` before its answer (the creates of one event-loop turn in one write), the snapshot rewritten every second or so (in steps: answers go on meanwhile) and at shutdown',
    read: (text: string) => resolve(text),
  },
  fsync: {
    group: PERSISTENCE,
    help: 'With --state-file: each change reaches the disk (fsync) before its answer, not only the OS (slower)',
    readme:
      'With `--state-file`: each change reaches the disk, not only the OS, before its answer (slower; the creates of one event-loop turn share one fsync)',
  },
  redis: {
    group: PERSISTENCE,
    oldEnv: ['PETSTORE_REDIS_URL'],
    value: 'URL',
    help: 'Keep every session in this Redis (redis://host:6379): servers pointed at one Redis behave as one (not with --state-file)',
    readme:
      'Keep every session in this Redis (`redis://host:6379`): servers pointed at one Redis behave as one (not with `--state-file`; see [docs/replicas.md](docs/replicas.md)); a password in the URL is never printed',
    read: readRedis,
  },
  'max-sessions': {
    group: PERSISTENCE,
    value: 'N',
    default: '1000',
    help: 'Live X-Mock-Session worlds kept at most',
    readme: 'Live `X-Mock-Session` worlds kept (least recently used evicted)',
    read: wholeNumber(1, 1_000_000),
  },
  'journal-max-bytes': {
    group: PERSISTENCE,
    value: 'N',
    default: '67108864',
    help: "Bytes all sessions' request journals may hold together (64 MiB), oldest dropped first",
    readme: "Bytes all sessions' request journals may hold together (oldest dropped first)",
    read: wholeNumber(0, Number.MAX_SAFE_INTEGER),
  },
  'admin-token': {
    group: ADMIN,
    value: 'TOKEN',
    help: 'Bearer token for /__mock; required to use it off loopback',
    readme: 'Bearer token for `/__mock`; without it the admin API is open on loopback and off elsewhere',
  },
  explain: {
    group: ADMIN,
    help: 'Every answer carries X-Mock-Reason, the rule behind it (without it: only when the request sends X-Mock-Explain: 1)',
    readme:
      'Every answer carries `X-Mock-Reason`: the rule that decided it and its facts ([docs/explain.md](docs/explain.md)); without it, only answers to requests sending `X-Mock-Explain: 1`',
  },
  tracing: {
    group: ADMIN,
    help: 'Each API request is an OpenTelemetry span, through the SDK you register with node --import (needs @opentelemetry/api)',
    readme: 'Each API request is an OpenTelemetry span ([docs/explain.md](docs/explain.md), "Traces")',
  },
  log: {
    group: ADMIN,
    value: 'FORMAT',
    default: 'pretty',
    help: 'Request log: pretty, json or silent',
    readme: 'One line per request: `pretty`, `json` or `silent` (the key is never printed)',
    read: oneOf(['pretty', 'json', 'silent']),
  },
} as const

/** The server, which `petstore-mock` runs without a command; its --help is the top level's, naming the commands too. */
export const SERVE: Command<typeof OPTIONS> = {
  name: 'petstore-mock',
  options: OPTIONS,
  // A getter: the version is read from package.json when --help is asked for, not when the server starts.
  get intro() {
    // The column of summaries two spaces past the longest command's name.
    const width = Math.max(...Object.keys(COMMANDS).map((command) => command.length)) + 2
    return [
      `petstore-mock ${version()}: a stateful mock of the Pet Store API, with auth per key, rate limits, bans and a controllable clock.`,
      '',
      'Usage: petstore-mock [options]      (in a clone: npm start -- [options])',
      '       petstore-mock COMMAND [options]',
      '',
      'Commands (petstore-mock help COMMAND for its options):',
      ...Object.entries(COMMANDS).map(([command, summary]) => `  ${command.padEnd(width)}${summary}`),
      `  ${'help'.padEnd(width)}[COMMAND]: this help, or a command's (the same as petstore-mock COMMAND --help).`,
    ]
  },
  outro: [
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
  ],
}

/** The server's options, and the config file they were read from (for the banner). */
export interface ParsedCli {
  options: PetStoreServerOptions
  config?: string
  /**
   * Where an option's value came from, for a message about it: its flag (`--state-file`), its environment variable
   * (`PETSTORE_STATE_FILE`) or the config file and key (`petstore-mock.json: stateFile`); the flag when none gave it.
   */
  source(key: keyof PetStoreServerOptions): string
  /** Every flag given (or its variable), as read: a command's own flags beside the server's (`mcp --url`). */
  readonly values: Readonly<Record<string, unknown>>
}

/** The server option a flag sets: the flag in camelCase (`state-file`: `stateFile`), but for the one named otherwise. */
const optionOf = (flag: string): string =>
  flag === 'media-type-status' ? 'mediaTypeErrorStatus' : flag.replace(/-(\w)/g, (_dash, letter: string) => letter.toUpperCase())

/**
 * The flags that are no plain value: the config file itself, the files and folders `readNamedFiles` reads, and a
 * command's own flags beside the server's (`mcp --url`).
 */
const NOT_VALUES = new Set<string>(['config', 'scenarios', 'fixtures', 'handlers', 'url'])

/**
 * Reads flags and environment into server options, or the text to print for --help or --version; throws UsageError
 * on anything wrong. The config file (if any) comes first, the flags and environment over it; then the files they all
 * name are read and checked.
 */
export async function parseCli(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  command: Command<typeof OPTIONS> = SERVE,
): Promise<ParsedCli | string> {
  const parsed = parseCommand(command, argv, env)
  if (typeof parsed === 'string') return parsed
  const { values, label } = parsed
  const config = values.config
  let file: PetStoreServerOptions = {}
  if (config !== undefined) {
    try {
      file = await loadConfig(config)
    } catch (error) {
      if (!(error instanceof ConfigError) || error.problems.length === 0) throw new UsageError(`${label('config')}: ${plainMessage(error)}`)
      // A line per problem: one about a key names the file and the key; one about the whole file (missing, not JSON)
      // also names where the file's name came from, --config or PETSTORE_CONFIG.
      const lines = error.problems.map(
        (problem) => `${problem.key === undefined ? `${label('config')} ` : ''}${problemLine(config, problem)}`,
      )
      throw new UsageError(lines.join('\n'))
    }
  }
  const flags = Object.keys(OPTIONS).filter((flag) => flag !== 'config') as (keyof typeof OPTIONS)[]
  const flagOf = new Map(flags.map((flag) => [optionOf(flag), flag]))
  const source = (key: string): string => {
    const flag = flagOf.get(key)
    if (flag !== undefined && values[flag] !== undefined) return label(flag)
    if (config !== undefined && Object.hasOwn(file, key)) return `${config}: ${key}`
    return flag === undefined ? key : `--${flag}`
  }
  const given = Object.entries(values).filter(([flag]) => !NOT_VALUES.has(flag))
  const options: PetStoreServerOptions = { ...file, ...Object.fromEntries(given.map(([flag, value]) => [optionOf(flag), value])) }
  if (options.redis !== undefined && options.stateFile !== undefined)
    throw new UsageError(
      `${source('redis')} and ${source('stateFile')} cannot go together: with Redis, Redis holds the state (use its own persistence). Give one of them.`,
    )
  const names = { scenarios: values.scenarios, fixtures: values.fixtures, handlers: values.handlers }
  try {
    await readNamedFiles(names, process.cwd(), options, source)
  } catch (error) {
    throw new UsageError(plainMessage(error))
  }
  return config === undefined ? { options, source, values } : { options, config: resolve(config), source, values }
}
