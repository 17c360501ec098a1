/**
 * The MCP server of petstore-mock: the tools (tools.ts, tools-clock.ts), the resources (the spec as the mock serves
 * it, the OpenAPI document, each scenario, the state now) and two prompts, over any `MockAdmin` (docs/mcp.md).
 */
import { readFile } from 'node:fs/promises'
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import type { MockAdmin } from '../admin/operations.js'
import { stringifyJson } from '../core/json.js'
import { addKeyTools, addPetTools, addScenarioTools } from './tools.js'
import { addClockTools, addJournalTools, addStateTools } from './tools-clock.js'

/** The package's copy of the API reference (docs/api.md, shipped in `files`), from src/ or from dist/src/. */
async function specText(): Promise<string> {
  for (const path of ['../../docs/api.md', '../../../docs/api.md']) {
    const text = await readFile(new URL(path, import.meta.url), 'utf8').catch(() => undefined)
    if (text !== undefined) return text
  }
  return 'The API reference (docs/api.md) is not in this install: read petstore://openapi.json.'
}

const json = (uri: URL, value: unknown) => ({ contents: [{ uri: uri.href, mimeType: 'application/json', text: stringifyJson(value, 2) }] })

/** Registers the resources. */
function addResources(server: McpServer, admin: MockAdmin): void {
  server.registerResource(
    'spec',
    'petstore://spec',
    {
      title: 'The Pet Store API as the mock serves it',
      description: "docs/api.md: every operation, status and header, with the mock's decisions where the spec leaves a point open",
      mimeType: 'text/markdown',
    },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: await specText() }] }),
  )
  server.registerResource(
    'openapi',
    'petstore://openapi.json',
    { title: 'OpenAPI 3.1 document', description: 'GET /__mock/openapi.json: the document the mock serves', mimeType: 'application/json' },
    async (uri) => json(uri, await admin.openapi()),
  )
  server.registerResource(
    'state',
    'petstore://state',
    {
      title: 'The world now',
      description: "Scenario, clock, timeline and each key's quota and ban of the default session",
      mimeType: 'application/json',
    },
    async (uri) => {
      const [scenario, clock, keys, timeline] = await Promise.all([admin.currentScenario(), admin.clock(), admin.keys(), admin.timeline()])
      return json(uri, { scenario, clock, keys, timeline })
    },
  )
  server.registerResource(
    'scenario',
    new ResourceTemplate('petstore://scenarios/{name}', {
      list: async () => ({
        resources: (await admin.scenarios()).map((one) => ({
          uri: `petstore://scenarios/${one.name}`,
          name: one.name,
          mimeType: 'application/json',
          ...(one.description === undefined ? {} : { description: one.description }),
        })),
      }),
    }),
    {
      title: 'A scenario',
      description: "A scenario's definition (GET /__mock/scenarios/{name}): data, keys, clock, faults, timeline",
      mimeType: 'application/json',
    },
    async (uri, { name }) => json(uri, await admin.scenario(String(name))),
  )
}

const prompt = (text: string) => ({ messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }] })

/** Registers the prompts. */
function addPrompts(server: McpServer): void {
  server.registerPrompt(
    'reproduce-failure',
    {
      title: 'Reproduce a failure',
      description: 'Sets the mock up to fail the way a report describes: which key, which status, how often',
      argsSchema: { description: z.string().describe('The failure, e.g. "test-free gets 429 on every third listPets"') },
    },
    ({ description }) =>
      prompt(
        [
          `Reproduce this failure of the Pet Store API with the petstore-mock tools: ${description}`,
          '1. list_keys and list_scenarios: find the key (its plan) and a shipped scenario that already does this (read petstore://scenarios/{name}).',
          '2. A 429 on one key: exhaust_quota (window minute or day) or ban_key. A whole scenario: set_scenario. Other statuses (500, 502, 503, 504), network errors, timeouts or latency at some frequency need a scenario file with a fault rule, e.g. { "match": { "operation": "listPets", "key": "test-free" }, "when": { "every": 3 }, "fault": { "type": "status", "status": 503 } } (docs/scenarios.md, "Faults"): write it, then start the server with --scenarios DIR.',
          '3. Send the request (or have the client do it), then read_journal with the key and status to confirm the failure happened as described; advance_clock to move past windows and bans.',
          'Report the exact tool calls, so the failure can be replayed.',
        ].join('\n'),
      ),
  )
  server.registerPrompt(
    'check-retry-behaviour',
    {
      title: "Check my client's retry behaviour",
      description: 'Drives a client into 429s and judges how it retried (Retry-After, back-off, ban)',
      argsSchema: { key: z.string().optional().describe('The API key the client uses (default test-free)') },
    },
    ({ key }) =>
      prompt(
        [
          `Check how a client of the Pet Store API retries, with key ${key ?? 'test-free'}:`,
          '1. reset, then exhaust_quota for the key (window minute): its next request gets 429 with Retry-After (spec "Exceeding the limit").',
          '2. Have the client make its calls against the server; then read_journal with the key to see each request, the 429s and their Retry-After.',
          '3. audit: rate.retry-after-seconds fails when a retry came before Retry-After, rate.backoff when the waits between retries of a 429 did not grow, rate.stops-before-ban when the key was banned.',
          '4. Optionally ban_key for 30 s and repeat, and set_scenario flaky to see 5xx retries (retry.idempotent-only).',
          'Summarise which rules the client keeps and which it breaks, with the request numbers as evidence.',
        ].join('\n'),
      ),
  )
}

/**
 * @example
 * const server = createMcpServer(createHttpAdmin({ url: 'http://127.0.0.1:4010' }), '0.1.0')
 * await server.connect(new StdioServerTransport())
 */
export function createMcpServer(admin: MockAdmin, version: string): McpServer {
  const server = new McpServer(
    { name: 'petstore-mock', version },
    {
      instructions:
        'petstore-mock is a stateful mock of the Pet Store API (base path /v1, Authorization: Bearer <key>). These tools steer its world: keys and their quotas, scenarios, the clock, the request journal. The app under test calls the HTTP server; you shape what it meets.',
    },
  )
  addKeyTools(server, admin)
  addPetTools(server, admin)
  addScenarioTools(server, admin)
  addClockTools(server, admin)
  addJournalTools(server, admin)
  addStateTools(server, admin)
  addResources(server, admin)
  addPrompts(server)
  return server
}
