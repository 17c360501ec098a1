/**
 * `export_state` answers a state of up to 2 MiB and refuses a larger one (docs/mcp.md): both admin implementations
 * stop reading as soon as the text is longer than asked for (src/admin/operations.ts, `exportState`), so a state too large
 * to answer is never built whole, and under the cap the text is GET /__mock/state's, character for character.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHttpAdmin } from '../../src/admin/http-admin.js'
import { closeServers, startServer } from '../http/support.js'
import { closeClients, httpClient, readResult } from './support.js'

let large = ''
let small = ''

beforeAll(async () => {
  // 40,000 pets: about 3 MB of state, over the tool's 2 MiB.
  ;[{ url: large }, { url: small }] = await Promise.all([startServer({ pets: 40_000 }), startServer({ pets: 3 })])
}, 120_000)

afterAll(async () => {
  await closeClients()
  await closeServers()
})

describe('the state export of the MCP tools', () => {
  it("refuses, over /__mock/mcp, a state over 2 MiB and points at the admin API's streamed export", async () => {
    expect((await (await fetch(`${large}/__mock/state`)).text()).length).toBeGreaterThan(2 * 1024 * 1024)
    const client = await httpClient(large)
    const result = readResult(await client.callTool({ name: 'export_state', arguments: {} }))
    expect(result.isError).toBe(true)
    expect(result.summary).toContain('The state is over 2097152 characters: read it with GET /__mock/state instead, which streams it.')
  })

  it('answers, over /__mock/mcp, a small state as GET /__mock/state does', async () => {
    const client = await httpClient(small)
    const result = await client.callTool({ name: 'export_state', arguments: {} })
    const texts = (result as { content: { text: string }[] }).content.map((part) => part.text)
    expect(texts[1]).toBe(await (await fetch(`${small}/__mock/state`)).text())
  })

  it('stops reading the admin API once the text is longer than asked for (the stdio tools), and reads it whole without a cap', async () => {
    const admin = createHttpAdmin({ url: large })
    expect(await admin.exportState(undefined, 64 * 1024)).toBeUndefined()
    const whole = await admin.exportState()
    expect(whole).toBe(await (await fetch(`${large}/__mock/state`)).text())
    expect(await createHttpAdmin({ url: small }).exportState(undefined, 2 * 1024 * 1024)).toBe(
      await (await fetch(`${small}/__mock/state`)).text(),
    )
  })
})
