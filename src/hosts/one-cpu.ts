/**
 * The standalone server on one CPU (issue #18, decision 016). V8 marks the old generation on helper threads while the
 * program runs. When the process may run on one CPU only (`taskset`, a cpuset, a container pinned to one core), those
 * threads take the server's core away for whole scheduler slices in the middle of requests: creates at 10,000 pets
 * then had a p99 of 2-14 ms from one 5-second round to the next, 2-3.6 ms without them. So there, and only there, the
 * server turns concurrent marking off before it builds its world: V8 then marks in small steps on the server's own
 * thread. A choice of the user's (`node --concurrent-marking` or `--no-concurrent-marking`; V8 flags are not allowed
 * in `NODE_OPTIONS`) is left alone. In-process hosts never touch the flags of the process they run in.
 */
import { availableParallelism } from 'node:os'
import { setFlagsFromString } from 'node:v8'

export interface ProcessFacts {
  /** CPUs this process may run on (`os.availableParallelism()`, which follows the CPU affinity). */
  readonly cpus: number
  /** Node's own options (`process.execArgv`). */
  readonly nodeOptions: readonly string[]
}

/** `off`: one CPU and no choice of the user's; `user`: the user chose; `default`: several CPUs, V8's default. */
export function concurrentMarkingChoice(facts: ProcessFacts): 'off' | 'user' | 'default' {
  if (facts.nodeOptions.some((option) => /^--(no-)?concurrent[-_]marking(=|$)/.test(option))) return 'user'
  return facts.cpus <= 1 ? 'off' : 'default'
}

const processFacts = (): ProcessFacts => ({
  cpus: availableParallelism(),
  nodeOptions: process.execArgv,
})

/**
 * Turns concurrent marking off when `concurrentMarkingChoice` says so; returns the banner's line then, else `undefined`.
 *
 * @example
 * const line = tuneForOneCpu() // '  GC: one CPU, so V8 marks on the server's thread (…)' under `taskset -c 0`
 */
export function tuneForOneCpu(
  facts: ProcessFacts = processFacts(),
  setFlags: (flags: string) => void = setFlagsFromString,
): string | undefined {
  if (concurrentMarkingChoice(facts) !== 'off') return undefined
  setFlags('--no-concurrent-marking')
  return "  GC: one CPU, so V8 marks on the server's thread, with no marking thread to take the CPU mid-request (decision 016; start node with --concurrent-marking to keep it)."
}
