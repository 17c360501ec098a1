/**
 * `petstore-mock verify --target URL --key KEY` (issue #15): checks a deployment of the Pet Store API against the
 * spec and the mock, and prints the report. Exit codes: 0 everything agrees, 1 something differs, 2 a usage error,
 * an unreachable target or a file that cannot be read or written. Keys are never printed.
 */
import { plainMessage } from '../../core/errors.js'
import { parseVerifyArgs, type VerifyCli, VerifyUsageError, verifyHelpText } from '../../verify/args.js'
import { redact } from '../../verify/report.js'
import type { PetStoreOptions } from '../../world/options.js'

/**
 * Runs the command; resolves with its exit code.
 *
 * @example
 * process.exitCode = await run(['--target', 'http://127.0.0.1:4010/v1', '--key', 'test-pro'], process.env)
 */
export async function run(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let cli: VerifyCli | 'help'
  try {
    cli = parseVerifyArgs(argv, env)
  } catch (error) {
    if (!(error instanceof VerifyUsageError)) throw error
    process.stderr.write(`petstore-mock verify: ${error.message}\n`)
    return 2
  }
  if (cli === 'help') {
    process.stdout.write(`${verifyHelpText()}\n`)
    return 0
  }
  const secrets = [cli.verify.key, cli.verify.freeKey ?? '']
  const out = (text: string) => void process.stdout.write(`${redact(text, secrets)}\n`)
  const err = (text: string) => void process.stderr.write(`${redact(text, secrets)}\n`)
  const fail = (message: string) => {
    err(`petstore-mock verify: ${message}`)
    return 2
  }
  // Loaded only now, so --help and usage errors answer at once.
  const [{ loadConfig }, { formatJson, formatTable, VerifyError, verify, writeConfigFile }] = await Promise.all([
    import('../../server/config-file.js'),
    import('../../verify/index.js'),
  ])
  let mock: PetStoreOptions = {}
  if (cli.config !== undefined) {
    try {
      mock = await loadConfig(cli.config)
    } catch (error) {
      return fail(`--config: ${plainMessage(error)}`)
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
