/**
 * The standalone server on one CPU (issue #18, decision 016). V8 marks the old generation on helper threads while the
 * program runs. When the process may run on one CPU only (`taskset`, a cpuset, a container pinned to one core), those
 * threads take the server's core away for whole scheduler slices in the middle of requests: creates at 10,000 pets
 * then had a p99 of 2-14 ms from one 5-second round to the next, 2-3.6 ms without them. So there, and only there, the
 * server turns concurrent marking off before it builds its world: V8 then marks in small steps on the server's own
 * thread. A choice of the user's (`node --concurrent-marking` or `--no-concurrent-marking`; V8 flags are not allowed
 * in `NODE_OPTIONS`) is left alone. In-process hosts never touch the flags of the process they run in.
 *
 * Only before V8 13 (Node 20 and 22). On Node 24 (V8 13.6) the same flag made it worse: a full collection of a heap
 * of a few hundred MB then paused the server for 120-190 ms at its end (15 ms and less with the marking thread), and
 * rounds of creates at c=50 had a p99 of 93-156 ms instead of 4-7 (docs/benchmarks.md, "Eighth pass").
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

/** The first V8 whose collector does better on one CPU with its marking thread than without it. */
const MARKING_THREAD_FROM_V8 = 13

/**
 * `off`: one CPU, a V8 before 13 and no choice of the user's; `user`: the user chose; `default`: V8's default (several
 * CPUs, or V8 13 and later).
 */
export function concurrentMarkingChoice(facts: ProcessFacts): 'off' | 'user' | 'default' {
  if (facts.nodeOptions.some((option) => /^--(no-)?concurrent[-_]marking(=|$)/.test(option))) return 'user'
  const v8Major = Number.parseInt(facts.v8, 10)
  return facts.cpus <= 1 && v8Major < MARKING_THREAD_FROM_V8 ? 'off' : 'default'
}

const processFacts = (): ProcessFacts => ({
  cpus: availableParallelism(),
  nodeOptions: process.execArgv,
  v8: process.versions.v8,
})

/**
 * Turns concurrent marking off when `concurrentMarkingChoice` says so; returns the banner's line then, else `undefined`.
 *
 * @example
 * const line = tuneForOneCpu() // '  GC: one CPU, so V8 marks on the server's thread (…)' under `taskset -c 0` on Node 20
 */
export function tuneForOneCpu(
  facts: ProcessFacts = processFacts(),
  setFlags: (flags: string) => void = setFlagsFromString,
): string | undefined {
  if (concurrentMarkingChoice(facts) !== 'off') return undefined
  setFlags('--no-concurrent-marking')
  return "  GC: one CPU, so V8 marks on the server's thread, with no marking thread to take the CPU mid-request (decision 016; start node with --concurrent-marking to keep it)."
}
