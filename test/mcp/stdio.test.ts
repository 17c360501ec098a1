/**
 * `petstore-mock mcp` as an agent starts it: a process speaking MCP on stdio that serves the API over HTTP too
 * (docs/mcp.md, "A worked example"). The tool list validates against the protocol's schema; a scripted client uses up
 * the free key's minute, the app's next request is a 429 with Retry-After, the clock moves past the window, and the
 * request after is a 200. `--url` attaches to a server already running.
 */
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { auth, closeServers, runCli, startServer } from '../http/support.js'
import { closeClients, readResult, stdioClient } from './support.js'

afterEach(async () => {
  await closeClients()
  await closeServers()
})

const TOOLS = [
  'list_keys',
  'create_pets',
  'reset',
  'set_scenario',
  'list_scenarios',
  'exhaust_quota',
  'ban_key',
  'advance_clock',
  'read_journal',
  'audit',
  'export_state',
  'import_state',
]

describe('petstore-mock mcp', () => {
  it('lists every tool, each valid by the protocol schema with an input schema and a description citing the spec', async () => {
    const { client } = await stdioClient()
    const listed = ListToolsResultSchema.parse(await client.listTools())
    expect(listed.tools.map((tool) => tool.name).sort()).toEqual([...TOOLS].sort())
    for (const tool of listed.tools) {
      expect(tool.inputSchema.type).toBe('object')
      expect(tool.description, tool.name).toMatch(/Same as|GET \/__mock/)
    }
    const described = listed.tools.filter((tool) => /Spec: "/.test(tool.description ?? '')).map((tool) => tool.name)
    expect(described).toEqual(expect.arrayContaining(['exhaust_quota', 'ban_key', 'advance_clock', 'read_journal', 'audit']))
  })

  // On the real clock: the minute may end between the tool and the request.
  it('exhausts the free minute, sees the 429 with Retry-After, advances past the window and gets a 200', { retry: 2 }, async () => {
    const { client, url } = await stdioClient()
    const exhausted = readResult(await client.callTool({ name: 'exhaust_quota', arguments: { key: 'test-free', window: 'minute' } }))
    expect(exhausted.isError).toBe(false)
    expect(exhausted.data).toMatchObject({ key: 'test-free', minuteUsed: 60, perMinute: 60 })
    const limited = await fetch(`${url}/v1/pets`, { headers: auth('test-free') })
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    const moved = readResult(await client.callTool({ name: 'advance_clock', arguments: { to: 'next-minute' } }))
    expect(moved.isError).toBe(false)
    const again = await fetch(`${url}/v1/pets`, { headers: auth('test-free') })
    expect(again.status).toBe(200)
    const journal = readResult(await client.callTool({ name: 'read_journal', arguments: { key: 'test-free' } }))
    expect((journal.data as { status: number }[]).map((entry) => entry.status)).toEqual([429, 200])
  })

  it('writes nothing but protocol messages to stdout: the banner and request log go to stderr', async () => {
    const { client, url, stderr } = await stdioClient(['--port', '0', '--log', 'json'])
    await fetch(`${url}/v1/pets`, { headers: auth('test-pro') })
    // A bad line on stdout would have broken the client's parse; the tools still answer.
    expect(readResult(await client.callTool({ name: 'list_keys', arguments: {} })).isError).toBe(false)
    expect(stderr()).toContain('listening on')
    await expect.poll(() => stderr()).toContain('"operation":"listPets"')
  })

  it('answers a bad argument with an error result naming the fix, and keeps serving', async () => {
    const { client } = await stdioClient()
    const unknown = readResult(await client.callTool({ name: 'ban_key', arguments: { key: 'nope', seconds: 5 } }))
    expect(unknown.isError).toBe(true)
    expect(unknown.summary).toContain('Known keys: test-free')
    const both = readResult(await client.callTool({ name: 'advance_clock', arguments: { by: 60, to: 'sunset' } }))
    expect(both.isError).toBe(true)
    expect(both.summary).toContain('exactly one of')
    const wrongType = readResult(await client.callTool({ name: 'create_pets', arguments: { count: 'many' } }))
    expect(wrongType.isError).toBe(true)
    const scenario = readResult(await client.callTool({ name: 'set_scenario', arguments: { name: 'flakey' } }))
    expect(scenario.isError).toBe(true)
    expect(scenario.summary).toContain('flaky')
    expect(readResult(await client.callTool({ name: 'list_keys', arguments: {} })).isError).toBe(false)
  })

  it('attaches to a running server with --url, and acts on its world', async () => {
    const { url } = await startServer()
    const { client } = await stdioClient(['--url', url])
    expect(readResult(await client.callTool({ name: 'ban_key', arguments: { key: 'test-pro', seconds: 60 } })).isError).toBe(false)
    expect((await fetch(`${url}/v1/pets`, { headers: auth('test-pro') })).status).toBe(429)
  })

  it('refuses --url beside a server option, and lists itself in --help', async () => {
    const mixed = await runCli(['mcp', '--url', 'http://127.0.0.1:9', '--port', '0'])
    expect(mixed.code).toBe(2)
    expect(mixed.stderr).toContain('--port')
    const help = await runCli(['mcp', '--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/--url URL/)
    expect(help.stdout).toMatch(/--scenario NAME/)
    expect((await runCli(['--help'])).stdout).toMatch(/^ {2}mcp +the server, driven by an AI agent/m)
  })
})
