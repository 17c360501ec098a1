/**
 * The one command-line parser of every command (the server and each of COMMANDS), on `node:util` `parseArgs`, strict.
 * Each command gives a table of its options; the parsing, the environment variables, the value checks and `--help` are
 * made from it, so `--help` names every option the parser takes (test/cli/usage.test.ts). A mistake: one line, exit 2.
 */
import { readFileSync } from 'node:fs'
import { type ParseArgsConfig, parseArgs } from 'node:util'
import { likelyMeant, listed, type ReadValue, readSwitch, UsageError } from './values.js'

export { likelyMeant, listed, oneOf, type ReadValue, UsageError, wholeNumber } from './values.js'

/** One option of a command's table; the table's key is its name (`--name`). */
export interface OptionSpec {
  /** What the option takes, for --help (`N`, `URL`); absent for a switch, a flag without a value. */
  readonly value?: string
  /** A one-letter alias (`-h`). */
  readonly short?: string
  /** May be given more than once; the values come as a list. */
  readonly multiple?: boolean
  /**
   * Earlier names of its environment variable (see `envName` for the one name), still read when the variable is not
   * set, each with a warning; to be removed in a major version.
   */
  readonly oldEnv?: readonly string[]
  /** One line for --help. */
  readonly help: string
  /** Its value when neither the flag nor the variable gives one, for --help and the README's table (`4010`, `none`). */
  readonly default?: string
  /** The heading --help lists it under (`Where it listens`); options without one come under `Options`. */
  readonly group?: string
  /** The README table's description, in markdown, where it says more than the --help line. */
  readonly readme?: string
  /** Checks and converts the value; without it an option's value is its text. */
  readonly read?: ReadValue<unknown>
}

export type OptionTable = Readonly<Record<string, OptionSpec>>

type One<S> = S extends { read: ReadValue<infer T> } ? T : S extends { value: string } ? string : boolean
/** The options given, each converted by its table entry. */
export type Values<T extends OptionTable> = { [K in keyof T]?: T[K] extends { multiple: true } ? One<T[K]>[] : One<T[K]> }

export interface Command<T extends OptionTable> {
  /** `petstore-mock` or `petstore-mock verify`: what messages start with and --help refers to. */
  readonly name: string
  readonly options: T
  /** --help's lines before the option list (what it does, Usage). */
  readonly intro: readonly string[]
  /** --help's lines after the option list (examples, exit codes). */
  readonly outro: readonly string[]
  /** The arguments it takes besides its options, in order, as Usage names them (`validate`, `FILE`); none without it. */
  readonly operands?: readonly string[]
}

/**
 * The environment variable of a command's option, one rule for all: `PETSTORE_`, the command after `petstore-mock`
 * (none for the server), then the option's name, upper-cased with dashes as underscores.
 *
 * @example
 * envName(SERVE, 'state-file') // 'PETSTORE_STATE_FILE'
 * envName(VERIFY, 'key') // 'PETSTORE_VERIFY_KEY'
 */
export function envName(command: Pick<Command<OptionTable>, 'name'>, option: string): string {
  const words = [...command.name.split(' ').slice(1), option]
  return `PETSTORE_${words.join('_').replace(/-/g, '_').toUpperCase()}`
}

export interface Parsed<T extends OptionTable> {
  readonly values: Values<T>
  /** Where an option came from, for messages: `--port` when given as a flag, else its variable (`PETSTORE_PORT`). */
  label(name: keyof T & string): string
  /** The arguments besides the options, one for each of the command's `operands`. */
  readonly operands: readonly string[]
}

/** The commands beside the server, each a module of src/cli/commands/, and the line the top-level --help gives each. */
export const COMMANDS = {
  verify: 'black-box checks of a Pet Store deployment against the spec and the mock.',
  snapshot: "reads a Pet Store deployment's pets (GET /pets) into a state the mock loads, so it serves that catalogue.",
  config: 'validate FILE: checks a config file (--config) and prints each problem as FILE: key: message.',
  'check-client': "-- COMMAND: grades a client SDK against the spec's failure rules (Retry-After, back-off, retries).",
  mcp: 'the server, driven by an AI agent over MCP on stdio (or --url: attach to a running server).',
} as const

/** Every command takes these; --help lists them after its own. */
const BUILT_IN: OptionTable = {
  help: { short: 'h', help: 'Show this help', group: 'Help' },
  version: { short: 'v', help: 'Show the version', group: 'Help' },
}

export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
  return pkg.version
}

/** The flag as --help and messages write it: `--port N`. */
const usageOf = (name: string, spec: OptionSpec) => `${spec.short ? `-${spec.short}, ` : ''}--${name}${spec.value ? ` ${spec.value}` : ''}`

/** --help of a command: its intro, every option of its table with its variable and example, its outro. */
export function helpText<T extends OptionTable>(command: Command<T>): string {
  const options: [string, OptionSpec][] = [...Object.entries(command.options), ...Object.entries(BUILT_IN)]
  const width = Math.max(...options.map(([name, spec]) => usageOf(name, spec).length))
  const line = ([name, spec]: [string, OptionSpec]) => {
    const variable = Object.hasOwn(BUILT_IN, name) ? '' : ` [env ${envName(command, name)}]`
    return `  ${usageOf(name, spec).padEnd(width)}  ${spec.help}${spec.default === undefined ? '' : ` (default ${spec.default})`}${variable}`
  }
  // The command's groups in the order of their first option, then the built-in options under `Options`.
  const groups = [...new Set(options.map(([, spec]) => spec.group ?? 'Options'))]
  const lines = groups.flatMap((group) => ['', `${group}:`, ...options.filter(([, spec]) => (spec.group ?? 'Options') === group).map(line)])
  return [...command.intro, ...lines, '', ...command.outro].join('\n')
}

/** The README's markers around a command's table of options (scripts/option-table.ts writes between them). */
export const TABLE_MARKERS = { start: '<!-- options:start -->', end: '<!-- options:end -->' } as const

/**
 * A command's options as a markdown table, for the README (scripts/option-table.ts; test/cli/option-table.test.ts
 * keeps the README's equal to it): the flag, its variable, its default, its description.
 *
 * @example
 * optionTable(SERVE) // '| Option | Variable | Default | Meaning |\n|---|---|---|---|\n| `--port N` | `PETSTORE_PORT` | 4010 | ...'
 */
export function optionTable<T extends OptionTable>(command: Command<T>): string {
  // A `|` inside a cell, even in code, ends it unless escaped (GitHub Flavored Markdown, tables).
  const cell = (text: string) => text.replace(/\|/g, '\\|')
  const rows = Object.entries(command.options as OptionTable).map(([name, spec]) =>
    [
      `\`${usageOf(name, spec)}\``,
      `\`${envName(command, name)}\``,
      spec.default ?? (spec.value === undefined ? 'off' : 'none'),
      spec.readme ?? spec.help,
    ].map(cell),
  )
  return ['| Option | Variable | Default | Meaning |', '|---|---|---|---|', ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n')
}

/** parseArgs' own errors (ERR_PARSE_ARGS_*) as one line naming the option and the fix; never the value, which may be a key. */
function usageLine(error: unknown, args: readonly string[], config: ParseArgsConfig, table: OptionTable, name: string): string {
  const help = `Run ${name} --help for the options.`
  const { code, message } = error as { code?: string; message: string }
  if (!code?.startsWith('ERR_PARSE_ARGS_')) throw error
  const quoted = /'([^']*)'/.exec(message)?.[1] ?? ''
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const meant = quoted.startsWith('--') ? likelyMeant(quoted.slice(2), Object.keys(table)) : undefined
    return `Unknown option '${quoted}'.${meant === undefined ? '' : ` Did you mean --${meant}?`} ${help}`
  }
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    // A stray argument may be a key that lost its flag: say where it is, not what it is.
    const tokens = parseArgs({ ...config, args: [...args], strict: false, tokens: true }).tokens
    const at = tokens.findIndex((token) => token.kind === 'positional')
    const before = tokens[at - 1]
    const where =
      before === undefined
        ? ' at the start'
        : before.kind === 'option'
          ? ` after ${before.rawName}${before.value !== undefined && !before.inlineValue ? ' and its value' : ''}`
          : ` after ${args[before.index]}`
    if (name === 'petstore-mock' && before === undefined) {
      // A first word: a command mistyped, most likely. Named only when close to one (the suggestion first), never echoed.
      const commands = [...Object.keys(COMMANDS), 'help']
      const meant = likelyMeant(args[tokens[at]?.index ?? 0] ?? '', commands)
      return `${meant === undefined ? '' : `Did you mean ${meant}? `}The first argument is no command (${listed(commands, 'or')}), and the server takes options only. ${help}`
    }
    return `takes options only, and got an argument without one${where}. ${help}`
  }
  const flag = /--[\w-]+/.exec(message)?.[0] ?? quoted
  const spec = table[flag.slice(2)] ?? BUILT_IN[flag.slice(2)]
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && spec !== undefined) {
    if (spec.value === undefined) return `${flag} takes no value: give it alone. ${help}`
    const dash = message.includes('ambiguous') ? `; a value starting with a dash is given as ${flag}=${spec.value}` : ''
    return `${flag} needs a value, as in ${usageOf(flag.slice(2), spec)}${dash}. ${help}`
  }
  return `${message.split('\n')[0]?.replace(/\.?$/, '.')} ${help}`
}

/** A flag's value, or its variable's when the flag is not given, converted by its table entry. */
function readOption(spec: OptionSpec, flag: unknown, text: string | undefined, label: string): unknown {
  const read = (value: string) => (spec.read ? spec.read(value, label) : value)
  if (flag === undefined) {
    if (text === undefined || text === '') return undefined
    if (spec.value === undefined) return readSwitch(text, label)
    return spec.multiple ? [read(text)] : read(text)
  }
  if (spec.value === undefined) return flag
  return Array.isArray(flag) ? flag.map((one: string) => read(one)) : read(flag as string)
}

/**
 * Reads a command line by its command's table: the values, or the text to print for --help or --version.
 * Throws UsageError with the one line to print.
 *
 * @example
 * const parsed = parseCommand(VERIFY, ['--target', 'http://127.0.0.1:4010/v1', '--key', 'test-pro'], process.env)
 */
export function parseCommand<T extends OptionTable>(
  command: Command<T>,
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): Parsed<T> | string {
  const table: OptionTable = command.options
  const config = {
    options: Object.fromEntries(
      Object.entries({ ...table, ...BUILT_IN }).map(([name, spec]: [string, OptionSpec]) => [
        name,
        {
          type: spec.value === undefined ? ('boolean' as const) : ('string' as const),
          ...(spec.short ? { short: spec.short } : {}),
          ...(spec.multiple ? { multiple: true } : {}),
        },
      ]),
    ),
  }
  const operands = command.operands ?? []
  let flags: Record<string, unknown>
  let positionals: string[]
  try {
    ;({ values: flags, positionals } = parseArgs({ ...config, args: [...argv], strict: true, allowPositionals: operands.length > 0 }))
  } catch (error) {
    throw new UsageError(usageLine(error, argv, config, table, command.name))
  }
  if (flags.help) return helpText(command)
  if (flags.version) return version()
  // Counted, never echoed: like a stray argument, an extra one may be a key that lost its flag.
  if (positionals.length !== operands.length) {
    const wanted = `${command.name} ${operands.join(' ')}`
    throw new UsageError(
      positionals.length < operands.length
        ? `needs ${operands.slice(positionals.length).join(' ')}, as in ${wanted}. Run ${command.name} --help for the options.`
        : `takes ${operands.join(' ')} and options, and got ${positionals.length - operands.length} argument(s) more. Run ${command.name} --help for the options.`,
    )
  }
  const variables = new Map(Object.entries(table).map(([name, spec]) => [name, fromEnv(command, name, spec, env)]))
  const label = (name: string) => (flags[name] === undefined ? (variables.get(name)?.variable ?? envName(command, name)) : `--${name}`)
  const values: Record<string, unknown> = {}
  for (const [name, spec] of Object.entries(table)) {
    const value = readOption(spec, flags[name], variables.get(name)?.text, label(name))
    if (value !== undefined) values[name] = value
  }
  return { values: values as Values<T>, label, operands: positionals }
}

/**
 * An option's variable: its text and name, read under the one name (`envName`), else under an old name, whose use
 * gets a line on stderr naming the variables only (a value may be a key). Empty counts as not set.
 */
function fromEnv(
  command: Command<OptionTable>,
  name: string,
  spec: OptionSpec,
  env: NodeJS.ProcessEnv,
): { text: string | undefined; variable: string } {
  const variable = envName(command, name)
  const isSet = (key: string) => env[key] !== undefined && env[key] !== ''
  const old = (spec.oldEnv ?? []).filter(isSet)
  for (const key of old)
    process.stderr.write(
      `${command.name}: ${key} is the old name of ${variable}; ${isSet(variable) ? `${variable} is set too and wins, and` : 'it still works, and'} will be removed in a major version.\n`,
    )
  const from = isSet(variable) ? variable : (old[0] ?? variable)
  return { text: env[from], variable: from }
}

/**
 * Prints a usage error as its one line and gives exit code 2; any other error is thrown on.
 *
 * @example
 * try { parseCommand(VERIFY, argv, env) } catch (error) { return usageFailed(VERIFY, error) }
 */
export function usageFailed(command: Command<OptionTable>, error: unknown): 2 {
  if (!(error instanceof UsageError)) throw error
  // A message of several problems (a config file's) is a line each, each naming the command.
  const lines = error.message.split('\n').map((line) => `${command.name}: ${line}`)
  process.stderr.write(`${lines.join('\n')}\n`)
  return 2
}

/**
 * A command's line read by its table, then checked and shaped by `read`; or its exit code when the command ends
 * there: 0 once --help or --version is printed, 2 once a usage error is (`usageFailed`).
 *
 * @example
 * const cli = commandLine(VERIFY, argv, env, ({ values }) => ({ target: values.target }))
 * if (typeof cli === 'number') return cli
 */
export function commandLine<T extends OptionTable, R extends object>(
  command: Command<T>,
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  read: (parsed: Parsed<T>) => R,
): R | 0 | 2 {
  try {
    const parsed = parseCommand(command, argv, env)
    if (typeof parsed !== 'string') return read(parsed)
    process.stdout.write(`${parsed}\n`)
    return 0
  } catch (error) {
    return usageFailed(command, error)
  }
}
