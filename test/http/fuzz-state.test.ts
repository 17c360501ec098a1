/**
 * The fuzz suite (test/support/fuzz-suite.ts) against the standalone server over HTTP on 127.0.0.1; the state read
 * with GET /__mock/state.
 */
import { parse, parseNumberAndBigInt } from 'lossless-json'
import { afterAll, expect } from 'vitest'
import { defineFuzzSuite, FUZZ_KEYS, type FuzzTarget } from '../support/fuzz-suite.js'
import { closeServers, startServer } from './support.js'

afterAll(closeServers)

defineFuzzSuite('standalone server over HTTP', async () => {
  const { url } = await startServer({ keys: FUZZ_KEYS, seed: 3 })
  return {
    fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(5_000) }),
    origin: url,
    async petState() {
      const response = await fetch(`${url}/__mock/state`, { signal: AbortSignal.timeout(5_000) })
      const text = await response.text()
      expect(response.status, text).toBe(200)
      const { pets, nextId } = parse(text, null, parseNumberAndBigInt) as Awaited<ReturnType<FuzzTarget['petState']>>
      return { pets, nextId }
    },
  }
})
