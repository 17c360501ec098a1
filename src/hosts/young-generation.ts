/**
 * The standalone server's young generation (issue #18, decision 017). From V8 13 (Node 24 and later) a semi-space's
 * largest size follows the memory limit: 32 MB on a machine whose heap limit is 4 GB, where Node 20 and 22 use 16 MB.
 * Under a load of creates every scavenge then copies twice as many young pets, and the p99 of creates at c=50 doubled
 * (docs/benchmarks.md, "Eighth pass" and "Ninth pass"). That size can only be chosen when node starts, so there, and
 * only there, the CLI replaces its own process (`process.execve`: same pid, same stdio, no second process) with one
 * started with `--max-semi-space-size=16`, before it builds any world.
 *
 * Left alone: a size of the user's (`node --max-semi-space-size=N`, or in `NODE_OPTIONS`), a node before V8 13, a
 * heap limit of 2 GB or less (the default is 16 MB or less there: lowering only), a platform without `execve`
 * (Windows), a node started with an IPC channel (`child_process.fork`) or an inspector, whose connections would not
 * survive. In-process hosts never touch the flags of the process they run in.
 */
import { getHeapStatistics } from 'node:v8'

/** The semi-space size the standalone server asks for, in MB: Node 20's and 22's on a 64-bit machine. */
export const SEMI_SPACE_MB = 16
/** Set in the environment of the process that replaced itself, so it knows (and never replaces itself twice). */
export const RESTARTED_ENV = 'PETSTORE_MOCK_SEMI_SPACE_MB'
/** The first V8 whose young generation grows past 16 MB with the memory limit. */
const SIZED_FROM_MEMORY_FROM_V8 = 13
/** Heap limits at or under this keep a semi-space of 16 MB or less by default (Node's docs: "up to 2 GiB"). */
const LARGER_SEMI_SPACE_ABOVE_BYTES = 2.25 * 2 ** 30

export interface StartFacts {
  /** V8's version (`process.versions.v8`). */
  readonly v8: string
  /** Node's own options (`process.execArgv`). */
  readonly nodeOptions: readonly string[]
  /** The environment (`NODE_OPTIONS`, `NODE_CHANNEL_FD`, `RESTARTED_ENV`). */
  readonly env: Readonly<Record<string, string | undefined>>
  /** V8's heap limit in bytes (`v8.getHeapStatistics().heap_size_limit`). */
  readonly heapLimit: number
  /** Whether `process.execve` exists (Node 22.15 and later, not on Windows). */
  readonly canReplace: boolean
}

export type YoungGenerationChoice = 'replace' | 'replaced' | 'user' | 'default'

const SEMI_SPACE_OPTION = /^--(max|min)[-_]semi[-_]space[-_]size(=|$)/
const INSPECTOR_OPTION = /^--inspect/

/**
 * `replace`: start again with a 16 MB semi-space; `replaced`: this process is that start; `user`: the user chose a
 * size; `default`: V8's default is kept (see the module's comment for when).
 */
export function youngGenerationChoice(facts: StartFacts): YoungGenerationChoice {
  const fromEnvironment = (facts.env.NODE_OPTIONS ?? '').split(/\s+/)
  if (facts.env[RESTARTED_ENV] !== undefined)
    return facts.nodeOptions.includes(`--max-semi-space-size=${SEMI_SPACE_MB}`) ? 'replaced' : 'default'
  if ([...facts.nodeOptions, ...fromEnvironment].some((option) => SEMI_SPACE_OPTION.test(option))) return 'user'
  if (Number.parseInt(facts.v8, 10) < SIZED_FROM_MEMORY_FROM_V8) return 'default'
  if (facts.heapLimit <= LARGER_SEMI_SPACE_ABOVE_BYTES || !facts.canReplace) return 'default'
  if (facts.env.NODE_CHANNEL_FD !== undefined || facts.nodeOptions.some((option) => INSPECTOR_OPTION.test(option))) return 'default'
  return 'replace'
}

/** `process.execve` (Node 22.15 and later; the types of Node 20 do not declare it). */
const execve = (process as { execve?: Replace }).execve

const startFacts = (): StartFacts => ({
  v8: process.versions.v8,
  nodeOptions: process.execArgv,
  env: process.env,
  heapLimit: getHeapStatistics().heap_size_limit,
  canReplace: typeof execve === 'function',
})

/** What the CLI calls: `process.execve` in the real one. Never returns when it replaces the process. */
export type Replace = (file: string, args: string[], env: Record<string, string | undefined>) => void

const replaceProcess: Replace = (file, args, env) => execve?.call(process, file, args, env)

/**
 * Replaces this process with node started with a 16 MB semi-space when `youngGenerationChoice` says `replace` (never
 * returns then, unless `execve` failed: the server then starts with V8's default). Returns the banner's line in the
 * process that was started so, else `undefined`.
 *
 * @example
 * const line = chooseYoungGeneration() // in the new process on Node 24: '  GC: a young generation of 16 MB …'
 */
export function chooseYoungGeneration(
  facts: StartFacts = startFacts(),
  replace: Replace = replaceProcess,
  argv: readonly string[] = process.argv,
  execPath: string = process.execPath,
): string | undefined {
  const choice = youngGenerationChoice(facts)
  if (choice === 'replace') {
    const args = [execPath, ...facts.nodeOptions, `--max-semi-space-size=${SEMI_SPACE_MB}`, ...argv.slice(1)]
    try {
      replace(execPath, args, { ...facts.env, [RESTARTED_ENV]: String(SEMI_SPACE_MB) })
    } catch {
      // execve refused (a node that cannot be run again, a sandbox): V8's default young generation then.
    }
    return undefined
  }
  if (choice !== 'replaced') return undefined
  return `  GC: a young generation of ${SEMI_SPACE_MB} MB a semi-space, as on Node 20 and 22, for a steadier p99 under load (decision 017; node --max-semi-space-size=N to choose).`
}
