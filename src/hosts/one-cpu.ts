/**
 * The standalone server on one CPU (issue #18, decisions 016 and 018). V8 marks the old generation on helper threads
 * while the program runs. When the process may run on one CPU only (`taskset`, a cpuset, a container pinned to one
 * core), those threads take the server's core away for whole scheduler slices in the middle of requests. So there,
 * and only there, the server keeps V8's collector on its own thread, in the way each V8 does it best:
 *
 * - **Before V8 13 (Node 20, 22)**: concurrent marking is turned off at run time, before the world is built (decision
 *   016): V8 marks in small steps on the server's thread. Creates at 10,000 pets had a p99 of 2-14 ms from one round
 *   to the next, 2-3.6 ms without the marking thread.
 * - **From V8 13 (Node 24 and later)**: the same flag made full collections end in a pause of 120-190 ms. There, node
 *   is started with `--single-threaded-gc` (no helper threads at all: marking, sweeping and compaction all on the
 *   server's thread), which V8 reads only when it starts: `start-flags.ts` starts node again with it (decision 018).
 *
 * A choice of the user's about the collector's threads (`node --concurrent-marking`, `--no-concurrent-marking`,
 * `--single-threaded-gc`, `--no-single-threaded-gc`, `--single-threaded`; V8 flags are not allowed in `NODE_OPTIONS`)
 * is left alone. In-process hosts never touch the flags of the process they run in.
 */
import { availableParallelism } from 'node:os'
import { setFlagsFromString } from 'node:v8'

export interface ProcessFacts {
  /** CPUs this process may run on (`os.availableParallelism()`, which follows the CPU affinity). */
  readonly cpus: number
  /** Node's own options (`process.execArgv`). */
  readonly nodeOptions: readonly string[]
  /** V8's version (`process.versions.v8`, e.g. `11.3.244.8-node.33`). */
  readonly v8: string
}

/** The first V8 whose collector does better on one CPU single-threaded than with marking on its own thread only. */
const SINGLE_THREADED_FROM_V8 = 13
/** The flag node is started with on one CPU from V8 13. */
export const SINGLE_THREADED_FLAG = '--single-threaded-gc'
/** The banner's line in the process started with it. */
export const SINGLE_THREADED_LINE =
  "  GC: one CPU, so V8 collects on the server's thread only, with no helper thread to take the CPU mid-request (decision 018; start node with --no-single-threaded-gc to keep them)."

const USER_CHOICE = /^--(no-)?(concurrent[-_]marking|single[-_]threaded([-_]gc)?)(=|$)/

/**
 * `no-concurrent-marking`: one CPU and a V8 before 13, set at run time; `single-threaded`: one CPU and V8 13 or later,
 * given to node when it starts; `user`: the user chose; `default`: V8's default (several CPUs).
 */
export function oneCpuChoice(facts: ProcessFacts): 'no-concurrent-marking' | 'single-threaded' | 'user' | 'default' {
  if (facts.nodeOptions.some((option) => USER_CHOICE.test(option))) return 'user'
  if (facts.cpus > 1) return 'default'
  return Number.parseInt(facts.v8, 10) < SINGLE_THREADED_FROM_V8 ? 'no-concurrent-marking' : 'single-threaded'
}

const processFacts = (): ProcessFacts => ({
  cpus: availableParallelism(),
  nodeOptions: process.execArgv,
  v8: process.versions.v8,
})

/**
 * Turns concurrent marking off when `oneCpuChoice` says `no-concurrent-marking`; returns the banner's line then, else
 * `undefined`.
 *
 * @example
 * const line = tuneForOneCpu() // '  GC: one CPU, so V8 marks on the server's thread (…)' under `taskset -c 0` on Node 20
 */
export function tuneForOneCpu(
  facts: ProcessFacts = processFacts(),
  setFlags: (flags: string) => void = setFlagsFromString,
): string | undefined {
  if (oneCpuChoice(facts) !== 'no-concurrent-marking') return undefined
  setFlags('--no-concurrent-marking')
  return "  GC: one CPU, so V8 marks on the server's thread, with no marking thread to take the CPU mid-request (decision 016; start node with --concurrent-marking to keep it)."
}
