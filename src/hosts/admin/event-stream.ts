/**
 * `GET /__mock/events`: a session's live events as server-sent events (issue #16), for the control
 * panel and any tool (`curl -N`, `new EventSource(...)`). Events: `hello` (on connect), `request` (a
 * journal entry's summary, `id:` its sequence number), `clock`, `scenario`, `reset`, `state`, `quota`.
 * A reconnecting client that sends `Last-Event-ID` first gets the entries it missed (up to 1,000).
 *
 * Costs: nothing while no stream is open (the world listens to nothing); with a stream, each event is
 * one JSON string, written in batches every 50 ms. Under load a stream sends at most 1,000 `request`
 * events a second: past that, a `gap` event ({ after, before }) says which entries it left out, for a
 * client to read from `GET /__mock/requests?after=` (the panel reloads its table). A client that stops
 * reading is cut off once 4 MiB wait for it (it reconnects and catches up); at most 100 streams.
 */
import type { Request, Response } from 'express'
import { summaryOf } from '../../core/journal.js'
import { stringifyJson } from '../../core/json.js'
import type { World } from '../../world/create-world.js'
import { clockView, type WorldEvent } from '../../world/events.js'
import { refuse, worldOf } from './common.js'

/** The open streams of a server, so closing the server ends them (they never end by themselves). */
export interface EventStreams {
  readonly size: number
  add(end: () => void): () => void
  closeAll(): void
}

export const MAX_EVENT_STREAMS = 100
const FLUSH_EVERY_MS = 50
const PING_EVERY_MS = 15_000
const MAX_PENDING_BYTES = 4 * 1024 * 1024
const REPLAY_MAX = 1_000
/** `request` events one stream sends per second at most; the rest are told as a `gap`. */
export const REQUEST_EVENTS_PER_SECOND = 1_000

export function createEventStreams(): EventStreams {
  const ends = new Set<() => void>()
  return {
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

/** The entries after `Last-Event-ID` (or `?after=`), oldest first, as frames. */
function replay(req: Request, world: World): string {
  const given = req.header('last-event-id') ?? (typeof req.query['after'] === 'string' ? req.query['after'] : undefined)
  if (given === undefined || !/^\d{1,15}$/.test(given)) return ''
  const { entries } = world.journal.page({}, { limit: REPLAY_MAX, after: Number(given) })
  return entries.map((entry) => frame('request', stringifyJson(summaryOf(entry)), entry.seq)).join('')
}

/**
 * @example
 * app.get('/__mock/events', eventStreamRoute(streams, (res) => 'default'))
 */
export function eventStreamRoute(streams: EventStreams, session: (res: Response) => string) {
  return (req: Request, res: Response): void => {
    if (streams.size >= MAX_EVENT_STREAMS) {
      res.set('retry-after', '5')
      refuse(res, 'too_many_event_streams', `The server holds ${MAX_EVENT_STREAMS} event streams already; close one and retry.`)
      return
    }
    const world = worldOf(res)
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
    const hello = { session: session(res), scenario: world.scenario, clock: clockView(world.clock) }
    let pending = `retry: 1000\n\n${frame('hello', stringifyJson(hello))}${replay(req, world)}`
    let timer: ReturnType<typeof setTimeout> | undefined
    const budget = requestBudget()
    const flush = () => {
      timer = undefined
      pending += budget.flush()
      if (pending === '') return
      res.write(pending)
      pending = ''
      if (res.writableLength > MAX_PENDING_BYTES) end()
    }
    const unsubscribe = world.events.subscribe((event) => {
      if (event.type === 'gone') return end()
      if (event.type === 'request' && !budget.take(event.seq)) {
        timer ??= setTimeout(flush, FLUSH_EVERY_MS)
        return
      }
      pending += toFrame(event)
      timer ??= setTimeout(flush, FLUSH_EVERY_MS)
    })
    const ping = setInterval(() => {
      pending += ': ping\n\n'
      flush()
    }, PING_EVERY_MS)
    let ended = false
    const forget = streams.add(() => end())
    function end() {
      if (ended) return
      ended = true
      unsubscribe()
      forget()
      clearTimeout(timer)
      clearInterval(ping)
      res.end()
    }
    res.on('close', end)
    flush()
  }
}
