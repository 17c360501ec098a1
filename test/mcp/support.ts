/**
 * Helpers of the MCP tests: the SDK's own client, over stdio to the built CLI (`petstore-mock mcp`) or over streamable
 * HTTP to `/__mock/mcp` of a server started in this process; each closed by `closeClients`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { CLI, ensureBuilt, eventually, ROOT } from '../http/support.js'

export { rawRequest } from '../http/support.js'

const open = new Set<Client>()

export interface StdioMcp {
  readonly client: Client
  /** The base URL of the server the command started (from its banner on stderr). */
  readonly url: string
  stderr(): string
}

/** Spawns `petstore-mock mcp ARGS` and connects the SDK's client to it over stdio. */
export async function stdioClient(args: readonly string[] = ['--port', '0', '--log', 'silent']): Promise<StdioMcp> {
  await ensureBuilt()
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name, value]) => !name.startsWith('PETSTORE_') && value !== undefined),
  )
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', ...args],
    cwd: ROOT,
    env: env as Record<string, string>,
    stderr: 'pipe',
  })
  let err = ''
  transport.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8')
  })
  const client = new Client({ name: 'petstore-mock-test', version: '1.0.0' })
  open.add(client)
  await client.connect(transport)
  const url = args.includes('--url')
    ? (args[args.indexOf('--url') + 1] as string)
    : await eventually(async () => /listening on (http:\/\/\S+)\/v1/.exec(err)?.[1])
  return { client, url, stderr: () => err }
}

/** Connects the SDK's client to `/__mock/mcp` of the server at `url`, with `headers` on every request. */
export async function httpClient(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/__mock/mcp`), { requestInit: { headers } })
  const client = new Client({ name: 'petstore-mock-test', version: '1.0.0' })
  open.add(client)
  await client.connect(transport)
  return client
}

/** Closes every client (a stdio client's close ends its process). */
export async function closeClients(): Promise<void> {
  const clients = [...open]
  open.clear()
  await Promise.all(clients.map((client) => client.close()))
}

/** A tool's result: the summary line and the JSON it carries. */
export function readResult(result: unknown): { summary: string; data: unknown; isError: boolean } {
  const { content, isError } = result as CallToolResult
  const [first, second] = content as { type: 'text'; text: string }[]
  return { summary: first?.text ?? '', data: second === undefined ? undefined : JSON.parse(second.text), isError: isError === true }
}

/** A session's state as the admin API exports it. */
export async function stateOf(url: string, session: string): Promise<unknown> {
  const response = await fetch(`${url}/__mock/state`, { headers: { 'x-mock-session': session } })
  if (!response.ok) throw new Error(`GET /__mock/state: ${response.status} ${await response.text()}`)
  return response.json()
}

/** An admin request on a session; throws unless it succeeded. */
export async function adminCall(url: string, session: string, method: string, path: string, body?: unknown): Promise<Response> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { 'x-mock-session': session },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  })
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`)
  return response
}
