/**
 * The one command-line parser (src/cli/parse.ts) as users meet it in each command: --help names every option of the
 * command's table, and each kind of mistake is one line naming the option and the fix, with exit code 2.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { SNAPSHOT } from '../../src/cli/commands/snapshot.js'
import { VERIFY } from '../../src/cli/commands/verify.js'
import { SERVE } from '../../src/cli/options.js'
import { COMMANDS, type Command, envName, type OptionSpec, type OptionTable } from '../../src/cli/parse.js'
import { ensureBuilt, ROOT, runCli } from '../http/support.js'

beforeAll(ensureBuilt)

/** Each command as it is typed before its options, and its table. */
const COMMAND_LINES: readonly [string[], Command<OptionTable>][] = [
  [[], SERVE],
  [['verify'], VERIFY],
  [['snapshot'], SNAPSHOT],
]

describe.each(COMMAND_LINES)('%j --help', (command, table) => {
  it('names every option of its table, with its environment variable, and --help and --version', async () => {
    const { code, stdout, stderr } = await runCli([...command, '--help'])
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
    const options = Object.entries(table.options)
    expect(options.length).toBeGreaterThan(3)
    for (const [name, spec] of options) {
      const line = stdout.split('\n').find((text) => text.startsWith(`  --${name}${spec.value ? ` ${spec.value}` : ''} `))
      expect(line, `--${name}`).toBeDefined()
      expect(line).toContain(`[env ${envName(table, name)}]`)
    }
    expect(stdout).toMatch(/^ {2}-h, --help +Show this help$/m)
    expect(stdout).toMatch(/^ {2}-v, --version +Show the version$/m)
  })

  it('prints the version for --version and -v', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string }
    for (const flag of ['--version', '-v'])
      expect(await runCli([...command, flag])).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' })
  })
})

it.each([[[]], [['verify']], [['snapshot']], [['config']]])('%j --help ends with examples', async (command: string[]) => {
  const lines = (await runCli([...command, '--help'])).stdout.trimEnd().split('\n')
  const at = lines.findLastIndex((line) => /^Examples?:$/.test(line))
  expect(at).toBeGreaterThan(0)
  expect(lines.slice(at + 1).every((line) => line.startsWith('  '))).toBe(true)
  expect(lines.slice(at + 1).some((line) => line.includes('petstore-mock'))).toBe(true)
})

it("lists the server's options under their groups' headings, in the table's order", async () => {
  const { stdout } = await runCli(['--help'])
  const groups = [...new Set(Object.values(SERVE.options).map((spec: OptionSpec) => spec.group))]
  expect(groups.length).toBeGreaterThan(3)
  expect(groups).not.toContain(undefined)
  const headings = stdout.split('\n').filter((line) => groups.includes(line.replace(/:$/, '')))
  expect(headings).toEqual(groups.map((group) => `${group}:`))
  // Each option comes after its own heading and before the next one.
  for (const [name, spec] of Object.entries(SERVE.options) as [string, OptionSpec][]) {
    const heading = stdout.indexOf(`\n${spec.group}:\n`)
    const next = groups[groups.indexOf(spec.group) + 1]
    const option = stdout.indexOf(`\n  --${name} `)
    expect(option, `--${name}`).toBeGreaterThan(heading)
    if (next !== undefined) expect(option, `--${name}`).toBeLessThan(stdout.indexOf(`\n${next}:\n`))
  }
})

it('names every command in the top-level --help', async () => {
  const { stdout } = await runCli(['--help'])
  for (const [name, summary] of Object.entries(COMMANDS))
    expect(stdout).toMatch(new RegExp(`^ {2}${name} +${summary.replace(/[().]/g, '\\$&')}$`, 'm'))
})

/** Enough of each command's required options that the mistake under test is the only one. */
const VERIFY_BASE = ['verify', '--target', 'http://127.0.0.1:9/v1', '--key', 'k']
const SNAPSHOT_BASE = ['snapshot', '--target', 'http://127.0.0.1:9/v1', '--key', 'k', '--out', 'x.json']

describe.each([
  [
    'unknown option',
    ['--prot', '4010'],
    "petstore-mock: Unknown option '--prot'. Did you mean --port? Run petstore-mock --help for the options.",
  ],
  ['missing value', ['--port'], 'petstore-mock: --port needs a value, as in --port N. Run petstore-mock --help for the options.'],
  [
    'missing value before another option',
    ['--port', '--log', 'silent'],
    'petstore-mock: --port needs a value, as in --port N; a value starting with a dash is given as --port=N. Run petstore-mock --help for the options.',
  ],
  [
    'value for a switch',
    ['--fsync=yes'],
    'petstore-mock: --fsync takes no value: give it alone. Run petstore-mock --help for the options.',
  ],
  ['bad value', ['--port', 'abc'], 'petstore-mock: --port must be a whole number from 0 to 65535, got "abc".'],
  [
    'stray argument',
    ['verfy'],
    'petstore-mock: Did you mean verify? The first argument is no command (verify, snapshot, config, check-client, mcp or help), and the server takes options only. Run petstore-mock --help for the options.',
  ],
  [
    'unknown option',
    [...VERIFY_BASE, '--bogus'],
    "petstore-mock verify: Unknown option '--bogus'. Run petstore-mock verify --help for the options.",
  ],
  [
    'missing value',
    ['verify', '--target'],
    'petstore-mock verify: --target needs a value, as in --target URL. Run petstore-mock verify --help for the options.',
  ],
  ['bad value', [...VERIFY_BASE, '--timeout', '0'], 'petstore-mock verify: --timeout must be a whole number from 1 to 600000, got "0".'],
  [
    'stray argument, never echoed (it may be a key)',
    [...VERIFY_BASE, 'sk-stray-secret'],
    'petstore-mock verify: takes options only, and got an argument without one after --key and its value. Run petstore-mock verify --help for the options.',
  ],
  [
    'unknown option',
    ['snapshot', '--fromat', 'world'],
    "petstore-mock snapshot: Unknown option '--fromat'. Did you mean --format? Run petstore-mock snapshot --help for the options.",
  ],
  [
    'missing value',
    ['snapshot', '--out'],
    'petstore-mock snapshot: --out needs a value, as in --out FILE. Run petstore-mock snapshot --help for the options.',
  ],
  ['bad value', [...SNAPSHOT_BASE, '--format', 'yaml'], 'petstore-mock snapshot: --format must be state-file or world, got "yaml".'],
  [
    'stray argument',
    ['snapshot', '--max', '5', 'extra'],
    'petstore-mock snapshot: takes options only, and got an argument without one after --max and its value. Run petstore-mock snapshot --help for the options.',
  ],
])('%s: %j', (_kind, args, message) => {
  it('exits 2 with the one line naming the option and the fix', async () => {
    // PETSTORE_PORT: a server the mistake did not stop would listen on a free port, not 4010.
    expect(await runCli(args, { PETSTORE_PORT: '0' })).toEqual({ code: 2, stdout: '', stderr: `${message}\n` })
  })
})

it('names the environment variable a bad value came from', async () => {
  expect(await runCli([], { PETSTORE_FSYNC: 'yes', PETSTORE_PORT: '0' })).toEqual({
    code: 2,
    stdout: '',
    stderr: 'petstore-mock: PETSTORE_FSYNC must be 1, 0, true or false, got "yes".\n',
  })
  const { code, stderr } = await runCli(['snapshot', '--target', 'http://127.0.0.1:9/v1', '--out', 'x.json'], {
    PETSTORE_SNAPSHOT_KEY: 'k e y',
  })
  expect({ code, stderr }).toEqual({
    code: 2,
    stderr: 'petstore-mock snapshot: PETSTORE_SNAPSHOT_KEY must be printable ASCII without spaces (the key is not shown).\n',
  })
})

it('reads an old variable name with one warning, and names it when its value is bad (test/cli/env-names.test.ts has the rest)', async () => {
  const { code, stderr } = await runCli(['snapshot', '--target', 'http://127.0.0.1:9/v1', '--out', 'x.json'], {
    PETSTORE_TARGET_KEY: 'k e y',
  })
  expect({ code, stderr }).toEqual({
    code: 2,
    stderr:
      'petstore-mock snapshot: PETSTORE_TARGET_KEY is the old name of PETSTORE_SNAPSHOT_KEY; it still works, and will be removed in a major version.\n' +
      'petstore-mock snapshot: PETSTORE_TARGET_KEY must be printable ASCII without spaces (the key is not shown).\n',
  })
})
