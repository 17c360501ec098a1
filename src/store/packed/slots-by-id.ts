/**
 * The slot of each stored pet by its id, in 64 maps instead of one (issue #18, the tenth pass). A `Map` grows by
 * building its whole table anew at twice the size, in one go: at a million pets that took one create 70 ms, and every
 * request behind it waited. Each of these maps holds a 64th of the pets, so it grows in a 64th of the time, and the
 * maps grow at different moments: an id picks its map by a hash that scatters consecutive ids (murmur3's finalizer),
 * so the maps' sizes drift apart (by about the square root of their size) and reach each doubling thousands of creates
 * apart. A map is made when the first id falls in it.
 */
import type { Key } from './pet-slots.js'

const SHARD_BITS = 6
const SHARDS = 1 << SHARD_BITS
const TWO_TO_32 = 2 ** 32

/** murmur3's 32-bit finalizer: every bit of the input moves about half the bits of the output. */
function mix(value: number): number {
  let h = value
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h
}

/** The map `key` lives in: its low 32 bits mixed with its high ones (a `bigint` past ±2^53 by its low 64 bits). */
export function shardOf(key: Key): number {
  const low = typeof key === 'number' ? key | 0 : Number(BigInt.asIntN(32, key))
  const high = typeof key === 'number' ? Math.floor(key / TWO_TO_32) | 0 : Number(BigInt.asIntN(32, key >> 32n))
  return mix(low ^ mix(high)) >>> (32 - SHARD_BITS)
}

export class SlotsById {
  readonly #shards: (Map<Key, number> | undefined)[] = new Array(SHARDS).fill(undefined)
  #size = 0

  get size(): number {
    return this.#size
  }

  get(key: Key): number | undefined {
    return this.#shards[shardOf(key)]?.get(key)
  }

  set(key: Key, slot: number): void {
    const index = shardOf(key)
    let shard = this.#shards[index]
    if (shard === undefined) {
      shard = new Map()
      this.#shards[index] = shard
    }
    const before = shard.size
    shard.set(key, slot)
    this.#size += shard.size - before
  }

  delete(key: Key): boolean {
    const deleted = this.#shards[shardOf(key)]?.delete(key) ?? false
    if (deleted) this.#size -= 1
    return deleted
  }

  clear(): void {
    this.#shards.fill(undefined)
    this.#size = 0
  }
}
