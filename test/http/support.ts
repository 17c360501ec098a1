/**
 * Helpers of the HTTP tests: servers started on an ephemeral loopback port and closed after each
 * test, and the built CLI spawned as a user would run it.
 *
 * @example
 * afterEach(closeServers)
 * const { url } = await startServer({ seed: 7 })
 * const response = await fetch(`${url}/v1/pets`, { headers: auth('test-pro') })
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdir, readdir, rmdir, stat } from 'node:fs/promises'
import { request } from 'node:http'
import { createServer } from 'node:net'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { createPetStoreServer, type PetStoreServer, type PetStoreServerOptions } from '../../src/server/http-server.js'

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)))
export const CLI = join(ROOT, 'dist', 'src', 'cli', 'main.js')
export const FIXTURES = join(ROOT, 'test', 'http', 'fixtures')
export const INT64_MAX = '9223372036854775807'
export const MIB = 1024 * 1024

const running = new Set<PetStoreServer>()

/** Starts a server on 127.0.0.1 and a free port, silent unless `log` is given; `closeServers` stops it. */
export async function startServer(options: PetStoreServerOptions = {}): Promise<{ server: PetStoreServer; url: string }> {
  const server = createPetStoreServer({ host: '127.0.0.1', port: 0, log: 'silent', ...options })
  running.add(server)
  const url = await server.listen()
  return { server, url }
}

/** Closes every server `startServer` started and the test has not closed itself. */
export async function closeServers(): Promise<void> {
  const servers = [...running].filter((server) => server.server.listening)
  running.clear()
  await Promise.all(servers.map((server) => server.close()))
}

/** `Authorization: Bearer <key>`, plus any other headers. */
export function auth(key: string, headers: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${key}`, ...headers }
}

/** A JSON POST of a new pet, as a client writes it. */
export function postPet(url: string, body: string | object, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/v1/pets`, {
    method: 'POST',
    headers: auth('test-pro', { 'content-type': 'application/json', ...headers }),
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

export const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms))

/**
 * How long a started process (the CLI, a replica, Redis) may take to say it is up, and a run of the CLI to end. A
 * ceiling for a busy machine, not a budget: under the config's 60 s per test, so a start that hangs fails with its
 * output rather than a bare timeout.
 */
export const PROCESS_CEILING_MS = 45_000

/**
 * Polls `check` every 20 ms until it returns a value other than `undefined`, for at most `timeout` ms: a ceiling for
 * a busy machine, not a budget (the condition usually holds within milliseconds).
 */
export async function eventually<T>(check: () => Promise<T | undefined>, timeout = 20_000): Promise<T> {
  const deadline = Date.now() + timeout
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`Condition not met within ${timeout} ms.`)
    await sleep(20)
  }
}

async function newestMtime(dir: string): Promise<number> {
  let newest = 0
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) newest = Math.max(newest, await newestMtime(path))
    else if (entry.name.endsWith('.ts') || entry.name.endsWith('.json')) newest = Math.max(newest, (await stat(path)).mtimeMs)
  }
  return newest
}

/**
 * Runs `npm run build` when dist/src/cli/main.js is missing or older than a source file. Test files run
 * in parallel processes, so a lock directory lets one build while the others wait.
 */
export async function ensureBuilt(): Promise<void> {
  const fresh = async () => {
    const built = await stat(CLI).catch(() => undefined)
    return built !== undefined && built.mtimeMs >= (await newestMtime(join(ROOT, 'src')))
  }
  if (await fresh()) return
  const lock = join(ROOT, 'dist', '.test-build-lock')
  await mkdir(join(ROOT, 'dist'), { recursive: true })
  // Ceilings for a busy machine, under the config's 120 s per hook: one file builds, the others wait for it.
  const deadline = Date.now() + 110_000
  for (;;) {
    const locked = await mkdir(lock).then(
      () => true,
      () => false,
    )
    if (locked) break
    if (Date.now() > deadline) throw new Error(`Could not take the build lock ${lock}; remove it if no build runs.`)
    await sleep(200)
  }
  try {
    // Another file may have built while this one waited.
    if (await fresh()) return
    // tsc emits even when another session's half-edited source has type errors; the tests then say what breaks.
    await promisify(execFile)('npm', ['run', 'build', '--silent'], { cwd: ROOT, timeout: 100_000 }).catch(() => undefined)
    if ((await stat(CLI).catch(() => undefined)) === undefined) throw new Error(`npm run build did not produce ${CLI}.`)
  } finally {
    await rmdir(lock).catch(() => undefined)
  }
}

export interface Cli {
  readonly child: ChildProcess
  /** The base URL from the banner (`http://127.0.0.1:PORT`, without `/v1`). */
  readonly url: string
  /** Everything written to stdout so far. */
  stdout(): string
  stderr(): string
  /** Resolves with the exit code (or the signal) when the process ends. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

const spawned = new Set<ChildProcess>()

function collect(child: ChildProcess): { out: () => string; err: () => string } {
  let out = ''
  let err = ''
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk
  })
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk
  })
  return { out: () => out, err: () => err }
}

/** Runs the CLI to completion (for --help, usage errors, verify and snapshot), at most `PROCESS_CEILING_MS`. */
export function runCli(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // Not in `spawned`: it ends by itself, or on its own timer.
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] })
  const { out, err } = collect(child)
  return new Promise((done, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      fail(
        new Error(`petstore-mock ${args.join(' ')} did not exit within ${PROCESS_CEILING_MS / 1000} s. stdout: ${out()} stderr: ${err()}`),
      )
    }, PROCESS_CEILING_MS)
    child.on('close', (code) => {
      clearTimeout(timer)
      done({ code, stdout: out(), stderr: err() })
    })
  })
}

/** The environment of a spawned CLI: no PETSTORE_* of the outer shell, plus `env`. */
function cliEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PETSTORE_')))
  return { ...base, ...env }
}

/**
 * Starts the CLI and waits for its banner (at most `PROCESS_CEILING_MS`). Pass `--port 0` (or PETSTORE_PORT=0) for a free port;
 * `launcher` is what comes before the CLI's path, node by default: `['taskset', '-c', '0', process.execPath]`.
 */
export function startCli(
  args: readonly string[],
  env: Record<string, string> = {},
  launcher: readonly string[] = [process.execPath],
): Promise<Cli> {
  const [command = process.execPath, ...before] = launcher
  const child = spawn(command, [...before, CLI, ...args], { cwd: ROOT, env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] })
  spawned.add(child)
  const { out, err } = collect(child)
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
    child.on('close', (code, signal) => {
      spawned.delete(child)
      done({ code, signal })
    })
  })
  return new Promise((done, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      fail(new Error(`No banner within ${PROCESS_CEILING_MS / 1000} s. stdout: ${out()} stderr: ${err()}`))
    }, PROCESS_CEILING_MS)
    const onData = () => {
      if (!out().includes('Ctrl-C to stop.')) return
      const match = /listening on (http:\/\/\S+)\/v1/.exec(out())
      clearTimeout(timer)
      child.stdout?.off('data', onData)
      if (!match?.[1]) return fail(new Error(`The banner has no URL: ${out()}`))
      done({ child, url: match[1], stdout: out, stderr: err, exited })
    }
    child.stdout?.on('data', onData)
    void exited.then(({ code, signal }) => {
      clearTimeout(timer)
      fail(new Error(`petstore-mock exited (${code ?? signal}) before its banner. stderr: ${err()}`))
    })
  })
}

/** Kills every CLI process still running (SIGKILL), for afterEach. */
export async function killClis(): Promise<void> {
  const children = [...spawned]
  spawned.clear()
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done()
          child.once('close', () => done())
          child.kill('SIGKILL')
        }),
    ),
  )
}

/** A raw request with any `Host` (fetch will not send one of its own choosing). */
export function rawRequest(
  url: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((done, fail) => {
    const req = request(`${url}${path}`, { method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk
      })
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on('error', fail)
    req.end(options.body)
  })
}

/** A free TCP port of 127.0.0.1, for a process started with a port of its own. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}
