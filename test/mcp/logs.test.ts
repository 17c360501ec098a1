/**
 * The `--log json` lines an agent reads beside the tools (docs/mcp.md, "Logs"): each names the session, operation, key
 * hint, plan, scenario and stage, fault, the latency a scenario added and the duration; never the key itself.
 */
import { afterEach, expect, it } from 'vitest'
import { auth, closeServers, startServer } from '../http/support.js'

afterEach(closeServers)

it('writes session, operation, key hint, plan, scenario, fault, delay and duration on each API line', async () => {
  const lines: string[] = []
  const { url } = await startServer({ log: 'json', write: (line) => lines.push(line), scenario: 'slow-network' })
  await fetch(`${url}/v1/pets?limit=1`, { headers: auth('test-free', { 'x-mock-session': 'run-7' }) })
  await expect.poll(() => lines.length).toBe(1)
  const line = JSON.parse(lines[0] as string) as Record<string, unknown>
  expect(line).toMatchObject({
    method: 'GET',
    status: 200,
    session: 'run-7',
    operation: 'listPets',
    key: expect.stringMatching(/free$/),
    plan: 'free',
    scenario: 'slow-network',
    fault: 'latency',
    delayMs: expect.any(Number),
    ms: expect.any(Number),
  })
  expect(line.delayMs as number).toBeGreaterThan(0)
  expect(lines[0]).not.toContain('test-free')
})
