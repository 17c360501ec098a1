/**
 * A list of slot numbers kept in the order of their pets' ids, in a typed array (issue #18): a million pets are one
 * `Int32Array` the garbage collector never looks into, instead of an array of a million references it marks.
 */
export class SortedSlots {
  #slots = new Int32Array(16)
  #length = 0

  get length(): number {
    return this.#length
  }

  /** The slot at position `index` (0 <= index < length). */
  at(index: number): number {
    return this.#slots[index] as number
  }

  /** The last slot, or `undefined`. */
  last(): number | undefined {
    return this.#length === 0 ? undefined : this.#slots[this.#length - 1]
  }

  /** Puts `slot` at position `index`, moving the ones from there up by one. */
  insert(index: number, slot: number): void {
    if (this.#length === this.#slots.length) {
      const larger = new Int32Array(this.#slots.length * 2)
      larger.set(this.#slots)
      this.#slots = larger
    }
    if (index < this.#length) this.#slots.copyWithin(index + 1, index, this.#length)
    this.#slots[index] = slot
    this.#length += 1
  }

  removeAt(index: number): void {
    this.#slots.copyWithin(index, index + 1, this.#length)
    this.#length -= 1
  }

  /** The first `count` slots, as an array. */
  first(count: number): number[] {
    return Array.from(this.#slots.subarray(0, Math.min(count, this.#length)))
  }

  clear(): void {
    this.#slots = new Int32Array(16)
    this.#length = 0
  }
}
