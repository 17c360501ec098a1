/**
 * The bodies of admin changes under way share one budget, the size of the largest body (src/server/admin/write-budget.ts,
 * docs/spec-decisions.md row 68): eight 55 MB state imports at once once held 2.49 GB. Here a client announces a body
 * of the largest size and sends a little of it: while it holds the budget, another change is 503
 * `too_many_admin_writes` with `Retry-After: 1`, unread; reads go on; once it goes, changes are taken again.
 */
import type { IncomingMessage } from 'node:http'
import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_WRITE_MAX_BYTES } from '../../src/server/admin/write-budget.js'
import { closeServers, eventually, startServer } from './support.js'

let url = ''
let server: Awaited<ReturnType<typeof startServer>>['server']
const sockets = new Set<Socket>()

beforeAll(async () => {
  ;({ url, server } = await startServer({ pets: 3 }))
})

afterAll(async () => {
  for (const socket of sockets) socket.destroy()
  await closeServers()
})

/**
 * A state import that announces a body of `bytes` and sends its first 1 KiB only, holding the budget meanwhile. Resolves
 * once the server has its headers: the budget is taken in that same turn, so a change sent after it meets the hold
 * (one sent before could hold the budget first and get this one refused).
 */
async function slowImport(bytes: number): Promise<Socket> {
  const { hostname, port } = new URL(url)
  const client = connect({ host: hostname, port: Number(port) })
  sockets.add(client)
  client.on('error', () => undefined)
  await new Promise((resolve) => client.once('connect', resolve))
  const arrived = new Promise<void>((resolve) => {
    const seen = (req: IncomingMessage) => {
      if (req.headers['content-length'] !== String(bytes)) return
      server.server.off('request', seen)
      // The admin app's middleware runs after this listener, in the same turn.
      setImmediate(resolve)
    }
    server.server.on('request', seen)
  })
  client.write(
    `PUT /__mock/state HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\nContent-Length: ${bytes}\r\n\r\n${'{'.padEnd(1024, ' ')}`,
  )
  await arrived
  return client
}

const importState = async (body: string) => {
  const response = await fetch(`${url}/__mock/state`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body })
  return { status: response.status, retryAfter: response.headers.get('retry-after'), text: await response.text() }
}

describe('the admin write budget', () => {
  it('refuses a change while a body of the largest size is under way, with Retry-After, and takes it once that body is gone', async () => {
    const state = await (await fetch(`${url}/__mock/state`)).text()
    expect((await importState(state)).status).toBe(204)
    const held = await slowImport(ADMIN_WRITE_MAX_BYTES)
    const refused = await eventually(async () => {
      const answer = await importState(state)
      return answer.status === 503 ? answer : undefined
    })
    expect(refused.retryAfter).toBe('1')
    expect(JSON.parse(refused.text)).toMatchObject({
      code: 'too_many_admin_writes',
      status: 503,
      message: 'The admin changes under way hold the whole admin write budget (64 MiB of bodies at once); retry in a moment.',
    })
    // Reads take no share of it.
    expect((await fetch(`${url}/__mock/state`)).status).toBe(200)
    held.destroy()
    await eventually(async () => ((await importState(state)).status === 204 ? true : undefined))
  })

  it('lets bodies that fit together run together', async () => {
    const half = await slowImport(ADMIN_WRITE_MAX_BYTES / 2)
    const state = await (await fetch(`${url}/__mock/state`)).text()
    expect((await importState(state)).status).toBe(204)
    half.destroy()
  })
})
