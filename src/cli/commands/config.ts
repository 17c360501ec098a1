/**
 * `petstore-mock config validate FILE` (docs/server.md, "A config file"): checks a config file as `--config` reads it (the
 * same schema, the folders and module it names), without starting the server. Prints `FILE is valid` (exit 0), or
 * each problem as one line `FILE: key: message` (exit 2), as the server would refuse the file
 * (test/cli/config.test.ts). Its command line is read by the shared parser (../parse.ts).
 */
import { plainMessage } from '../../core/errors.js'
import { COMMANDS, type Command, commandLine, UsageError } from '../parse.js'

export const CONFIG: Command<Record<string, never>> = {
  name: 'petstore-mock config',
  options: {},
  operands: ['validate', 'FILE'],
  intro: [
    `petstore-mock config ${COMMANDS.config}`,
    'It checks what the server checks at start: the keys and values (schema: petstore-mock/config.schema.json), and the',
    'scenarios and fixtures folders and the handlers module the file names. Paths in the file are relative to it.',
    '',
    'Usage: petstore-mock config validate FILE',
  ],
  outro: [
    'Exit 0 when the file is valid, 2 when it is not (a line per problem) or cannot be read.',
    '',
    'Example:',
    '  petstore-mock config validate petstore-mock.json && petstore-mock --config petstore-mock.json',
  ],
}

export async function run(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const cli = commandLine(CONFIG, argv, env, ({ operands: [action, file] }) => {
    if (action !== 'validate')
      throw new UsageError(`knows one action, validate, as in petstore-mock config validate FILE. Run ${CONFIG.name} --help for it.`)
    return { file: file as string }
  })
  if (typeof cli === 'number') return cli
  const { file } = cli
  // Loaded only now, so --help and usage errors answer at once.
  const { ConfigError, loadConfig, problemLine } = await import('../../server/config-file.js')
  try {
    await loadConfig(file)
  } catch (error) {
    const problems = error instanceof ConfigError && error.problems.length > 0 ? error.problems : [{ message: plainMessage(error) }]
    process.stderr.write(`${problems.map((problem) => problemLine(file, problem)).join('\n')}\n`)
    return 2
  }
  process.stdout.write(`${file} is valid\n`)
  return 0
}
