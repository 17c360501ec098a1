#!/usr/bin/env node
/**
 * `petstore-mock` / `npm start`: a command (`verify`, `snapshot`, `config`) or the server (`serve.ts`), each loaded
 * only when run. The server runs in the node it was started in, with no V8 flag of its own: flags belong to the
 * operator (decision 021; `--help` and README give the ones for a load test on one core).
 */

import { COMMANDS } from './parse.js'

// Commands beside the server, each in its own module so the server's start-up loads none of them.
const [command, ...rest] = process.argv.slice(2)
if (command !== undefined && Object.hasOwn(COMMANDS, command)) {
  const module = (await import(`./commands/${command}.js`)) as { run(argv: string[], env: NodeJS.ProcessEnv): Promise<number> }
  process.exitCode = await module.run(rest, process.env)
} else {
  const { serve } = await import('./serve.js')
  await serve()
}
