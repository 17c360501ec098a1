/**
 * V8 flags the standalone server needs from node's start (issue #18). V8 reads some of its collector's settings only
 * when node starts, so when one is wanted the CLI replaces its own process (`process.execve`: same pid, same stdio, no
 * second process) with node started with it, before it loads the server (decision 017). Two rules ask for one:
 *
 * - `young-generation.ts` (decision 017): `--max-semi-space-size=16` from V8 13 on, above a 2.25 GB heap limit;
 * - `one-cpu.ts` (decision 018): `--single-threaded-gc` from V8 13 on, when the process may use one CPU only.
 *
 * Never done: on a platform without `execve` (Windows), under an IPC channel (`child_process.fork`) or an inspector,
 * whose connections would not survive, and twice (the new process finds the flags it was given in `RESTARTED_ENV`).
 * In-process hosts never touch the flags of the process they run in.
 */
import { availableParallelism } from 'node:os'
import { getHeapStatistics } from 'node:v8'
import { oneCpuChoice, type ProcessFacts, SINGLE_THREADED_FLAG, SINGLE_THREADED_LINE } from './one-cpu.js'
import { SEMI_SPACE_FLAG, SEMI_SPACE_LINE, type YoungGenerationFacts, youngGenerationChoice } from './young-generation.js'

/** Set in the environment of the process that replaced itself: the flags it added, so it never replaces itself twice. */
export const RESTARTED_ENV = 'PETSTORE_MOCK_STARTED_WITH'

export interface StartFacts extends ProcessFacts, YoungGenerationFacts {
  /** Whether `process.execve` exists (Node 22.15 and later, not on Windows). */
  readonly canReplace: boolean
}

/** Each flag with its banner line and the rule that asks for it, in the order they are given to node. */
const RULES: readonly { flag: string; line: string; wanted(facts: StartFacts): boolean }[] = [
  { flag: SEMI_SPACE_FLAG, line: SEMI_SPACE_LINE, wanted: (facts) => youngGenerationChoice(facts) === 'smaller' },
  { flag: SINGLE_THREADED_FLAG, line: SINGLE_THREADED_LINE, wanted: (facts) => oneCpuChoice(facts) === 'single-threaded' },
]

const INSPECTOR_OPTION = /^--inspect/

export type StartChoice =
  /** Start node again with these flags. */
  | { readonly kind: 'replace'; readonly flags: readonly string[] }
  /** This process is that start: the banner's lines for the flags it was given. */
  | { readonly kind: 'replaced'; readonly lines: readonly string[] }
  /** Go on as started. */
  | { readonly kind: 'as-started' }

export function startChoice(facts: StartFacts): StartChoice {
  const given = facts.env[RESTARTED_ENV]
  if (given !== undefined) {
    const added = given.split(' ')
    // A marker whose flag is not on the command line (execve ran something else) claims nothing in the banner.
    const lines = RULES.filter((rule) => added.includes(rule.flag) && facts.nodeOptions.includes(rule.flag)).map((rule) => rule.line)
    return { kind: 'replaced', lines }
  }
  const flags = RULES.filter((rule) => rule.wanted(facts)).map((rule) => rule.flag)
  if (flags.length === 0 || !facts.canReplace) return { kind: 'as-started' }
  if (facts.env.NODE_CHANNEL_FD !== undefined || facts.nodeOptions.some((option) => INSPECTOR_OPTION.test(option)))
    return { kind: 'as-started' }
  return { kind: 'replace', flags }
}

/** `process.execve` (Node 22.15 and later; the types of Node 20 do not declare it). */
const execve = (process as { execve?: Replace }).execve

const startFacts = (): StartFacts => ({
  v8: process.versions.v8,
  nodeOptions: process.execArgv,
  env: process.env,
  heapLimit: getHeapStatistics().heap_size_limit,
  cpus: availableParallelism(),
  canReplace: typeof execve === 'function',
})

/** What the CLI calls: `process.execve` in the real one. Never returns when it replaces the process. */
export type Replace = (file: string, args: string[], env: Record<string, string | undefined>) => void

const replaceProcess: Replace = (file, args, env) => execve?.call(process, file, args, env)

/**
 * Replaces this process with node started with the flags `startChoice` asks for (never returns then, unless `execve`
 * failed: the server then starts with V8's defaults). Returns the banner's lines of the process that was started so.
 *
 * @example
 * const lines = chooseStartFlags() // in the new process on Node 24: ['  GC: a young generation of 16 MB …']
 */
export function chooseStartFlags(
  facts: StartFacts = startFacts(),
  replace: Replace = replaceProcess,
  argv: readonly string[] = process.argv,
  execPath: string = process.execPath,
): readonly string[] {
  const choice = startChoice(facts)
  if (choice.kind === 'replaced') return choice.lines
  if (choice.kind === 'replace') {
    const args = [execPath, ...facts.nodeOptions, ...choice.flags, ...argv.slice(1)]
    try {
      replace(execPath, args, { ...facts.env, [RESTARTED_ENV]: choice.flags.join(' ') })
    } catch {
      // execve refused (a node that cannot be run again, a sandbox): V8's defaults then.
    }
  }
  return []
}
