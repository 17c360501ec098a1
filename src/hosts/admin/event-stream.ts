/**
 * `GET /__mock/events`: a session's live events as server-sent events (issue #16), for the control
 * panel and any tool (`curl -N`, `new EventSource(...)`). Events: `hello` (on connect), `request` (a
 * journal entry's summary, `id:` its sequence number), `clock`, `scenario`, `reset`, `state`, `quota`.
 * A reconnecting client that sends `Last-Event-ID` first gets the entries it missed (up to 1,000 and 1 MiB, written
 * entry by entry under the admin read budget; a `gap` event tells what it left out).
 *
 * Costs: nothing while no stream is open (the world listens to nothing); with a stream, each event is
 * one JSON string, written in batches every 50 ms. Under load a stream sends at most 1,000 `request`
 * events a second: past that, a `gap` event ({ after, before }) says which entries it left out, for a
 * client to read from `GET /__mock/requests?after=` (the panel reloads its table). A client that stops
 * reading is cut off once 1 MiB waits for it: its socket is destroyed, which releases what waited, before its slot is
 * freed (it reconnects and catches up); at most 100 streams. One event is made into a frame once, for every stream.
 */
import { Buffer } from 'node:buffer'
import type { Request, Response } from 'express'
import { stringifyJson } from '../../core/json.js'
import type { World } from '../../world/create-world.js'
import { clockView, type WorldEvent } from '../../world/events.js'
import { refuse, worldOf } from './common.js'
import { type AdminReads, chunkWriter } from './journal-reads.js'

/** The open streams of a server, so closing the server ends them (they never end by themselves). */
export interface EventStreams {
  readonly size: number
  add(end: () => void): () => void
  closeAll(): void
  /** The frame of an event, made once for every stream that sends it. */
  frameOf(event: WorldEvent): string
}

export const MAX_EVENT_STREAMS = 100
const FLUSH_EVERY_MS = 50
const PING_EVERY_MS = 15_000
/**
 * What may wait for one stream's client before it is cut off: 100 stalled streams hold 100 MiB at most (issue #31's
 * stalled-stream case, test/http/event-stream-stalled-reader.test.ts).
 */
export const MAX_PENDING_BYTES = 1024 * 1024
const REPLAY_MAX = 1_000
/** A replay writes at most this much: the rest is told as a `gap`. */
const REPLAY_MAX_BYTES = 1024 * 1024
/** `request` events one stream sends per second at most; the rest are told as a `gap`. */
export const REQUEST_EVENTS_PER_SECOND = 1_000

export function createEventStreams(): EventStreams {
  const ends = new Set<() => void>()
  // Every stream of a session gets the same event object: one frame for all of them (100 streams, one JSON.stringify).
  const frames = new WeakMap<WorldEvent, string>()
  return {
    frameOf(event) {
      let text = frames.get(event)
      if (text === undefined) {
        text = toFrame(event)
        frames.set(event, text)
      }
      return text
    },
    get size() {
      return ends.size
    },
    add(end) {
      ends.add(end)
      return () => ends.delete(end)
    },
    closeAll() {
      for (const end of [...ends]) end()
    },
  }
}

const frame = (event: string, data: string, id?: number): string =>
  `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${data}\n\n`

/** A summary holds no bigint: the plain serialiser, cheaper than the exact one, is enough on this path. */
function toFrame(event: WorldEvent): string {
  // Another replica's request (`--redis`) has its own numbering: sent without an id, so Last-Event-ID stays this journal's.
  if (event.type === 'request') return frame('request', JSON.stringify(event.data), event.seq > 0 ? event.seq : undefined)
  return frame(event.type, JSON.stringify(event.data))
}

/** Lets through at most `REQUEST_EVENTS_PER_SECOND` request events a second; remembers the ones it left out. */
function requestBudget() {
  let second = 0
  let sent = 0
  let gap: { after: number; before: number } | undefined
  return {
    /** Whether to send request `seq` now (else it joins the gap). */
    take(seq: number): boolean {
      const now = Math.floor(Date.now() / 1000)
      if (now !== second) {
        second = now
        sent = 0
      }
      if (sent < REQUEST_EVENTS_PER_SECOND) {
        sent += 1
        return true
      }
      gap = gap ? { after: gap.after, before: seq + 1 } : { after: seq - 1, before: seq + 1 }
      return false
    },
    /** The gap to tell, once. */
    flush(): string {
      if (!gap) return ''
      const text = frame('gap', JSON.stringify(gap))
      gap = undefined
      return text
    },
  }
}

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
async function replay(res: Response, reads: AdminReads, world: World, after: number, until: number): Promise<void> {
  const release = reads.take()
  const gap = (last: number) => (last < until ? frame('gap', JSON.stringify({ after: last, before: until + 1 })) : '')
  if (!release) return void res.write(gap(after))
  const out = chunkWriter(res, reads)
  let last = after
  let count = 0
  let bytes = 0
  try {
    for (let from = after; ; ) {
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

/** Sends the world's events to `res` until either ends; a client that stops reading is cut off. */
function followWorld(res: Response, streams: EventStreams, world: World): { flush(): void; hold(on: boolean): void } {
  let pending = ''
  let held = false
  let timer: ReturnType<typeof setTimeout> | undefined
  let ended = false
  const budget = requestBudget()
  const later = () => {
    timer ??= setTimeout(flush, FLUSH_EVERY_MS)
  }
  // Destroyed, not ended: an end queues behind the unread data and keeps it (and the socket) for as long as the client
  // does not read. The socket goes first, then the slot (test/http/event-stream-stalled-reader.test.ts).
  const cut = () => end(true)
  function flush() {
    timer = undefined
    if (ended || held) return
    pending += budget.flush()
    if (pending === '') return
    res.write(pending)
    pending = ''
    if (res.writableLength > MAX_PENDING_BYTES) cut()
  }
  const unsubscribe = world.events.subscribe((event) => {
    if (event.type === 'gone') return end(false)
    if (event.type !== 'request' || budget.take(event.seq)) pending += streams.frameOf(event)
    if (pending.length > MAX_PENDING_BYTES) return cut()
    later()
  })
  const ping = setInterval(() => {
    pending += ': ping\n\n'
    flush()
  }, PING_EVERY_MS)
  const forget = streams.add(() => end(false))
  function end(destroy: boolean) {
    if (ended) return
    ended = true
    unsubscribe()
    clearTimeout(timer)
    clearInterval(ping)
    if (destroy) res.destroy()
    else res.end()
    forget()
  }
  res.on('close', () => end(false))
  return {
    flush,
    hold(on) {
      held = on
    },
  }
}
