#!/usr/bin/env node
/**
 * `petstore-mock` / `npm start`. This module loads almost nothing: on Node 24 and later it may first replace its
 * process with node started with the collector's flags it needs (same pid; `hosts/start-flags.ts`, decisions 017
 * and 018), and that is cheapest before the server's modules are loaded. The server's start-up is `serve.ts`; `verify` and `snapshot` are commands in their own modules.
 */
import { chooseStartFlags } from '../hosts/start-flags.js'

/** Commands beside the server, each in its own module so the server's start-up loads none of them. */
const COMMANDS = new Set(['verify', 'snapshot'])
const [command, ...rest] = process.argv.slice(2)
if (command !== undefined && COMMANDS.has(command)) {
  const module = (await import(`./commands/${command}.js`)) as { run(argv: string[], env: NodeJS.ProcessEnv): Promise<number> }
  process.exitCode = await module.run(rest, process.env)
} else {
  const startLines = chooseStartFlags()
  const { serve } = await import('./serve.js')
  await serve(startLines)
}
