/**
 * What node hands the standalone server apart from its `request` event, each answered with the spec's Error body where
 * node's own answer has none: requests its HTTP parser refuses, a request that did not arrive in time (408), an `Expect`
 * other than `100-continue`, and `CONNECT` (docs/errors.md, `bad_request`; test/http/abuse.test.ts).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { problem } from '../core/errors.js'
import type { ApiResponse } from '../core/types.js'
import type { RequestRouter } from './request-router.js'
import { isHangUp } from './server-delivery.js'

/**
 * Requests the HTTP parser refuses (an unknown method, a malformed header) still get an Error body,
 * and a request that did not arrive in time gets 408. An answer still being written on the same
 * connection (pipelining) goes out first.
 */
function answerMalformed(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || isHangUp(error)) return void socket.destroy()
  const timeout = error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
  const response = timeout
    ? problem('request_timeout', 'The request did not arrive in time; send it again, whole.')
    : problem('bad_request', `Malformed HTTP request: ${error.code ?? error.message}.`)
  const reason = timeout ? 'Request Timeout' : 'Bad Request'
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage
  if (inFlight && !inFlight.req.complete) {
    // The error is about the request still being read (it timed out): answer it through its own response.
    if (inFlight.headersSent) return void socket.destroy()
    inFlight.writeHead(response.status, { ...response.headers, connection: 'close', 'content-length': Buffer.byteLength(response.body) })
    inFlight.end(response.body, () => socket.destroy())
    return
  }
  const write = () => endWith(socket, response, reason)
  // A pipelined request the parser refused: the answer still being written for the one before goes out first.
  if (inFlight && !inFlight.writableFinished) inFlight.once('finish', write)
  else write()
}

/** Writes an Error answer straight on the socket (no request object to answer through), then closes it. */
function endWith(socket: Duplex, response: ApiResponse, reason: string): void {
  socket.end(
    `HTTP/1.1 ${response.status} ${reason}\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(response.body)}\r\n\r\n${response.body}`,
  )
}

/** The requests node hands over apart from the `request` event, each answered with an Error body where node's has none. */
export function addTransportAnswers(server: Server, router: RequestRouter): void {
  server.on('clientError', answerMalformed)
  // Without this listener node answers every `Expect: 100-continue` with 100 Continue, whatever the body's size.
  server.on('checkContinue', router.checkContinue)
  // An expectation other than 100-continue: RFC 9110 section 10.1.1 lets a server answer 417 or not; the request is
  // answered as if it had none (node's own 417 has no Error body and comes before the key is checked).
  server.on('checkExpectation', router)
  server.on('connect', answerConnect)
}

/**
 * `CONNECT`, which node hands over as a bare socket: the mock is no proxy, so the method is one it cannot handle (docs/
 * errors.md, `bad_request`), answered with an Error body instead of a closed connection (test/http/abuse.test.ts).
 */
function answerConnect(_req: IncomingMessage, socket: Duplex): void {
  if (!socket.writable) return void socket.destroy()
  endWith(socket, problem('bad_request', 'CONNECT is not supported: petstore-mock is not a proxy.'), 'Bad Request')
}
