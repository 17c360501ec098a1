/**
 * The standalone server's young generation (issue #18, decision 017). From V8 13 (Node 24 and later) a semi-space's
 * largest size follows the memory limit: 32 MB on a machine whose heap limit is 4 GB, where Node 20 and 22 use 16 MB.
 * Under a load of creates every scavenge then copies twice as many young pets, and the p99 of creates at c=50 doubled
 * (docs/benchmarks.md, "Eighth pass" and "Ninth pass"). That size can only be chosen when node starts, so the CLI
 * starts node again with `--max-semi-space-size=16` (`start-flags.ts`).
 *
 * Left alone: a size of the user's (`node --max-semi-space-size=N`, or in `NODE_OPTIONS`), a node before V8 13, a
 * heap limit of 2.25 GB or less (the default is 16 MB or less there: lowering only).
 */

/** The semi-space size the standalone server asks for, in MB: Node 20's and 22's on a 64-bit machine. */
export const SEMI_SPACE_MB = 16
/** The flag node is started with for it. */
export const SEMI_SPACE_FLAG = `--max-semi-space-size=${SEMI_SPACE_MB}`
/** The banner's line in the process started with it. */
export const SEMI_SPACE_LINE = `  GC: a young generation of ${SEMI_SPACE_MB} MB a semi-space, as on Node 20 and 22, for a steadier p99 under load (decision 017; node --max-semi-space-size=N to choose).`
/** The first V8 whose young generation grows past 16 MB with the memory limit. */
const SIZED_FROM_MEMORY_FROM_V8 = 13
/** Heap limits at or under this keep a semi-space of 16 MB or less by default (Node's docs: "up to 2 GiB"). */
const LARGER_SEMI_SPACE_ABOVE_BYTES = 2.25 * 2 ** 30

export interface YoungGenerationFacts {
  /** V8's version (`process.versions.v8`). */
  readonly v8: string
  /** Node's own options (`process.execArgv`). */
  readonly nodeOptions: readonly string[]
  /** The environment (`NODE_OPTIONS` is read). */
  readonly env: Readonly<Record<string, string | undefined>>
  /** V8's heap limit in bytes (`v8.getHeapStatistics().heap_size_limit`). */
  readonly heapLimit: number
}

const SEMI_SPACE_OPTION = /^--(max|min)[-_]semi[-_]space[-_]size(=|$)/

/** `smaller`: start node with a 16 MB semi-space; `user`: the user chose a size; `default`: V8's is kept. */
export function youngGenerationChoice(facts: YoungGenerationFacts): 'smaller' | 'user' | 'default' {
  const fromEnvironment = (facts.env.NODE_OPTIONS ?? '').split(/\s+/)
  if ([...facts.nodeOptions, ...fromEnvironment].some((option) => SEMI_SPACE_OPTION.test(option))) return 'user'
  if (Number.parseInt(facts.v8, 10) < SIZED_FROM_MEMORY_FROM_V8) return 'default'
  return facts.heapLimit > LARGER_SEMI_SPACE_ABOVE_BYTES ? 'smaller' : 'default'
}
