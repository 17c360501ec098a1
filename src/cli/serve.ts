/**
 * The standalone server's start-up, loaded by `main.ts`: options, the world, signals, the banner. Exit codes: 0
 * stopped cleanly, 1 could not start or save, 2 a usage or state-file error.
 */
import { lstat, mkdir, stat } from 'node:fs/promises'
import { dirname, isAbsolute, relative } from 'node:path'
import { plainMessage, RedisStartError } from '../core/errors.js'
import { DEFAULT_KEYS, type KeyConfig } from '../keys.js'
import { createPetStoreServer, isLoopback, type PetStoreServerOptions } from '../server/http-server.js'
import { safeUrl } from '../server/redis/url.js'
import { StateFileError } from '../server/state/file.js'
import { PLAN_LIMITS } from '../spec.js'
import { type ClockView, clockView } from '../world/events.js'
import { needIntegrations } from './integrations.js'
import { parseCli, SERVE } from './options.js'
import { UsageError, usageFailed, version } from './parse.js'

/** The keys as the banner shows them: key, plan, per minute, per day. */
function keyTable(keys: readonly KeyConfig[]): string[] {
  // Digits grouped by hand: the first toLocaleString of a process sets up ICU's number formats, a tenth of the
  // server's start-up CPU. The same text as toLocaleString('en-US') for whole numbers, which limits are.
  const count = (n: number) => (Number.isSafeInteger(n) ? String(n).replace(/\B(?=(\d{3})+$)/g, ',') : n.toLocaleString('en-US'))
  return keys.map(({ key, plan, limits }) => {
    const minute = `${count(limits?.perMinute ?? PLAN_LIMITS[plan].perMinute)}/min`
    const day = `${count(limits?.perDay ?? PLAN_LIMITS[plan].perDay)}/day`
    return `    ${key.padEnd(16)} ${`${plan[0]?.toUpperCase()}${plan.slice(1)}`.padEnd(11)} ${minute.padEnd(10)} ${day}`
  })
}

/** The start-up lines: where the API is, the keys, the admin API (`petstore-mock mcp` writes them to stderr). */
/**
 * The clock's line of the banner: its state and pace, and for a frozen clock (a timeline scenario's start, the config's
 * `clock`, a state file's) the call that runs it, since `--clock-speed` applies only to a running clock.
 */
function clockLine(clock: ClockView, url: string, options: PetStoreServerOptions): string {
  const pace = clock.speed === 1 ? 'real pace' : `${clock.speed}x`
  if (clock.frozen) {
    const from = options.clock !== undefined ? 'the clock option' : options.stateFile ? 'the state file' : "the scenario's start"
    const run = `curl -X POST -d '{"set":"${clock.now}","running":true}' ${url}/__mock/clock`
    return `  Clock: frozen at ${clock.now} (${from}); it runs at ${pace} once started: ${run}`
  }
  if (clock.speed === 1 && Math.abs(clock.offsetMs) < 1000) return '  Clock: real time.'
  return `  Clock: running at ${clock.speed === 1 ? 'real pace' : `${clock.speed}x real time`}, now ${clock.now}.`
}

export function banner(url: string, options: PetStoreServerOptions, config: string | undefined, clock?: ClockView): string {
  const host = options.host ?? '127.0.0.1'
  const admin =
    options.adminToken !== undefined
      ? `${url}/__mock (needs Authorization: Bearer <admin token>)`
      : isLoopback(host)
        ? `${url}/__mock (open to this machine only: other sites and foreign Host names get 403)`
        : `off (listening beyond loopback without --admin-token); ${url}/__mock/health and /__mock/openapi.json stay public`
  const pets = typeof options.pets === 'number' ? options.pets : Array.isArray(options.pets) ? options.pets.length : 50
  return [
    `petstore-mock ${version()} listening on ${url}/v1`,
    ...(config === undefined ? [] : [`  Config file ${config}`]),
    '  API keys (Authorization: Bearer <key>):',
    ...keyTable(options.keys ?? DEFAULT_KEYS),
    `  Admin API: ${admin}`,
    ...(options.redis === undefined ? [] : [`  Shared world: every session lives in Redis at ${safeUrl(options.redis)}`]),
    ...(clock === undefined ? [] : [clockLine(clock, url, options)]),
    `  Scenario ${options.scenario ?? 'default'}. Seed ${options.seed ?? 1}, ${pets} pets${options.stateFile ? `, state file ${options.stateFile}` : ''}${options.userHandlers ? `, ${options.userHandlers.length} user handlers` : ''}. Ctrl-C to stop.`,
  ].join('\n')
}

/** Errors of a listen address that is no address of this machine, or a name that resolves to none. */
const NOT_OURS = new Set(['EADDRNOTAVAIL', 'EAFNOSUPPORT'])
const UNRESOLVED = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'EAI_NODATA', 'EAI_ADDRFAMILY'])

/**
 * The usage message of a `--host` the server cannot listen on (test/cli/host-unusable.test.ts), like every other bad
 * option's (exit 2); `undefined` for another failure.
 */
function unusableHost(error: unknown, host: string, label: string): string | undefined {
  const code = (error as NodeJS.ErrnoException).code ?? ''
  const fix = 'give an address of this machine, e.g. 127.0.0.1 (this machine only) or 0.0.0.0 (every interface).'
  if (NOT_OURS.has(code)) return `${label} ${JSON.stringify(host)} is not an address of this machine (${code}): ${fix}`
  if (UNRESOLVED.has(code)) return `${label} ${JSON.stringify(host)} does not resolve to an address (${code}): ${fix}`
  return undefined
}

/** A path as the notices show it: `./state` under the current folder, else the whole path. */
function near(path: string): string {
  const rel = relative(process.cwd(), path)
  return rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? path : `./${rel}`
}

/** The nearest of `folder` and its parents that exists, and whether it is a folder. */
async function nearestExisting(folder: string): Promise<{ path: string; isFolder: boolean }> {
  for (let path = folder; ; path = dirname(path)) {
    const found = await lstat(path).catch(() => undefined)
    if (found !== undefined || dirname(path) === path)
      return { path, isFolder: (await stat(path).catch(() => undefined))?.isDirectory() ?? false }
  }
}

/**
 * Creates the state file's folder when it is missing, as `mkdir -p` does, with a one-line notice on stderr (docs/server.md,
 * "A config file": its `./state/petstore.json` works as written). A folder that cannot be made is a usage error naming
 * where the path came from (`source`) and the fix (test/cli/state-folder.test.ts).
 */
async function ensureStateFolder(file: string, source: string): Promise<void> {
  const folder = dirname(file)
  const found = await stat(folder).catch((error: NodeJS.ErrnoException) => error)
  if (!(found instanceof Error) && found.isDirectory()) return
  const blocked = await nearestExisting(folder)
  const point = 'or point it at another folder'
  if (!blocked.isFolder)
    throw new UsageError(
      `${source}: the state file's folder ${near(folder)} cannot be made: ${near(blocked.path)} is in the way (it is not a folder). Move it aside, ${point}.`,
    )
  try {
    await mkdir(folder, { recursive: true })
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException
    const why = code === 'EACCES' || code === 'EPERM' || code === 'EROFS' ? `${near(blocked.path)} may not be written (${code})` : message
    throw new UsageError(
      `${source}: the state file's folder ${near(folder)} cannot be made: ${why}. Create it yourself (mkdir -p ${folder}), ${point}.`,
    )
  }
  process.stderr.write(`petstore-mock: created ${near(folder)} for the state file\n`)
}

/** Starts the server from the command line and the environment. */
export async function serve(): Promise<void> {
  const exitUsage = (error: unknown) => process.exit(usageFailed(SERVE, error))
  const parsed = await parseCli(process.argv.slice(2), process.env).catch(exitUsage)
  // --help or --version: the text to print.
  if (typeof parsed === 'string') return void process.stdout.write(`${parsed}\n`)
  const { options, config, source } = parsed
  if (options.stateFile !== undefined) await ensureStateFolder(options.stateFile, source('stateFile')).catch(exitUsage)
  try {
    needIntegrations({ server: true, mcp: false }, options, source)
  } catch (error) {
    exitUsage(error)
  }
  const server = createPetStoreServer(options)
  // Signals are handled before the banner, so a stop right after start-up still saves and exits 0.
  let stopping = false
  const stop = (signal: string) => {
    if (stopping) return
    stopping = true
    process.stdout.write(`petstore-mock: ${signal}, finishing in-flight requests${options.stateFile ? ' and saving state' : ''}…\n`)
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`petstore-mock: could not save the state at shutdown: ${(error as Error).message}\n`)
        process.exit(1)
      },
    )
  }
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => stop(signal))
  let url: string
  try {
    url = await server.listen()
  } catch (error) {
    if (error instanceof StateFileError || error instanceof RedisStartError) {
      const from = source(error instanceof StateFileError ? 'stateFile' : 'redis')
      process.stderr.write(`petstore-mock: ${from}: ${plainMessage(error)}\n`)
      process.exit(2)
    }
    const unusable = unusableHost(error, options.host ?? '127.0.0.1', source('host'))
    if (unusable !== undefined) {
      process.stderr.write(`petstore-mock: ${unusable}\n`)
      process.exit(2)
    }
    const code = (error as NodeJS.ErrnoException).code
    const hint =
      code === 'EADDRINUSE' ? ` Port ${options.port ?? 4010} (${source('port')}) is in use: pick another, or 0 for a free one.` : ''
    process.stderr.write(`petstore-mock: could not start: ${(error as Error).message}.${hint}\n`)
    process.exit(1)
  }
  process.stdout.write(`${banner(url, options, config, clockView(server.petStore.clock))}\n`)
}
