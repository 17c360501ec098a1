/**
 * How much memory a piece of work leaves behind, between two full collections: the measure of the in-process memory
 * table (`bench/memory-in-process.ts`: a view that keeps a whole body alive, a pet's text kept as a tree of pieces).
 * Array buffers count as well as the heap: the store packs the pets' texts into them (issue #18), and those bytes are
 * as real as the heap's. A figure of this machine's heap, so a bench row and never a test (docs/benchmarks.md).
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

/** The heap's used bytes and the array buffers' together. */
const usedBytes = (): number => {
  const { heapUsed, arrayBuffers } = process.memoryUsage()
  return heapUsed + arrayBuffers
}

/**
 * Bytes of heap and array buffers still used after `work` than before it, each side measured after a full collection. What `work`
 * returns is held through the second collection and handed back, so it counts (a store made inside, say).
 */
export async function heapGrowthOf<T>(work: () => T | Promise<T>): Promise<{ bytes: number; kept: T }> {
  const before = await settledBytes()
  const kept = await work()
  return { bytes: (await settledBytes()) - before, kept }
}

/**
 * Used bytes after a full collection, once the array buffers it freed are given back: V8 frees their memory on a
 * helper thread, so right after `gc()` the count may still hold some (more so on a busy machine).
 */
async function settledBytes(): Promise<number> {
  let last = Number.NaN
  for (let round = 0; round < 20; round++) {
    gc()
    await new Promise((resolve) => setTimeout(resolve, 5))
    const { arrayBuffers } = process.memoryUsage()
    if (arrayBuffers === last) break
    last = arrayBuffers
  }
  return usedBytes()
}
