import { describe, expect, it } from 'vitest'
import { createRandom, drawLatency, type LatencySpec } from './random.js'

const DRAWS = 10_000

/** The `q` quantile of sorted values (nearest rank). */
const quantile = (sorted: readonly number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number
/** `draws` delays of `spec` from a generator seeded with `seed`, sorted. */
function drawn(spec: LatencySpec, seed: number, draws = DRAWS): number[] {
  const random = createRandom(seed)
  return Array.from({ length: draws }, () => drawLatency(random, spec)).sort((a, b) => a - b)
}
const within = (share: number) => (actual: number, wanted: number) => expect(Math.abs(actual - wanted) / wanted).toBeLessThan(share)
const within5 = within(0.05)
const SEEDS = [1, 2, 3, 42, 2026]

describe('drawLatency', () => {
  // The p99 of 10,000 draws of this log-normal has a standard error of about 4% (sqrt(0.99 * 0.01 / n) over the
  // density there), so 10,000 draws pin it to 10% and 100,000 to 5%; the median (1.3%) to 5% either way.
  it.each(SEEDS)('draws a log-normal whose median is within 5%% and p99 within 10%% of those asked (seed %s)', (seed) => {
    const delays = drawn({ distribution: 'lognormal', median: 80, p99: 900 }, seed)
    within5(quantile(delays, 0.5), 80)
    within(0.1)(quantile(delays, 0.99), 900)
  })

  it.each(SEEDS)('draws a log-normal whose p99 is within 5%% of the one asked over 100,000 draws (seed %s)', (seed) => {
    within5(quantile(drawn({ distribution: 'lognormal', median: 80, p99: 900 }, seed, 100_000), 0.99), 900)
  })

  it.each(SEEDS)('draws a normal whose mean and sd are within 5%% of those asked, never below 0 (seed %s)', (seed) => {
    const delays = drawn({ distribution: 'normal', mean: 300, sd: 50 }, seed)
    const mean = delays.reduce((sum, ms) => sum + ms, 0) / DRAWS
    within5(mean, 300)
    within5(Math.sqrt(delays.reduce((sum, ms) => sum + (ms - mean) ** 2, 0) / (DRAWS - 1)), 50)
    expect(drawn({ distribution: 'normal', mean: 10, sd: 50 }, seed)[0]).toBe(0)
  })

  it.each(SEEDS)('draws a uniform over min..max, both ends reached, its median in the middle (seed %s)', (seed) => {
    const delays = drawn({ distribution: 'uniform', min: 300, max: 1500 }, seed)
    expect([delays[0], delays.at(-1)]).toEqual([300, 1500])
    within5(quantile(delays, 0.5), 900)
    // Without `distribution`, min and max are the uniform of before.
    expect(drawn({ min: 300, max: 1500 }, seed)).toEqual(delays)
  })

  it('draws a fixed latency as it is, and whole milliseconds always', () => {
    expect(new Set(drawn({ distribution: 'fixed', ms: 250 }, 1))).toEqual(new Set([250]))
    expect(drawn({ distribution: 'lognormal', median: 80, p99: 900 }, 7).every(Number.isInteger)).toBe(true)
  })

  it('draws the same delays for the same seed, and others for another', () => {
    const spec = { distribution: 'lognormal', median: 80, p99: 900 } as const
    const first = (seed: number) => ((random) => Array.from({ length: 5 }, () => drawLatency(random, spec)))(createRandom(seed))
    expect(first(9)).toEqual(first(9))
    expect(first(9)).not.toEqual(first(10))
  })
})
