/**
 * `/__mock/mcp` on a running server (streamable HTTP, stateless): it follows the admin API's protections with the same
 * codes (docs/spec-decisions.md rows 36 and 45: loopback `Host`, same-site `Origin`, the admin token), acts on the
 * session the request names, and serves the resources and prompts (docs/mcp.md).
 */
import { ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { auth, closeServers, startServer } from '../http/support.js'
import { closeClients, httpClient, rawRequest, readResult } from './support.js'

afterEach(async () => {
  await closeClients()
  await closeServers()
})

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
})
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

/** The status and Error code of the same refusal from the MCP endpoint and from an admin call. */
async function bothRefuse(url: string, headers: Record<string, string>) {
  const mcp = await rawRequest(url, '/__mock/mcp', { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body: INITIALIZE })
  const admin = await rawRequest(url, '/__mock/state', { headers })
  const code = (body: string) => (JSON.parse(body) as { code: string }).code
  return { mcp: [mcp.status, code(mcp.body)], admin: [admin.status, code(admin.body)] }
}

describe('/__mock/mcp', () => {
  it('lists the tools, valid by the protocol schema', async () => {
    const { url } = await startServer()
    const client = await httpClient(url)
    const listed = ListToolsResultSchema.parse(await client.listTools())
    expect(listed.tools).toHaveLength(12)
  })

  it('refuses a foreign Host and a cross-site Origin with the admin API codes', async () => {
    const { url } = await startServer()
    const port = new URL(url).port
    const host = await bothRefuse(url, { host: `evil.example:${port}` })
    expect(host.mcp).toEqual([403, 'admin_forbidden'])
    expect(host.mcp).toEqual(host.admin)
    const origin = await bothRefuse(url, { origin: 'https://evil.example' })
    expect(origin.mcp).toEqual([403, 'admin_forbidden'])
    expect(origin.mcp).toEqual(origin.admin)
    // The same request from the server's own origin goes through.
    const own = await rawRequest(url, '/__mock/mcp', { method: 'POST', headers: { ...MCP_HEADERS, origin: url }, body: INITIALIZE })
    expect(own.status).toBe(200)
  })

  it('needs the admin token when the server has one, as the admin API does', async () => {
    const { url } = await startServer({ adminToken: 'mcp-secret' })
    const missing = await bothRefuse(url, {})
    expect(missing.mcp).toEqual([401, 'admin_unauthorized'])
    expect(missing.mcp).toEqual(missing.admin)
    const wrong = await bothRefuse(url, { authorization: 'Bearer nope' })
    expect(wrong.mcp).toEqual(wrong.admin)
    const client = await httpClient(url, { authorization: 'Bearer mcp-secret' })
    expect(readResult(await client.callTool({ name: 'list_keys', arguments: {} })).isError).toBe(false)
  })

  it('answers GET with 405 (stateless: no stream to open) and a body that is not JSON with a parse error', async () => {
    const { url } = await startServer()
    expect((await rawRequest(url, '/__mock/mcp')).status).toBe(405)
    const bad = await rawRequest(url, '/__mock/mcp', { method: 'POST', headers: MCP_HEADERS, body: '{nope' })
    expect(bad.status).toBe(400)
    expect(JSON.parse(bad.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } })
  })

  it('acts on the session of X-Mock-Session unless the tool names one', async () => {
    const { url } = await startServer()
    const client = await httpClient(url, { 'x-mock-session': 'agent' })
    await client.callTool({ name: 'ban_key', arguments: { key: 'test-pro', seconds: 60 } })
    expect((await fetch(`${url}/v1/pets`, { headers: auth('test-pro', { 'x-mock-session': 'agent' }) })).status).toBe(429)
    expect((await fetch(`${url}/v1/pets`, { headers: auth('test-pro') })).status).toBe(200)
    await client.callTool({ name: 'ban_key', arguments: { key: 'test-free', seconds: 60, session: 'other' } })
    expect((await fetch(`${url}/v1/pets`, { headers: auth('test-free', { 'x-mock-session': 'other' }) })).status).toBe(429)
    expect((await fetch(`${url}/v1/pets`, { headers: auth('test-free', { 'x-mock-session': 'agent' }) })).status).toBe(200)
  })

  it('serves the spec, the OpenAPI document, each scenario and the state as resources', async () => {
    const { url } = await startServer({ scenario: 'rate-limited' })
    const client = await httpClient(url)
    const uris = (await client.listResources()).resources.map((resource) => resource.uri)
    expect(uris).toEqual(
      expect.arrayContaining(['petstore://spec', 'petstore://openapi.json', 'petstore://state', 'petstore://scenarios/flaky']),
    )
    const text = async (uri: string) => ((await client.readResource({ uri })).contents[0] as { text: string }).text
    expect(await text('petstore://spec')).toContain('# The Pet Store API')
    const openapi = JSON.parse(await text('petstore://openapi.json')) as { openapi: string }
    expect(openapi).toEqual(await (await fetch(`${url}/__mock/openapi.json`)).json())
    expect(JSON.parse(await text('petstore://scenarios/flaky'))).toMatchObject({ name: 'flaky' })
    expect(JSON.parse(await text('petstore://state'))).toMatchObject({ scenario: 'rate-limited', keys: expect.any(Array) })
    await expect(client.readResource({ uri: 'petstore://scenarios/nope' })).rejects.toThrow(/nope/)
  })

  it('gives the two prompts', async () => {
    const { url } = await startServer()
    const client = await httpClient(url)
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name).sort()).toEqual(['check-retry-behaviour', 'reproduce-failure'])
    const prompt = await client.getPrompt({ name: 'reproduce-failure', arguments: { description: 'test-free gets 503 every 3rd call' } })
    expect(JSON.stringify(prompt.messages)).toContain('test-free gets 503 every 3rd call')
  })
})
