/**
 * `petstore-mock mcp` (docs/mcp.md): an MCP server on stdio for agents that start their tools as processes. It starts
 * the HTTP server as `petstore-mock` does, with the same options, so the app under test calls the world the agent
 * drives; with `--url` it attaches to a server already running instead. Either way the tools go through the server's
 * admin API, so a tool changes the world exactly as the admin request does. stdout carries protocol messages only:
 * the banner and the request log go to stderr.
 */
import { plainMessage } from '../../core/errors.js'
import type { PetStoreServer, PetStoreServerOptions } from '../../server/http-server.js'
import { needIntegrations } from '../integrations.js'
import { OPTIONS, parseCli } from '../options.js'
import { COMMANDS, type Command, UsageError, usageFailed, version } from '../parse.js'

const url = {
  group: 'MCP',
  value: 'URL',
  help: 'Attach to the server running at URL (http://127.0.0.1:4010) through its admin API, instead of starting one',
  read: (text: string, label: string) => {
    if (!/^https?:\/\/[^/\s]+/.test(text))
      throw new UsageError(`${label} must be an http(s) address such as http://127.0.0.1:4010, got ${JSON.stringify(text)}.`)
    return text
  },
} as const

export const MCP: Command<typeof OPTIONS & { url: typeof url }> = {
  name: 'petstore-mock mcp',
  options: { ...OPTIONS, url },
  intro: [
    `petstore-mock mcp: ${COMMANDS.mcp}`,
    'Speaks MCP (JSON-RPC) on stdin/stdout and serves the Pet Store API over HTTP from the same process, with the options',
    'of petstore-mock; with --url it starts no server and drives the running one (give --admin-token if it has one).',
    'Running servers also answer MCP at /__mock/mcp (streamable HTTP). Tools, resources and prompts: docs/mcp.md.',
    '',
    'Usage: petstore-mock mcp [options]',
    '       petstore-mock mcp --url http://127.0.0.1:4010 [--admin-token TOKEN]',
  ],
  outro: [
    'stdout carries MCP messages only: the banner and the request log (--log) go to stderr.',
    '',
    'Example (an MCP client config, from an empty folder: npx puts the optional packages beside petstore-mock):',
    '  { "mcpServers": { "petstore": { "command": "npx", "args": ["-y", "-p", "petstore-mock", "-p", "@modelcontextprotocol/sdk",',
    '    "-p", "express", "petstore-mock", "mcp", "--port", "4010"] } } }',
  ],
}

/** Starts this process's own server, its output on stderr; resolves with its address. */
async function startServer(options: PetStoreServerOptions, config: string | undefined) {
  const { createPetStoreServer, isLoopback } = await import('../../server/http-server.js')
  const [{ banner }, { clockView }] = await Promise.all([import('../serve.js'), import('../../world/events.js')])
  const write = (line: string) => process.stderr.write(`${line}\n`)
  if (options.adminToken === undefined && !isLoopback(options.host ?? '127.0.0.1'))
    throw new UsageError(
      'listens beyond loopback without --admin-token, so its admin API (which the tools use) is off: give --admin-token.',
    )
  const server = createPetStoreServer({ ...options, write })
  const address = await server.listen()
  write(banner(address, options, config, clockView(server.petStore.clock)))
  return { server, address }
}

export async function run(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let parsed: Awaited<ReturnType<typeof parseCli>>
  try {
    parsed = await parseCli(argv, env, MCP)
  } catch (error) {
    return usageFailed(MCP, error)
  }
  if (typeof parsed === 'string') {
    process.stdout.write(`${parsed}\n`)
    return 0
  }
  const attach = parsed.values.url as string | undefined
  const own = Object.keys(parsed.values).filter((flag) => flag !== 'url' && flag !== 'admin-token')
  if (attach !== undefined && own.length > 0)
    return usageFailed(
      MCP,
      new UsageError(
        `--url attaches to a running server: --${own[0]} is that server's option, not this one's. Give --url (and --admin-token) alone.`,
      ),
    )
  try {
    needIntegrations({ server: attach === undefined, mcp: true }, parsed.options, parsed.source)
  } catch (error) {
    return usageFailed(MCP, error)
  }
  let server: PetStoreServer | undefined
  let target = attach
  if (target === undefined) {
    try {
      const started = await startServer(parsed.options, parsed.config)
      server = started.server
      target = started.address
    } catch (error) {
      if (error instanceof UsageError) return usageFailed(MCP, error)
      process.stderr.write(`petstore-mock mcp: could not start the server: ${plainMessage(error)}\n`)
      return 1
    }
  }
  const [{ StdioServerTransport }, { createMcpServer }, { createHttpAdmin }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/stdio.js'),
    import('../../mcp/server.js'),
    import('../../admin/http-admin.js'),
  ])
  const mcp = createMcpServer(createHttpAdmin({ url: target, token: parsed.options.adminToken }), version())
  let ended: (code: number) => void = () => {}
  const done = new Promise<number>((resolve) => {
    ended = resolve
  })
  let stopping = false
  const stop = (code: number) => {
    if (stopping) return
    stopping = true
    void mcp
      .close()
      .then(() => server?.close())
      .then(
        () => ended(code),
        (error: unknown) => {
          process.stderr.write(`petstore-mock mcp: could not stop cleanly: ${plainMessage(error)}\n`)
          ended(1)
        },
      )
  }
  // The client ends the conversation by closing stdin (MCP stdio transport); a signal stops it too.
  process.stdin.on('end', () => stop(0))
  process.stdin.on('close', () => stop(0))
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => stop(0))
  await mcp.connect(new StdioServerTransport())
  process.stderr.write(`petstore-mock mcp: MCP on stdio${server === undefined ? `, driving ${target}` : ''}\n`)
  return done
}
