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
