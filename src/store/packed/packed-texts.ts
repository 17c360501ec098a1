/**
 * The stored pets' JSON texts as UTF-8 bytes in chunks (issue #18, the ninth pass). Every pet a client creates lives as
 * long as the world, so each full collection of a busy server marked every one of them: kept as a string and an
 * entry object, a million pets took 228 ms to collect on one core (Node 24, `gc()`), and the marking threads took the
 * server's core for 40-75 ms at a time. Bytes in a few large `Uint8Array`s are not marked at all: 36 ms for the same
 * million pets, most of it the map by id. Web APIs only (the store also runs in the browser).
 */

/**
 * Chunks grow from 4 KiB (a world of 50 pets needs one; a test suite makes hundreds of worlds, and large array buffers
 * make V8 collect sooner) to 256 KiB (a million pets are three hundred chunks).
 */
const FIRST_CHUNK_BYTES = 4 * 1024
const CHUNK_BYTES = 256 * 1024
/** Where a text lies: `chunk * CHUNK_SPAN + offset`, exact in a double for any number of chunks a heap can hold. */
const CHUNK_SPAN = 2 ** 32

const encoder = new TextEncoder()
const decoder = new TextDecoder()

export class PackedTexts {
  #chunks: Uint8Array[] = []
  /** Bytes written into the newest chunk. */
  #used = 0
  #bytes = 0
  #nextSize = FIRST_CHUNK_BYTES

  /** Bytes of every chunk held (what the texts cost, written or not). */
  get bytes(): number {
    return this.#bytes
  }

  /**
   * Writes `text`; returns where it lies and its length in bytes (both for `read`). A text larger than a chunk gets a
   * chunk of its own size.
   */
  write(text: string): { at: number; length: number } {
    // UTF-8 takes at most 3 bytes per UTF-16 unit; most texts are ASCII and take one.
    const most = text.length * 3
    let chunk = this.#chunks[this.#chunks.length - 1]
    if (chunk === undefined || chunk.length - this.#used < most) {
      // A chunk that may not fit: try it first, so a chunk is not left three-quarters empty by a long name.
      if (chunk !== undefined && chunk.length - this.#used >= text.length) {
        const { read, written } = encoder.encodeInto(text, chunk.subarray(this.#used))
        if (read === text.length) return this.#wrote(written)
      }
      chunk = new Uint8Array(Math.max(this.#nextSize, most))
      this.#nextSize = Math.min(this.#nextSize * 2, CHUNK_BYTES)
      this.#chunks.push(chunk)
      this.#bytes += chunk.length
      this.#used = 0
    }
    const { written } = encoder.encodeInto(text, chunk.subarray(this.#used))
    return this.#wrote(written)
  }

  /** The text written at `at` with `length` bytes. */
  read(at: number, length: number): string {
    const chunk = this.#chunks[Math.floor(at / CHUNK_SPAN)] as Uint8Array
    const offset = at % CHUNK_SPAN
    return decoder.decode(chunk.subarray(offset, offset + length))
  }

  /** Gives every chunk back. */
  clear(): void {
    this.#chunks = []
    this.#used = 0
    this.#bytes = 0
    this.#nextSize = FIRST_CHUNK_BYTES
  }

  #wrote(written: number): { at: number; length: number } {
    const at = (this.#chunks.length - 1) * CHUNK_SPAN + this.#used
    this.#used += written
    return { at, length: written }
  }
}
