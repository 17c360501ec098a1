#!/usr/bin/env node
/**
 * `petstore-mock` / `npm start`: a command (`verify`, `snapshot`, `config`) or the server (`serve.ts`), each loaded
 * only when run. The server runs in the node it was started in, with no V8 flag of its own: flags belong to the
 * operator (decision 021; `--help` and README give the ones for a load test on one core).
 * `petstore-mock help [COMMAND]` is `petstore-mock [COMMAND] --help` (test/cli/help-command.test.ts).
 */

import { COMMANDS, likelyMeant, listed } from './parse.js'

type Run = (argv: string[], env: NodeJS.ProcessEnv) => Promise<number>
const isCommand = (word: string | undefined): word is keyof typeof COMMANDS => word !== undefined && Object.hasOwn(COMMANDS, word)
// Commands beside the server, each in its own module so the server's start-up loads none of them.
const commandRun = async (command: keyof typeof COMMANDS) => ((await import(`./commands/${command}.js`)) as { run: Run }).run

// A reader that stops early (`petstore-mock check-client … | head`) closes the pipe: stop quietly, as Unix tools do.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error
  process.exit(process.exitCode ?? 0)
})

const [command, ...rest] = process.argv.slice(2)
if (command === 'help') {
  const [topic, ...extra] = rest
  if (isCommand(topic) && extra.length === 0) process.exitCode = await (await commandRun(topic))(['--help'], process.env)
  else if (topic === undefined) {
    const { SERVE } = await import('./options.js')
    const { helpText } = await import('./parse.js')
    process.stdout.write(`${helpText(SERVE)}\n`)
  } else {
    // Never echoed: like a stray argument, it may be a key that lost its flag.
    const meant = extra.length === 0 ? likelyMeant(topic, Object.keys(COMMANDS)) : undefined
    const commands = listed(Object.keys(COMMANDS), 'and')
    process.stderr.write(
      `petstore-mock help: ${extra.length > 0 ? 'takes one command at most' : 'knows no such command'}.${meant === undefined ? '' : ` Did you mean ${meant}?`} The commands are ${commands}.\n`,
    )
    process.exitCode = 2
  }
} else if (isCommand(command)) process.exitCode = await (await commandRun(command))(rest, process.env)
else {
  const { serve } = await import('./serve.js')
  await serve()
}
