/**
 * How much heap a piece of work leaves behind, between two full collections: the measure of the memory regression
 * tests (a view that keeps a whole body alive, a pet's text kept as a tree of pieces).
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

/**
 * Bytes of heap still used after `work` than before it, each side measured after a full collection. What `work`
 * returns is held through the second collection and handed back, so it counts (a store made inside, say).
 */
export async function heapGrowthOf<T>(work: () => T | Promise<T>): Promise<{ bytes: number; kept: T }> {
  gc()
  const before = process.memoryUsage().heapUsed
  const kept = await work()
  gc()
  return { bytes: process.memoryUsage().heapUsed - before, kept }
}
