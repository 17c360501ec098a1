import { describe, expect, it } from 'vitest'
import { SlotsById, shardOf } from './slots-by-id.js'

describe('the slots of the pets by id, in 64 maps', () => {
  it('sets, finds, replaces and deletes every kind of key, and counts them', () => {
    const byId = new SlotsById()
    const keys = [0, 1, -1, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 - 1, -(2 ** 53 - 1), 2n ** 63n - 1n, -(2n ** 63n), 2n ** 70n]
    keys.forEach((key, slot) => {
      byId.set(key, slot)
    })
    expect(byId.size).toBe(keys.length)
    keys.forEach((key, slot) => {
      expect(byId.get(key), String(key)).toBe(slot)
    })
    byId.set(1, 99)
    expect(byId.size).toBe(keys.length)
    expect(byId.get(1)).toBe(99)
    expect(byId.get(2)).toBeUndefined()
    expect(byId.get(2n ** 64n)).toBeUndefined()
    expect(byId.delete(2n ** 63n - 1n)).toBe(true)
    expect(byId.delete(2n ** 63n - 1n)).toBe(false)
    expect(byId.delete(12345)).toBe(false)
    expect(byId.size).toBe(keys.length - 1)
    byId.clear()
    expect(byId.size).toBe(0)
    expect(byId.get(0)).toBeUndefined()
  })

  it('spreads consecutive ids evenly over the maps', () => {
    const counts = new Array(64).fill(0)
    for (let id = 1; id <= 64_000; id++) counts[shardOf(id)] += 1
    expect(Math.min(...counts)).toBeGreaterThan(850)
    expect(Math.max(...counts)).toBeLessThan(1150)
    // Ids past 2^32 and bigints too: not all in one map.
    expect(new Set([2 ** 40, 2 ** 40 + 2 ** 32, 2 ** 40 + 2 * 2 ** 32, 2 ** 41].map(shardOf)).size).toBeGreaterThan(1)
    expect(new Set([2n ** 60n, 2n ** 60n + 1n, 2n ** 60n + 2n, 2n ** 60n + 3n].map(shardOf)).size).toBeGreaterThan(1)
  })

  it('lets the maps reach each doubling thousands of creates apart, not all within a few (which would be one long pause again)', () => {
    // A map builds its table anew when it reaches a power of two; here, 4,096 entries each (about 262,144 pets).
    const counts = new Array(64).fill(0)
    const reached: number[] = []
    for (let id = 1; reached.length < 64; id++) {
      const shard = shardOf(id)
      counts[shard] += 1
      if (counts[shard] === 4096) reached.push(id)
    }
    const first = reached[0] as number
    const last = reached[63] as number
    // An even spread that is not scattered (id % 64, or a multiplicative hash of consecutive ids) reaches them all
    // within about 64 creates of each other.
    expect(last - first).toBeGreaterThan(5_000)
    const gaps = reached.slice(1).map((id, index) => id - (reached[index] as number))
    expect(gaps.filter((gap) => gap < 16).length).toBeLessThan(16)
  })
})
