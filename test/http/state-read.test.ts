/**
 * `GET /__mock/state` is written piece by piece under the admin read budget (decision 020), never built as one text:
 * a large state arrives chunked and whole, it imports back to the same state, and a client that never reads its
 * export holds one read's share of the budget until it is cut off (`requestTimeoutMs`), as a journal read does.
 * Loopback only.
 */
import { connect, type Socket } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { READ_SHARE_BYTES } from '../../src/server/admin/admin-reads.js'
import { closeServers, eventually, startServer } from './support.js'

afterAll(closeServers)

/** Pets enough for an export of a few MiB: far more than one piece (1,000 pets) and than loopback's socket buffers. */
const PETS = 40_000

describe('GET /__mock/state', () => {
  it('streams a large state (chunked, no Content-Length) that parses whole and imports back unchanged', async () => {
    const { url } = await startServer({ pets: PETS })
    const exported = await fetch(`${url}/__mock/state`)
    expect(exported.status).toBe(200)
    expect(exported.headers.get('content-type')).toMatch(/^application\/json/)
    expect(exported.headers.get('content-length')).toBeNull()
    expect(exported.headers.get('transfer-encoding')).toBe('chunked')
    const text = await exported.text()
    const state = JSON.parse(text) as { version: number; pets: { id: number; name: string }[]; nextId: number }
    expect(state.version).toBe(1)
    expect(state.pets).toHaveLength(PETS)
    expect(state.pets.map((pet) => pet.id)).toEqual(Array.from({ length: PETS }, (_, i) => i + 1))
    expect(state.nextId).toBe(PETS + 1)

    const put = await fetch(`${url}/__mock/state`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: text })
    expect(put.status).toBe(204)
    expect(await (await fetch(`${url}/__mock/state`)).text()).toBe(text)
  })

  it('holds one share of the admin read budget while a client does not read it, and gives it back when cut off', async () => {
    // 12 MB of state: more than loopback's socket buffers take from a client that reads nothing (a few MB), so the
    // export is still under way when the journal is asked for.
    const { url, server } = await startServer({ pets: 200_000, adminReadMaxBytes: READ_SHARE_BYTES, requestTimeoutMs: 2_000 })
    const accepted: Socket[] = []
    server.server.on('connection', (socket: Socket) => accepted.push(socket))
    const journalStatus = async () => {
      const response = await fetch(`${url}/__mock/requests?limit=1`)
      await response.arrayBuffer()
      return response.status
    }
    // The admin app is loaded on its first call: loaded now, the stalled read takes its share as soon as it arrives.
    expect(await journalStatus()).toBe(200)

    const { hostname, port } = new URL(url)
    const client = connect({ host: hostname, port: Number(port) })
    try {
      client.on('error', () => undefined)
      client.pause()
      client.write(`GET /__mock/state HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`)
      const serverSide = await eventually(async () =>
        accepted.find((side) => side.remotePort === client.localPort && side.bytesRead > 0 && side.bytesWritten > 0),
      )
      expect(await journalStatus()).toBe(503)
      expect(await eventually(async () => (serverSide.destroyed ? true : undefined))).toBe(true)
      expect(await eventually(async () => ((await journalStatus()) === 200 ? true : undefined))).toBe(true)
    } finally {
      client.destroy()
    }
  })
})
