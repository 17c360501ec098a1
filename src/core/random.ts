/**
 * A small seeded pseudo-random generator (mulberry32): faults and latencies drawn from it repeat
 * exactly for the same seed, in every host.
 */

/** Returns numbers in [0, 1), the same sequence for the same seed. */
export type Random = () => number

/**
 * @example
 * const random = createRandom(42)
 * random() // 0.6011037519201636, every time for seed 42
 */
export function createRandom(seed: number): Random {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A whole number of milliseconds in [min, max], drawn from `random`. */
export function between(random: Random, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1))
}

/**
 * How a scenario's latency is drawn, in ms: fixed, uniform between `min` and `max`, normal (`mean`, `sd`, floored at
 * 0) or log-normal given by its `median` and `p99` (a long tail: most answers fast, a few very slow).
 */
export type LatencySpec =
  | { readonly distribution?: 'fixed' | undefined; readonly ms: number }
  | { readonly distribution?: 'uniform' | undefined; readonly min: number; readonly max: number }
  | { readonly distribution: 'normal'; readonly mean: number; readonly sd: number }
  | { readonly distribution: 'lognormal'; readonly median: number; readonly p99: number }

/** The standard normal's 99th percentile: a log-normal's p99 is its median times e^(sigma * this). */
const Z_99 = 2.3263478740408408

/** A standard normal draw (Box-Muller) from two draws of `random`; 1 - u keeps the logarithm finite. */
function standardNormal(random: Random): number {
  const u = 1 - random()
  const v = random()
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)
}

/**
 * A whole number of milliseconds drawn from `spec` with `random`: the same seed gives the same delays in every host.
 *
 * @example
 * drawLatency(createRandom(1), { distribution: 'lognormal', median: 80, p99: 900 }) // 80 or so; 900 or more once in 100
 */
export function drawLatency(random: Random, spec: LatencySpec): number {
  if ('ms' in spec) return spec.ms
  if ('min' in spec) return between(random, spec.min, spec.max)
  if (spec.distribution === 'normal') return Math.max(0, Math.round(spec.mean + spec.sd * standardNormal(random)))
  const sigma = Math.log(spec.p99 / spec.median) / Z_99
  return Math.round(spec.median * Math.exp(sigma * standardNormal(random)))
}
