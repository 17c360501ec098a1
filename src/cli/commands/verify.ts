/**
 * `petstore-mock verify --target URL --key KEY` (docs/verify.md): checks a deployment of the Pet Store API against the
 * spec and the mock, and prints the report. Exit codes: 0 everything agrees, 1 something differs, 2 a usage error, an
 * unreachable target or a file that cannot be read or written. Keys are never printed.
 *
 * Its command line: each option a flag and an environment variable (PETSTORE_VERIFY_KEY: keys stay out of process
 * lists and CI logs), read by the shared parser (../parse.ts) from the table below; `--help` is written from the same
 * table.
 */
import { plainMessage } from '../../core/errors.js'
import { DEFAULT_TARGET_BODY_BYTES } from '../../verify/read-body.js'
import { redact } from '../../verify/report.js'
import type { PetStoreOptions } from '../../world/options.js'
import { COMMANDS, type Command, commandLine, type Parsed, UsageError, wholeNumber } from '../parse.js'

function readTarget(text: string, label: string): string {
  if (!/^https?:\/\/[^/]/i.test(text) || !URL.canParse(text))
    throw new UsageError(
      `${label} must be an http or https URL ending with the base path, e.g. https://staging.petstore.example/v1, got ${JSON.stringify(text)}.`,
    )
  return text
}

const OPTIONS = {
  target: {
    value: 'URL',
    help: 'Base address of the deployment, ending with /v1 (required)',
    read: readTarget,
  },
  key: {
    value: 'KEY',
    help: 'An API key of the target (required; never printed)',
  },
  'free-key': {
    value: 'KEY',
    help: 'A Free-plan key of the target, for the quota checks (never printed)',
  },
  config: {
    value: 'FILE',
    help: "The mock's options to verify: a config file as the server's --config reads it (default the mock's defaults)",
  },
  'allow-writes': {
    help: 'Also send POST /pets (pets named "petstore-mock verify <ISO time>") and a DELETE of an id no pet has',
  },
  'allow-quota': {
    help: "Use up the free key's minute to see the 429, Retry-After and the window (needs --free-key)",
  },
  'allow-ban': {
    help: 'Retry before Retry-After until the free key is banned (needs --allow-quota; the key stays banned for a while)',
  },
  'max-requests': {
    value: 'N',
    default: '200',
    help: 'Requests sent to the target at most; checks past it are skipped',
    read: wholeNumber(1, 100_000),
  },
  'max-wait': {
    value: 'SECONDS',
    default: '65',
    help: 'The longest Retry-After verify waits for; a longer one skips the check',
    read: wholeNumber(0, 86_400),
  },
  timeout: {
    value: 'MS',
    default: '10000',
    help: 'How long one request may take, its answer read whole',
    read: wholeNumber(1, 600_000),
  },
  'max-body-bytes': {
    value: 'N',
    default: `${DEFAULT_TARGET_BODY_BYTES}`,
    help: 'Bytes one answer of the target may hold (16 MiB); a larger one is read no further',
    read: wholeNumber(1, 1024 * 1024 * 1024),
  },
  'write-config': {
    value: 'FILE',
    help: 'Write the options that make the mock answer like the target as a config file (over --config)',
  },
  json: { help: 'Print the report as JSON instead of a table' },
} as const

export const VERIFY: Command<typeof OPTIONS> = {
  name: 'petstore-mock verify',
  options: OPTIONS,
  intro: [
    `petstore-mock verify: ${COMMANDS.verify}`,
    'For each check: what the spec says, what the target did, what the mock does, and the option that makes the mock match.',
    'Read-only unless --allow-writes. Exit 0 when everything agrees, 1 when something differs, 2 for a usage error or an unreachable target.',
    '',
    'Usage: petstore-mock verify --target URL --key KEY [options]',
  ],
  outro: [
    'docs/verify.md lists every check and what verify cannot see from outside.',
    '',
    'Examples:',
    '  petstore-mock verify --target http://127.0.0.1:4010/v1 --key test-pro',
    '  PETSTORE_VERIFY_KEY="$STAGING_KEY" petstore-mock verify --target "$STAGING_URL" --allow-writes --json',
    '  petstore-mock verify --target "$STAGING_URL" --key "$STAGING_KEY" --free-key "$STAGING_FREE_KEY" --allow-quota \\',
    '    --write-config petstore-mock.json && petstore-mock --config petstore-mock.json',
  ],
}

/** The flags (and the environment for target and keys) checked together; throws UsageError, naming the fix. */
function verifyCli({ values }: Parsed<typeof OPTIONS>) {
  const { target, key } = values
  if (target === undefined)
    throw new UsageError('--target is required: the base address of the deployment, e.g. --target https://staging.petstore.example/v1.')
  if (key === undefined || key === '') throw new UsageError('--key is required: an API key of the target (or PETSTORE_VERIFY_KEY).')
  const freeKey = values['free-key']
  const allowQuota = values['allow-quota'] === true
  const allowBan = values['allow-ban'] === true
  if (allowQuota && freeKey === undefined) throw new UsageError('--allow-quota needs --free-key KEY: a Free-plan key of the target.')
  if (allowBan && !allowQuota) throw new UsageError('--allow-ban needs --allow-quota (and --free-key): the ban follows a 429.')
  return {
    json: values.json === true,
    config: values.config,
    writeConfig: values['write-config'],
    verify: {
      target,
      key,
      freeKey,
      allowWrites: values['allow-writes'] === true,
      allowQuota,
      allowBan,
      maxRequests: values['max-requests'],
      maxWaitSeconds: values['max-wait'],
      timeoutMs: values.timeout,
      maxBodyBytes: values['max-body-bytes'],
    },
  }
}

/**
 * Runs the command; resolves with its exit code.
 *
 * @example
 * process.exitCode = await run(['--target', 'http://127.0.0.1:4010/v1', '--key', 'test-pro'], process.env)
 */
export async function run(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const cli = commandLine(VERIFY, argv, env, verifyCli)
  if (typeof cli === 'number') return cli
  const secrets = [cli.verify.key, cli.verify.freeKey ?? '']
  const out = (text: string) => void process.stdout.write(`${redact(text, secrets)}\n`)
  const err = (text: string) => void process.stderr.write(`${redact(text, secrets)}\n`)
  const fail = (message: string) => {
    err(`petstore-mock verify: ${message}`)
    return 2
  }
  // Loaded only now, so --help and usage errors answer at once.
  const [{ ConfigError, loadConfig, problemLine }, { formatJson, formatTable, VerifyError, verify, writeConfigFile }] = await Promise.all([
    import('../../server/config-file.js'),
    import('../../verify/index.js'),
  ])
  let mock: PetStoreOptions = {}
  if (cli.config !== undefined) {
    try {
      mock = await loadConfig(cli.config)
    } catch (error) {
      // Every problem of the file, one line each as the server and `config validate` print them.
      if (!(error instanceof ConfigError) || error.problems.length === 0) return fail(`--config: ${plainMessage(error)}`)
      for (const problem of error.problems) err(`petstore-mock verify: ${problemLine(cli.config, problem)}`)
      return 2
    }
  }
  // With --json, stdout holds the JSON only: the budget line and waits go to stderr.
  const say = cli.json ? err : out
  let report: Awaited<ReturnType<typeof verify>>
  try {
    report = await verify({ ...cli.verify, mock, onProgress: say })
  } catch (error) {
    return fail(error instanceof VerifyError ? error.message : `could not finish: ${plainMessage(error)}`)
  }
  // Printed as it is: verify() redacted its values, and redacting the text again would rename the JSON's fields
  // when a key occurs in one (test/cli/verify-key-in-field-names.test.ts).
  process.stdout.write(`${cli.json ? formatJson(report) : formatTable(report, process.stdout.columns ?? 160)}\n`)
  if (cli.writeConfig !== undefined) {
    try {
      await writeConfigFile(cli.writeConfig, report.config, cli.config)
    } catch (error) {
      return fail(`--write-config ${cli.writeConfig}: ${plainMessage(error)}`)
    }
    const count = Object.keys(report.config).length
    say(`Wrote ${cli.writeConfig}${count === 0 ? ' (no option differs)' : ''}: start the mock with --config ${cli.writeConfig}.`)
  }
  return report.failed > 0 ? 1 : 0
}
