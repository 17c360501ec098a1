/**
 * The connection of one server process to Redis (`--redis URL`; decisions/013-redis-client.md): one client for commands, one for
 * pub/sub, the scripts loaded once, and what the server says when Redis is gone. Commands never wait in a
 * queue while the connection is down: they fail at once, and the request is answered 503 with `Retry-After`
 * (`StoreUnavailableError`), while the client reconnects with backoff (0.1 s, 0.2 s, … 2 s).
 */
import { createClient, type RedisClientType } from '@redis/client'
import { StoreUnavailableError } from '../../core/errors.js'
import { CONSUME, CREATE, JOURNAL, LIST, REPLACE } from './scripts.js'
import { safeUrl } from './url.js'

const SCRIPTS = { CONSUME, CREATE, LIST, REPLACE, JOURNAL }
export type ScriptName = keyof typeof SCRIPTS

/** A change one replica made, told to the others (`petstore-mock:changes`). */
export interface ChangeMessage {
  readonly origin: string
  readonly session: string
  readonly type: 'clock' | 'scenario' | 'reset' | 'state' | 'request'
  readonly data?: unknown
}

export interface RedisLink {
  /** Runs one of the scripts (scripts.ts) atomically. */
  run(script: ScriptName, keys: readonly string[], args: readonly string[]): Promise<unknown>
  /** Any other command, e.g. `['HGET', key, field]`. */
  command(args: readonly string[]): Promise<unknown>
  /** Tells the other replicas (fire and forget: a lost message is caught up on the next read). */
  publish(message: Omit<ChangeMessage, 'origin'>): void
  /** Calls `listener` with the other replicas' messages. */
  onChange(listener: (message: ChangeMessage) => void): void
  /** Why the server is degraded (Redis unreachable), or `undefined` while connected. */
  readonly problem: string | undefined
  close(): Promise<void>
}

/** The channel of one Redis database (pub/sub spans databases: each gets its own). */
const channelOf = (url: string): string => `petstore-mock:changes:${new URL(url).pathname.replace(/^\//, '') || '0'}`

const unavailable = (error: unknown): StoreUnavailableError =>
  new StoreUnavailableError(`Redis is unreachable: ${error instanceof Error ? error.message : String(error)}`)

/**
 * Connects, or rejects within `timeoutMs` naming the URL (without its password) and the reason.
 *
 * @example
 * const link = await connectRedis('redis://127.0.0.1:6379')
 */
export async function connectRedis(url: string, { timeoutMs = 5_000 }: { timeoutMs?: number } = {}): Promise<RedisLink> {
  const origin = `${process.pid}-${Math.random().toString(36).slice(2)}`
  const CHANNEL = channelOf(url)
  let problem: string | undefined
  const options = {
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: timeoutMs, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2_000) },
  }
  const client = createClient(options) as RedisClientType
  const subscriber = client.duplicate() as RedisClientType
  for (const each of [client, subscriber]) {
    each.on('error', (error: Error) => {
      problem = `Redis at ${safeUrl(url)} is unreachable (${error.message}); reconnecting`
    })
    each.on('ready', () => {
      if (client.isReady && subscriber.isReady) problem = undefined
    })
  }
  const first = Promise.all([client.connect(), subscriber.connect()])
  const timer = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs).unref(),
  )
  try {
    await Promise.race([first, timer])
  } catch (error) {
    await Promise.allSettled([client.destroy(), subscriber.destroy()])
    throw new Error(`Cannot reach Redis at ${safeUrl(url)}: ${error instanceof Error ? error.message : String(error)}.`)
  }
  const shas = new Map<ScriptName, string>()
  const load = async (name: ScriptName) => {
    const sha = (await client.sendCommand(['SCRIPT', 'LOAD', SCRIPTS[name]])) as string
    shas.set(name, sha)
    return sha
  }
  const loadAll = () => Promise.all((Object.keys(SCRIPTS) as ScriptName[]).map(load))
  await loadAll()
  // A restarted Redis has forgotten the scripts: load them all again as soon as it is back.
  client.on('ready', () => void loadAll().catch(() => undefined))
  const listeners: ((message: ChangeMessage) => void)[] = []
  await subscriber.subscribe(CHANNEL, (text) => {
    const message = JSON.parse(text) as ChangeMessage
    if (message.origin === origin) return
    for (const listener of listeners) listener(message)
  })

  const run = async (name: ScriptName, keys: readonly string[], args: readonly string[]): Promise<unknown> => {
    const call = (sha: string) => client.sendCommand(['EVALSHA', sha, String(keys.length), ...keys, ...args])
    try {
      return await call(shas.get(name) ?? (await load(name)))
    } catch (error) {
      // Redis restarted and forgot the scripts: load again, once.
      if (error instanceof Error && error.message.startsWith('NOSCRIPT'))
        return call(await load(name)).catch((again) => Promise.reject(unavailable(again)))
      throw unavailable(error)
    }
  }
  return {
    run,
    command: (args) => client.sendCommand([...args]).catch((error: unknown) => Promise.reject(unavailable(error))),
    publish(message) {
      client.sendCommand(['PUBLISH', CHANNEL, JSON.stringify({ ...message, origin })]).catch(() => undefined)
    },
    onChange: (listener) => listeners.push(listener),
    get problem() {
      return problem ?? (client.isReady ? undefined : `Redis at ${safeUrl(url)} is unreachable; reconnecting`)
    },
    async close() {
      await Promise.allSettled([subscriber.close(), client.close()])
    },
  }
}
