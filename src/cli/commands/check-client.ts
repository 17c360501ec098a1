/**
 * `petstore-mock check-client [options] -- COMMAND...` (docs/check-client.md): the client report card for an SDK in
 * any language. Each check starts worlds of its own on free loopback ports and runs COMMAND once per task, told
 * what to do by PETSTORE_MOCK_URL, PETSTORE_MOCK_KEY, PETSTORE_MOCK_TASK and PETSTORE_MOCK_PET_ID; the command
 * exits 0 when the SDK returned a result and non-zero when it surfaced an error (test/cli/check-client.test.ts).
 */
import { writeFile } from 'node:fs/promises'
import { constants } from 'node:os'
import { COMMANDS, type Command, commandLine, UsageError } from '../parse.js'

const OPTIONS = {
  only: { value: 'IDS', help: 'Run only these checks, comma-separated (e.g. rate.retry-after-seconds,retry.backoff)' },
  json: { help: 'Print the report as JSON instead of text' },
  junit: { value: 'FILE', help: 'Also write the report as JUnit XML to FILE' },
  ctrf: { value: 'FILE', help: 'Also write the report as CTRF JSON (https://ctrf.io) to FILE' },
} as const

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

export const CHECK_CLIENT: Command<typeof OPTIONS> = {
  name: 'petstore-mock check-client',
  options: OPTIONS,
  intro: [
    `petstore-mock check-client ${COMMANDS['check-client']}`,
    'Each check runs COMMAND once per task in a world of its own, with PETSTORE_MOCK_URL (the base URL, ending in /v1),',
    'PETSTORE_MOCK_KEY, PETSTORE_MOCK_TASK (list-pets, get-pet or create-pet) and, for get-pet, PETSTORE_MOCK_PET_ID.',
    'COMMAND makes that one call with the SDK under test and exits 0 when it returned a result, non-zero when it',
    'surfaced an error. Checks of petstore-client-checks/2: auth.bearer, auth.no-retry-401, errors.no-retry-4xx,',
    'rate.retry-after-seconds, rate.retry-after-date, rate.stops-before-ban, retry.backoff, retry.jitter (recommended),',
    'retry.idempotent-only, timeout.gives-up, lifecycle.after-sunset (docs/check-client.md). A task is stopped after',
    '10 s (timeout.gives-up: 40 s), and with it everything it started (found by its PETSTORE_MOCK_RUN_ID).',
    '',
    'Usage: petstore-mock check-client [options] -- COMMAND [ARGS...]',
  ],
  outro: [
    'Exit 0 when no required check failed and the client met one check at least (a recommended check that failed is reported, exit 0), 1 when a required one failed or the client met none (the command never reached the mock), 2 on a usage error, a command that is not found or a report that cannot be written, 128 + N when stopped by signal N (130 for SIGINT, 143 for SIGTERM), every task stopped first.',
    '',
    'Examples:',
    '  petstore-mock check-client -- node examples/clients/correct.mjs',
    '  petstore-mock check-client --junit card.xml -- python -m my_sdk_task',
  ],
}

export async function run(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  // Everything after `--` is the client's command, its own flags included.
  const split = argv.indexOf('--')
  const own = split === -1 ? argv : argv.slice(0, split)
  const command = split === -1 ? [] : argv.slice(split + 1)
  const cli = commandLine(CHECK_CLIENT, own, env, ({ values }) => {
    if (command.length === 0) {
      throw new UsageError('needs the client to run after --, as in petstore-mock check-client -- node my-client.mjs.')
    }
    const only = values.only
      ?.split(',')
      .map((id) => id.trim())
      .filter(Boolean)
    return { ...values, only }
  })
  if (typeof cli === 'number') return cli
  // Loaded only now, so --help and usage errors answer at once.
  const [{ commandProblem, commandRunner }, { reportCtrf, reportJUnit, resultText, summaryText }, { runCard, selectChecks }] =
    await Promise.all([import('../../check/command.js'), import('../../check/report.js'), import('../../check/run.js')])
  try {
    selectChecks(cli.only)
  } catch (error) {
    process.stderr.write(`petstore-mock check-client: ${(error as Error).message}\n`)
    return 2
  }
  const problem = commandProblem(command[0] as string)
  if (problem !== undefined) {
    process.stderr.write(`petstore-mock check-client: ${problem}\n`)
    return 2
  }
  const runner = commandRunner(command)
  // Stopped by the terminal or a CI runner: every task, and what each started, is stopped before the card exits.
  const onSignal = (signal: NodeJS.Signals) => {
    void runner.stopAll().finally(() => {
      process.stderr.write(`petstore-mock check-client: stopped by ${signal}, and every task with it.\n`)
      process.exit(128 + (constants.signals[signal] ?? 0))
    })
  }
  for (const signal of SIGNALS) process.once(signal, onSignal)
  const report = await runCard(runner, {
    only: cli.only,
    onResult: cli.json ? undefined : (result) => process.stdout.write(`${resultText(result)}\n`),
  }).finally(() => {
    for (const signal of SIGNALS) process.off(signal, onSignal)
  })
  if (cli.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
  else process.stdout.write(summaryText(report))
  try {
    if (cli.junit) await writeFile(cli.junit, reportJUnit(report))
    if (cli.ctrf) await writeFile(cli.ctrf, reportCtrf(report))
  } catch (error) {
    // Exit 1 says a check failed: a report that could not be written is the invocation's fault, as in verify.
    process.stderr.write(`petstore-mock check-client: could not write the report: ${(error as Error).message}\n`)
    return 2
  }
  return report.ok ? 0 : 1
}
