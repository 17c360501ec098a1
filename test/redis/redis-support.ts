/**
 * Helpers of the `--redis` tests: a private `redis-server` per test file on a free loopback
 * port (no persistence), and server replicas of the built CLI pointed at it.
 * `node scripts/ensure-debian.mjs redis` installs redis-server when it is missing.
 *
 * @example
 * afterAll(async () => { await killClis(); await stopRedises() })
 * const redis = await startRedis()
 * const [a, b] = await startReplicas(2, redis.url)
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { createServer, Socket } from 'node:net'
import { type Cli, PROCESS_CEILING_MS, sleep, startCli } from '../http/support.js'

export interface PrivateRedis {
  readonly port: number
  /** `redis://127.0.0.1:PORT`. */
  readonly url: string
  /** The PID of the running redis-server (changes on `restart`). */
  readonly pid: number
  /** Everything redis-server wrote so far (its log), for failure messages. */
  output(): string
  /** Kills redis-server (SIGKILL by PID) and waits for it to exit. Its data is gone: it never saves. */
  kill(): Promise<void>
  /** Starts redis-server again on the same port (after `kill`) and waits for its PONG. */
  restart(): Promise<void>
}

const running = new Set<ChildProcess>()

/** A port nothing listens on right now: bound on 127.0.0.1 with port 0, then released. */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer()
    server.once('error', fail)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address !== null ? done(address.port) : fail(new Error('No port.'))))
    })
  })
}

/** Sends `PING` over raw TCP; true when Redis answers `+PONG` within `timeoutMs`. */
export function ping(port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((done) => {
    const socket = new Socket()
    let answer = ''
    const finish = (ok: boolean) => {
      clearTimeout(timer)
      socket.destroy()
      done(ok)
    }
    const timer = setTimeout(() => finish(false), timeoutMs)
    socket.once('error', () => finish(false))
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1')
      if (answer.includes('\r\n')) finish(answer.startsWith('+PONG'))
    })
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'))
  })
}

/** Waits until Redis on `port` answers PING, for at most `timeoutMs` (a ceiling for a busy machine). */
export async function waitForPong(port: number, timeoutMs = PROCESS_CEILING_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await ping(port))) {
    if (Date.now() > deadline) throw new Error(`redis-server on 127.0.0.1:${port} did not answer PING within ${timeoutMs} ms.`)
    await sleep(25)
  }
}

/** SIGKILLs one process by its PID and waits (at most `PROCESS_CEILING_MS`) for it to be gone. */
export function killByPid(child: ChildProcess): Promise<void> {
  return new Promise((done, fail) => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return done()
    const timer = setTimeout(
      () => fail(new Error(`Process ${child.pid} did not exit within ${PROCESS_CEILING_MS / 1000} s of SIGKILL.`)),
      PROCESS_CEILING_MS,
    )
    child.once('exit', () => {
      clearTimeout(timer)
      done()
    })
    try {
      process.kill(child.pid, 'SIGKILL')
    } catch {
      // Already gone: 'exit' comes (or came) anyway.
    }
  })
}

function spawnRedis(port: number, log: { text: string }): ChildProcess {
  // No RDB, no AOF (nothing written to disk); loopback only; in the foreground so its PID is the server's.
  const args = [
    '--port',
    String(port),
    '--save',
    '',
    '--appendonly',
    'no',
    '--bind',
    '127.0.0.1',
    '--daemonize',
    'no',
    '--loglevel',
    'warning',
  ]
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] })
  running.add(child)
  child.once('exit', () => running.delete(child))
  for (const stream of [child.stdout, child.stderr])
    stream?.setEncoding('utf8').on('data', (chunk: string) => {
      log.text += chunk
    })
  return child
}

/**
 * Starts a private redis-server on a free loopback port (or `port`) and waits (at most `PROCESS_CEILING_MS`) for its PONG.
 * `stopRedises` (afterAll) kills it.
 */
export async function startRedis(port?: number): Promise<PrivateRedis> {
  const chosen = port ?? (await freePort())
  const log = { text: '' }
  let child = spawnRedis(chosen, log)
  const up = async () => {
    const failed = new Promise<never>((_, fail) => {
      child.once('error', (error) =>
        fail(new Error(`Cannot run redis-server (node scripts/ensure-debian.mjs redis installs it): ${error.message}`)),
      )
      child.once('exit', (code, signal) =>
        fail(new Error(`redis-server on port ${chosen} exited (${code ?? signal}) before answering PING: ${log.text}`)),
      )
    })
    failed.catch(() => undefined)
    await Promise.race([waitForPong(chosen), failed])
  }
  await up()
  return {
    port: chosen,
    url: `redis://127.0.0.1:${chosen}`,
    get pid() {
      return child.pid ?? -1
    },
    output: () => log.text,
    kill: () => killByPid(child),
    async restart() {
      await killByPid(child)
      child = spawnRedis(chosen, log)
      await up()
    },
  }
}

/** Kills every redis-server `startRedis` started (SIGKILL by PID), for afterAll. */
export async function stopRedises(): Promise<void> {
  await Promise.all([...running].map((child) => killByPid(child)))
  running.clear()
}

/** The CLI arguments of one replica on `redisUrl`: a free port, silent, seed 1, then `extra`. */
export const replicaArgs = (redisUrl: string, extra: readonly string[] = []): string[] => [
  '--port',
  '0',
  '--redis',
  redisUrl,
  '--log',
  'silent',
  '--seed',
  '1',
  ...extra,
]

/** Starts one replica (the built CLI) on `redisUrl` and waits for its banner; `killClis` stops it. */
export function startReplica(redisUrl: string, extra: readonly string[] = []): Promise<Cli> {
  return startCli(replicaArgs(redisUrl, extra))
}

/** Starts `n` replicas on `redisUrl`, one after the other (the first seeds the default session). */
export async function startReplicas(n: number, redisUrl: string, extra: readonly string[] = []): Promise<Cli[]> {
  const replicas: Cli[] = []
  for (let i = 0; i < n; i++) replicas.push(await startReplica(redisUrl, extra))
  return replicas
}

/** SIGKILLs one replica by its PID and waits for it to exit. */
export async function killReplica(replica: Cli): Promise<void> {
  await killByPid(replica.child)
  await replica.exited
}
