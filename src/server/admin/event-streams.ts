/**
 * The event streams of a server (`GET /__mock/events`) as a whole. The streams of one world share one subscription to
 * it (a tap): an event is made into a frame once and handed to each stream, and the `request` events past the
 * second's share are told as one `gap` for all of them, so a request costs the same with 1 subscriber or 100 (decision
 * 020; `npm run bench -- --only=abuse-reads`). The streams of a world send the first `REQUEST_EVENTS_PER_SECOND`
 * `request` events of each second, and all streams of the server `REQUEST_FRAMES_PER_SECOND` together at most.
 */
import type { ServerWorld } from '../../world/create-world.js'
import type { WorldEvent } from '../../world/events.js'

/** What a stream does with what its world's tap hands it. */
export interface StreamSink {
  /** A frame to send (an event, or a `gap`). */
  send(text: string): void
  /** The world is gone (its session was evicted), or the server closes: the stream ends. */
  end(): void
}

/** The open streams of a server, so closing the server ends them (they never end by themselves). */
export interface EventStreams {
  readonly size: number
  /** Hands `sink` the frames of `world`'s events from now on; returns what stops it and frees its slot. */
  follow(world: ServerWorld, sink: StreamSink): () => void
  closeAll(): void
  /** How long a stream gathers frames before it writes them: 50 ms, longer with many streams (200 writes a second in all). */
  readonly flushEveryMs: number
}

export const MAX_EVENT_STREAMS = 100
/** `request` events the streams of a world send per second at most; the rest are told as a `gap`. */
export const REQUEST_EVENTS_PER_SECOND = 1_000
/** `request` frames all streams of a server send per second together at most (each stream its share, at least 10). */
export const REQUEST_FRAMES_PER_SECOND = 5_000
/** A gap is told this long after the first event it leaves out, at the latest. */
const GAP_EVERY_MS = 50

export const frame = (event: string, data: string, id?: number): string =>
  `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${data}\n\n`

/** A summary holds no bigint: the plain serialiser, cheaper than the exact one, is enough on this path. */
function toFrame(event: WorldEvent): string {
  // Another replica's request (`--redis`) has its own numbering: sent without an id, so Last-Event-ID stays this journal's.
  if (event.type === 'request') return frame('request', JSON.stringify(event.data), event.seq > 0 ? event.seq : undefined)
  return frame(event.type, JSON.stringify(event.data))
}

/** One world's subscription, shared by its streams. */
function createTap(world: ServerWorld, share: () => number, gone: () => void) {
  const sinks = new Set<StreamSink>()
  let second = Math.floor(Date.now() / 1000)
  let sent = 0
  let after = 0
  let before = 0
  let gapTimer: ReturnType<typeof setTimeout> | undefined
  const toAll = (text: string) => {
    for (const sink of sinks) sink.send(text)
  }
  const tellGap = () => {
    clearTimeout(gapTimer)
    gapTimer = undefined
    if (before === 0) return
    toAll(frame('gap', JSON.stringify({ after, before })))
    after = before = 0
  }
  const take = (seq: number): boolean => {
    const now = Math.floor(Date.now() / 1000)
    if (now !== second) {
      second = now
      sent = 0
    }
    if (sent < share()) {
      sent += 1
      return true
    }
    if (before === 0) after = seq - 1
    before = seq + 1
    gapTimer ??= setTimeout(tellGap, GAP_EVERY_MS)
    return false
  }
  const unsubscribe = world.events.subscribe((event) => {
    if (event.type === 'gone') {
      for (const sink of [...sinks]) sink.end()
      return
    }
    if (event.type === 'request' && !take(event.seq)) return
    // A request event sent after some were left out: the gap goes first.
    if (before !== 0) tellGap()
    toAll(toFrame(event))
  })
  return {
    sinks,
    close() {
      clearTimeout(gapTimer)
      unsubscribe()
      gone()
    },
  }
}

/**
 * @example
 * const streams = createEventStreams()
 * app.get('/__mock/events', eventStreamRoute(streams, reads, (res) => 'default'))
 */
export function createEventStreams(): EventStreams {
  const taps = new Map<ServerWorld, ReturnType<typeof createTap>>()
  const ends = new Set<() => void>()
  // Every stream gets each frame its world's tap sends: with 5 streams open each world sends 1,000 a second, with 100 50.
  const share = () => Math.max(10, Math.min(REQUEST_EVENTS_PER_SECOND, Math.floor(REQUEST_FRAMES_PER_SECOND / Math.max(1, ends.size))))
  return {
    get size() {
      return ends.size
    },
    get flushEveryMs() {
      return Math.max(50, ends.size * 5)
    },
    follow(world, sink) {
      const tap = taps.get(world) ?? createTap(world, share, () => taps.delete(world))
      taps.set(world, tap)
      tap.sinks.add(sink)
      const end = () => sink.end()
      ends.add(end)
      return () => {
        ends.delete(end)
        tap.sinks.delete(sink)
        if (tap.sinks.size === 0) tap.close()
      }
    },
    closeAll() {
      for (const end of [...ends]) end()
    },
  }
}
