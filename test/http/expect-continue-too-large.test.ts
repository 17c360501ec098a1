/**
 * `Expect: 100-continue` with a `Content-Length` over the body limit: the server answers 413 at once rather
 * than asking for a body it would refuse (RFC 9110 section 10.1.1), and closes the connection, the body never read.
 * Raw sockets on 127.0.0.1, as a client sees the interim answer only there.
 */
import { connect } from 'node:net'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { closeServers, MIB, startServer } from './support.js'

let port = 0

beforeAll(async () => {
  port = Number(new URL((await startServer()).url).port)
})
afterAll(closeServers)

/** The head of a `POST /v1/pets` that declares `length` bytes and waits for 100 Continue. */
const head = (length: number) =>
  [
    'POST /v1/pets HTTP/1.1',
    'Host: 127.0.0.1',
    'Authorization: Bearer test-pro',
    'Content-Type: application/json',
    `Content-Length: ${length}`,
    'Expect: 100-continue',
    '',
    '',
  ].join('\r\n')

/**
 * Sends `head`, then `body` once 100 Continue arrives; resolves with what the server sent, at its final answer's end
 * (or, with `untilClosed`, once it ended the connection), and whether it ended the connection.
 */
function exchange(length: number, { body, untilClosed = false }: { body?: string; untilClosed?: boolean } = {}) {
  return new Promise<{ text: string; closed: boolean }>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head(length)))
    let text = ''
    let sent = false
    const done = (closed: boolean) => {
      socket.destroy()
      resolve({ text, closed })
    }
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => {
      text += chunk
      if (body !== undefined && !sent && /^HTTP\/1\.1 100 [^\r]*\r\n\r\n/.test(text)) {
        sent = true
        socket.write(body)
      }
      const final = /HTTP\/1\.1 [2-5]\d\d [\s\S]*?content-length: (\d+)\r\n[\s\S]*?\r\n\r\n/i.exec(text)
      if (!untilClosed && final && text.length >= final.index + final[0].length + Number(final[1])) done(false)
    })
    socket.on('end', () => done(true))
    socket.on('error', reject)
  })
}

it('answers 413 without 100 Continue when the declared body is over the limit', async () => {
  const { text } = await exchange(2 * MIB)
  expect(text).not.toContain('100 Continue')
  expect(text).toMatch(/^HTTP\/1\.1 413 /)
})

it('sends the Error body payload_too_large with that 413', async () => {
  const { text } = await exchange(2 * MIB)
  const body = text.slice(text.indexOf('\r\n\r\n') + 4)
  expect(JSON.parse(body)).toEqual({ code: 'payload_too_large', message: expect.any(String), status: 413 })
})

it('closes the connection after that 413, the body never asked for', async () => {
  const { text, closed } = await exchange(2 * MIB, { untilClosed: true })
  expect(text).toMatch(/^HTTP\/1\.1 413 [\s\S]*?\r\nconnection: close\r\n/i)
  expect(closed).toBe(true)
})

it('still answers 100 Continue to a body within the limit, then stores the pet', async () => {
  const body = JSON.stringify({ name: 'Rex', categoryId: 1 })
  const { text } = await exchange(Buffer.byteLength(body), { body })
  expect(text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /)
})
