/**
 * The one command-line parser of every command (the server, `verify`, `snapshot`, `config`), on `node:util` `parseArgs` in
 * strict mode. Each command gives a table of its options; the parsing, the environment variables, the value checks
 * and `--help` are all made from it, so `--help` names every option the parser takes
 * (test/cli/usage.test.ts). A mistake is one line without a stack, exit code 2.
 */
import { readFileSync } from 'node:fs'
import { type ParseArgsConfig, parseArgs } from 'node:util'
import { PetStoreMockError } from '../core/errors.js'

/** A mistake in the command line: printed as one line without a stack, exit code 2. */
export class UsageError extends PetStoreMockError {
  override readonly name = 'UsageError'
  readonly code = 'usage'
}

/** Checks an option's text (from the flag or its environment variable) and converts it; throws UsageError naming `label`. */
export type ReadValue<T> = (text: string, label: string) => T

/** One option of a command's table; the table's key is its name (`--name`). */
export interface OptionSpec {
  /** What the option takes, for --help (`N`, `URL`); absent for a switch, a flag without a value. */
  readonly value?: string
  /** A one-letter alias (`-h`). */
  readonly short?: string
  /** May be given more than once; the values come as a list. */
  readonly multiple?: boolean
  /** Read when the flag is not given (an empty one counts as not set); a switch's takes 1, true, 0 or false. */
  readonly env?: string
  /** One line for --help. */
  readonly help: string
  /** A command line using it, shown under it in --help. */
  readonly example?: string
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
} as const

/** "a, b and c". */
export const listed = (words: readonly string[], last: 'and' | 'or') =>
  words.length < 2 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} ${last} ${words.at(-1)}`

/** Every command takes these; --help lists them after its own. */
const BUILT_IN: OptionTable = {
  help: { short: 'h', help: 'Show this help' },
  version: { short: 'v', help: 'Show the version' },
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
  const lines = options.flatMap(([name, spec]) => [
    `  ${usageOf(name, spec).padEnd(width)}  ${spec.help}${spec.env ? ` [env ${spec.env}]` : ''}`,
    ...(spec.example ? [`  ${''.padEnd(width)}  e.g. ${spec.example}`] : []),
  ])
  return [...command.intro, '', 'Options:', ...lines, '', ...command.outro].join('\n')
}

/**
 * A whole number in [min, max], for an option's `read`.
 *
 * @example
 * const port = { value: 'N', help: 'Port to listen on', read: wholeNumber(0, 65535) }
 */
export function wholeNumber(min: number, max: number): ReadValue<number> {
  return (text, label) => {
    if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max)
      throw new UsageError(`${label} must be a whole number from ${min} to ${max}, got ${JSON.stringify(text)}.`)
    return Number(text)
  }
}

/**
 * One of the given words, for an option's `read`.
 *
 * @example
 * const log = { value: 'FORMAT', help: 'Request log', read: oneOf(['pretty', 'json', 'silent'] as const) }
 */
export function oneOf<const W extends string>(words: readonly W[]): ReadValue<W> {
  const allowed = listed(words, 'or')
  return (text, label) => {
    if (!(words as readonly string[]).includes(text)) throw new UsageError(`${label} must be ${allowed}, got ${JSON.stringify(text)}.`)
    return text as W
  }
}

/** A switch's variable: 1, 0, true or false, in any case. */
function readSwitch(text: string, label: string): boolean {
  if (!/^(1|0|true|false)$/i.test(text)) throw new UsageError(`${label} must be 1, 0, true or false, got ${JSON.stringify(text)}.`)
  return /^(1|true)$/i.test(text)
}

/** The option an unknown `--name` is likely a typo of: the same letters in another order, or one a start of the other. */
function likelyMeant(unknown: string, names: readonly string[]): string | undefined {
  const letters = (word: string) => [...word].sort().join('')
  if (!unknown.startsWith('--') || unknown.length < 5) return undefined
  const name = unknown.slice(2)
  const found =
    names.find((known) => letters(known) === letters(name)) ?? names.find((known) => known.startsWith(name) || name.startsWith(known))
  return found === undefined ? undefined : `--${found}`
}

/** parseArgs' own errors (ERR_PARSE_ARGS_*) as one line naming the option and the fix; never the value, which may be a key. */
function usageLine(error: unknown, args: readonly string[], config: ParseArgsConfig, table: OptionTable, name: string): string {
  const help = `Run ${name} --help for the options.`
  const { code, message } = error as { code?: string; message: string }
  if (!code?.startsWith('ERR_PARSE_ARGS_')) throw error
  const quoted = /'([^']*)'/.exec(message)?.[1] ?? ''
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const meant = likelyMeant(quoted, Object.keys(table))
    return `Unknown option '${quoted}'.${meant === undefined ? '' : ` Did you mean ${meant}?`} ${help}`
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
    const commands = name === 'petstore-mock' && before === undefined ? ` The commands are ${listed(Object.keys(COMMANDS), 'and')}.` : ''
    return `takes options only, and got an argument without one${where}.${commands} ${help}`
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
  const label = (name: string) => (flags[name] === undefined && table[name]?.env !== undefined ? (table[name].env as string) : `--${name}`)
  const values: Record<string, unknown> = {}
  for (const [name, spec] of Object.entries(table)) {
    const value = readOption(spec, flags[name], spec.env === undefined ? undefined : env[spec.env], label(name))
    if (value !== undefined) values[name] = value
  }
  return { values: values as Values<T>, label, operands: positionals }
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
  process.stderr.write(
    `${error.message
      .split('\n')
      .map((line) => `${command.name}: ${line}`)
      .join('\n')}\n`,
  )
  return 2
}
