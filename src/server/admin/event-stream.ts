/**
 * `GET /__mock/events`: a session's live events as server-sent events, for the control
 * panel and any tool (`curl -N`, `new EventSource(...)`). Events: `hello` (on connect), `request` (a
 * journal entry's summary, `id:` its sequence number), `clock`, `scenario`, `reset`, `state`, `quota`.
 * A reconnecting client that sends `Last-Event-ID` first gets the entries it missed (up to 1,000 and 1 MiB, written
 * entry by entry under the admin read budget; a `gap` event tells what it left out).
 *
 * Costs: nothing while no stream is open (the world listens to nothing); with streams, each event is one JSON string
 * for all of them, written in batches every 50 ms (every 5 ms times the streams open past 10: 500 ms with 100). Under load the streams of a world send the first 1,000 `request`
 * events of each second (with more than 5 streams open on the server, 5,000 shared by all): past that, a `gap` event
 * ({ after, before }) says which entries were left out, for a client to read from `GET /__mock/requests?after=` (the
 * panel reloads its table). A client that stops reading is cut off once 1 MiB waits for it: its socket is destroyed,
 * which releases what waited, before its slot is freed (it reconnects and catches up); at most 100 streams.
 */
import type { Request, Response } from 'express'
import { stringifyJson } from '../../core/json.js'
import type { ServerWorld } from '../../world/create-world.js'
import { clockView } from '../../world/events.js'
import { type AdminReads, chunkWriter } from './admin-reads.js'
import { refuse, worldOf } from './common.js'
import { type EventStreams, frame, MAX_EVENT_STREAMS } from './event-streams.js'

export { MAX_EVENT_STREAMS }

const PING_EVERY_MS = 15_000
/**
 * What may wait for one stream's client before it is cut off: 100 stalled streams hold 100 MiB at most
 * (test/http/event-stream-stalled-reader.test.ts).
 */
export const MAX_PENDING_BYTES = 1024 * 1024
const REPLAY_MAX = 1_000
/** A stream writes what waits for its client in pieces of about this many characters. */
const PIECE_CHARS = 32 * 1024
/** A replay writes at most this much: the rest is told as a `gap`. */
const REPLAY_MAX_BYTES = 1024 * 1024

/** The sequence number after `Last-Event-ID` (or `?after=`), if the client sent one. */
function replayFrom(req: Request): number | undefined {
  const given = req.header('last-event-id') ?? (typeof req.query['after'] === 'string' ? req.query['after'] : undefined)
  return given === undefined || !/^\d{1,15}$/.test(given) ? undefined : Number(given)
}

/**
 * Writes the entries after `after` up to `until` (those recorded before the stream subscribed), oldest first, entry by
 * entry under the admin read budget; what it leaves out (past 1,000 entries or 1 MiB, or all when the budget is spent)
 * is told as a `gap` for the client to read from `GET /__mock/requests?after=`.
 */
async function replay(res: Response, reads: AdminReads, world: ServerWorld, after: number, until: number): Promise<void> {
  const release = reads.take()
  const gap = (last: number) => (last < until ? frame('gap', JSON.stringify({ after: last, before: until + 1 })) : '')
  if (!release) return void res.write(gap(after))
  const out = chunkWriter(res, reads)
  let last = after
  let count = 0
  let bytes = 0
  try {
    for (let from = after; ; ) {
      // A step of 32 summaries (no body, no header) is a fraction of a slice: one step per turn.
      await reads.turn()
      const step = world.journal.scanSummaries({ from, toward: 'newer', count: 32 })
      for (const summary of step.entries) {
        // Entries recorded since the stream subscribed come as live events.
        if (summary.seq > until) return
        const text = frame('request', stringifyJson(summary), summary.seq)
        const size = Buffer.byteLength(text)
        if (count === REPLAY_MAX || bytes + size > REPLAY_MAX_BYTES) return void (await out.add(gap(last)))
        await out.add(text)
        last = summary.seq
        count += 1
        bytes += size
      }
      if (step.next === undefined || step.next >= until) return
      from = step.next
    }
  } finally {
    await out.flush().catch(() => undefined)
    release()
  }
}

/**
 * @example
 * app.get('/__mock/events', eventStreamRoute(streams, reads, (res) => 'default'))
 */
export function eventStreamRoute(streams: EventStreams, reads: AdminReads, session: (res: Response) => string) {
  return (req: Request, res: Response): void => {
    if (streams.size >= MAX_EVENT_STREAMS) {
      res.set('retry-after', '5')
      refuse(res, 'too_many_event_streams', `The server holds ${MAX_EVENT_STREAMS} event streams already; close one and retry.`)
      return
    }
    if (req.method === 'HEAD') {
      // A HEAD learns the stream's headers and takes no slot.
      res.status(200).type('text/event-stream; charset=utf-8').end()
      return
    }
    res.status(200).set({
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    })
    res.flushHeaders()
    res.socket?.setNoDelay(true)
    const world = worldOf(res)
    const hello = { session: session(res), scenario: world.scenario, clock: clockView(world.clock) }
    res.write(`retry: 1000\n\n${frame('hello', stringifyJson(hello))}`)
    const stream = followWorld(res, streams, world)
    const after = replayFrom(req)
    if (after === undefined) {
      stream.flush()
      return
    }
    // Live events wait while the replay is written: entries up to `until` are the replay's, later ones are live.
    stream.hold(true)
    replay(res, reads, world, after, world.journal.lastSeq)
      .catch(() => undefined)
      .finally(() => {
        stream.hold(false)
        stream.flush()
      })
  }
}

/**
 * Sends the world's events to `res` until either ends. What waits for a client is a list of the frames every stream
 * shares (one string per event, not one per stream) while its socket is backed up; it is written once the socket
 * drains. A client that stops reading is cut off once its socket's buffer and that list hold `MAX_PENDING_BYTES`.
 */
function followWorld(res: Response, streams: EventStreams, world: ServerWorld): { flush(): void; hold(on: boolean): void } {
  let pending: string[] = []
  let pendingBytes = 0
  let held = false
  let backedUp = false
  let timer: ReturnType<typeof setTimeout> | undefined
  let ended = false
  function flush() {
    timer = undefined
    if (ended || held || backedUp) return
    // Written in pieces under V8's large-object size (a larger string is allocated in the old generation, where it would
    // stay as garbage until a full collection), and only while the socket takes them.
    let next = 0
    while (next < pending.length && !backedUp) {
      let piece = ''
      while (next < pending.length && piece.length < PIECE_CHARS) piece += pending[next++]
      pendingBytes -= piece.length
      backedUp = !res.write(piece)
    }
    pending = next === pending.length ? [] : pending.slice(next)
  }
  const send = (text: string) => {
    pending.push(text)
    pendingBytes += text.length
    // Destroyed, not ended: an end queues behind the unread data and keeps it (and the socket) for as long as the
    // client does not read. The socket goes first, then the slot (test/http/event-stream-stalled-reader.test.ts).
    if (pendingBytes + res.writableLength > MAX_PENDING_BYTES) return end(true)
    timer ??= setTimeout(flush, streams.flushEveryMs)
  }
  const stop = streams.follow(world, { send, end: () => end(false) })
  const ping = setInterval(() => send(': ping\n\n'), PING_EVERY_MS)
  function end(destroy: boolean) {
    if (ended) return
    ended = true
    clearTimeout(timer)
    clearInterval(ping)
    pending = []
    if (destroy) res.destroy()
    else res.end()
    stop()
  }
  res.on('drain', () => {
    backedUp = false
    flush()
  })
  res.on('close', () => end(false))
  return {
    flush,
    hold(on) {
      held = on
    },
  }
}
