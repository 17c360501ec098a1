/**
 * The command line of `petstore-mock verify`: each option a flag (the target and keys also an environment variable,
 * so keys stay out of process lists and CI logs); `--help` is written from the same list, with an example each.
 */
import { parseArgs } from 'node:util'
import { DEFAULT_TARGET_BODY_BYTES } from './read-body.js'
import type { VerifyOptions } from './types.js'

interface OptionSpec {
  readonly name: string
  /** What the option takes, for --help; empty for a switch. */
  readonly value: string
  readonly env?: string
  readonly help: string
  readonly example: string
}

const OPTIONS: readonly OptionSpec[] = [
  {
    name: 'target',
    value: 'URL',
    env: 'PETSTORE_VERIFY_TARGET',
    help: 'Base address of the deployment, ending with /v1 (required)',
    example: '--target https://staging.petstore.example/v1',
  },
  {
    name: 'key',
    value: 'KEY',
    env: 'PETSTORE_VERIFY_KEY',
    help: 'An API key of the target (required; never printed)',
    example: '--key "$STAGING_KEY"',
  },
  {
    name: 'free-key',
    value: 'KEY',
    env: 'PETSTORE_VERIFY_FREE_KEY',
    help: 'A Free-plan key of the target, for the quota checks (never printed)',
    example: '--free-key "$STAGING_FREE_KEY"',
  },
  {
    name: 'config',
    value: 'FILE',
    help: "The mock's options to verify: a config file as the server's --config reads it (default the mock's defaults)",
    example: '--config petstore-mock.json',
  },
  {
    name: 'allow-writes',
    value: '',
    help: 'Also send POST /pets (pets named "petstore-mock verify <ISO time>") and a DELETE of an id no pet has',
    example: '--allow-writes',
  },
  {
    name: 'allow-quota',
    value: '',
    help: "Use up the free key's minute to see the 429, Retry-After and the window (needs --free-key)",
    example: '--allow-quota',
  },
  {
    name: 'allow-ban',
    value: '',
    help: 'Retry before Retry-After until the free key is banned (needs --allow-quota; the key stays banned for a while)',
    example: '--allow-ban',
  },
  {
    name: 'max-requests',
    value: 'N',
    help: 'Requests sent to the target at most (default 200); checks past it are skipped',
    example: '--max-requests 100',
  },
  {
    name: 'max-wait',
    value: 'SECONDS',
    help: 'The longest Retry-After verify waits for (default 65); a longer one skips the check',
    example: '--max-wait 0',
  },
  { name: 'timeout', value: 'MS', help: 'How long one request may take, its answer read whole (default 10000)', example: '--timeout 5000' },
  {
    name: 'max-body-bytes',
    value: 'N',
    help: `Bytes one answer of the target may hold (default ${DEFAULT_TARGET_BODY_BYTES}, 16 MiB); a larger one is read no further`,
    example: '--max-body-bytes 1048576',
  },
  {
    name: 'write-config',
    value: 'FILE',
    help: 'Write the options that make the mock answer like the target as a config file (over --config)',
    example: '--write-config petstore-mock.json',
  },
  { name: 'json', value: '', help: 'Print the report as JSON instead of a table', example: '--json' },
]

/** A mistake in the command line: printed without a stack, exit code 2. */
export class VerifyUsageError extends Error {}

export interface VerifyCli {
  readonly verify: Omit<VerifyOptions, 'fetch' | 'mock' | 'onProgress'>
  readonly config?: string
  readonly writeConfig?: string
  readonly json: boolean
}

export function verifyHelpText(): string {
  const width = Math.max(...OPTIONS.map((o) => `--${o.name} ${o.value}`.length))
  const lines = OPTIONS.flatMap((o) => [
    `  ${`--${o.name} ${o.value}`.padEnd(width)}  ${o.help}${o.env ? ` [env ${o.env}]` : ''}`,
    `  ${''.padEnd(width)}  e.g. ${o.example}`,
  ])
  return [
    'petstore-mock verify: black-box checks of a Pet Store deployment against the spec and the mock.',
    'For each check: what the spec says, what the target did, what the mock does, and the option that makes the mock match.',
    'Read-only unless --allow-writes. Exit 0 when everything agrees, 1 when something differs, 2 for a usage error or an unreachable target.',
    '',
    'Usage: petstore-mock verify --target URL --key KEY [options]',
    '',
    'Options:',
    ...lines,
    `  ${'--help'.padEnd(width)}  Show this help`,
    '',
    'Examples:',
    '  petstore-mock verify --target http://127.0.0.1:4010/v1 --key test-pro',
    '  PETSTORE_VERIFY_KEY="$STAGING_KEY" petstore-mock verify --target "$STAGING_URL" --allow-writes --json',
    '  petstore-mock verify --target "$STAGING_URL" --key "$STAGING_KEY" --free-key "$STAGING_FREE_KEY" --allow-quota \\',
    '    --write-config petstore-mock.json && petstore-mock --config petstore-mock.json',
    '',
    'docs/verify.md lists every check and what verify cannot see from outside.',
  ].join('\n')
}

function whole(text: string | undefined, flag: string, min: number, max: number): number | undefined {
  if (text === undefined) return undefined
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max)
    throw new VerifyUsageError(`--${flag} must be a whole number from ${min} to ${max}, got ${JSON.stringify(text)}.`)
  return Number(text)
}

function readFlags(argv: readonly string[]): Record<string, string | boolean | undefined> {
  try {
    return parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        ...Object.fromEntries(OPTIONS.map((o) => [o.name, { type: o.value === '' ? ('boolean' as const) : ('string' as const) }])),
        help: { type: 'boolean', short: 'h' },
      },
    }).values
  } catch (error) {
    // A stray argument may be a key that lost its flag: never echo it.
    if ((error as { code?: string }).code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL')
      throw new VerifyUsageError('takes options only, and got an argument without one. Run petstore-mock verify --help for the options.')
    const message = (error as Error).message.replace(/\. To specify.*$/s, '').replace(/\.?$/, '.')
    throw new VerifyUsageError(`${message} Run petstore-mock verify --help for the options.`)
  }
}

/** Reads the flags (and the environment for target and keys); throws VerifyUsageError, naming the fix. */
export function parseVerifyArgs(argv: readonly string[], env: NodeJS.ProcessEnv): VerifyCli | 'help' {
  const flags = readFlags(argv)
  if (flags.help) return 'help'
  const text = (name: string): string | undefined => {
    const value = flags[name]
    if (typeof value === 'string') return value
    const variable = OPTIONS.find((o) => o.name === name)?.env
    return variable === undefined || env[variable] === '' ? undefined : env[variable]
  }
  const target = text('target')
  const key = text('key')
  if (target === undefined)
    throw new VerifyUsageError(
      '--target is required: the base address of the deployment, e.g. --target https://staging.petstore.example/v1.',
    )
  if (!/^https?:\/\/[^/]/i.test(target) || !URL.canParse(target))
    throw new VerifyUsageError(
      `--target must be an http or https URL ending with the base path, e.g. https://staging.petstore.example/v1, got ${JSON.stringify(target)}.`,
    )
  if (key === undefined || key === '') throw new VerifyUsageError('--key is required: an API key of the target (or PETSTORE_VERIFY_KEY).')
  const freeKey = text('free-key')
  const allowQuota = flags['allow-quota'] === true
  const allowBan = flags['allow-ban'] === true
  if (allowQuota && freeKey === undefined) throw new VerifyUsageError('--allow-quota needs --free-key KEY: a Free-plan key of the target.')
  if (allowBan && !allowQuota) throw new VerifyUsageError('--allow-ban needs --allow-quota (and --free-key): the ban follows a 429.')
  const verify = {
    target,
    key,
    freeKey,
    allowWrites: flags['allow-writes'] === true,
    allowQuota,
    allowBan,
    maxRequests: whole(text('max-requests'), 'max-requests', 1, 100_000),
    maxWaitSeconds: whole(text('max-wait'), 'max-wait', 0, 86_400),
    timeoutMs: whole(text('timeout'), 'timeout', 1, 600_000),
    maxBodyBytes: whole(text('max-body-bytes'), 'max-body-bytes', 1, 1024 * 1024 * 1024),
  }
  const config = text('config')
  const writeConfig = text('write-config')
  return {
    verify,
    json: flags.json === true,
    ...(config === undefined ? {} : { config }),
    ...(writeConfig === undefined ? {} : { writeConfig }),
  }
}
