/**
 * `petstore-mock/vitest`: assertions for SDK test suites. Add it to `setupFiles`, or import it once.
 *
 * @example
 * // vitest.config.ts: test: { setupFiles: ['petstore-mock/vitest'] }
 * expect(petStore).toHaveNoRetryViolations()
 */
import { expect } from 'vitest'
import { type PetStoreMatchers, petStoreMatchers } from './matchers.js'

export { type PetStoreMatchers, petStoreMatchers } from './matchers.js'

expect.extend(petStoreMatchers)

// Vitest 3.2 and 4 read `Matchers` (for expect(), expect.extend and asymmetric matchers); 3.0 and 3.1 read
// `Assertion`. The type parameters are written exactly as vitest declares them, or the declarations would not merge.
declare module 'vitest' {
  // biome-ignore lint/suspicious/noExplicitAny: vitest declares `Matchers<T = any>`; the merge needs the same default.
  interface Matchers<T = any> extends PetStoreMatchers {}
  // biome-ignore lint/suspicious/noExplicitAny: as above, for `Assertion<T = any>`.
  interface Assertion<T = any> extends PetStoreMatchers {}
  interface AsymmetricMatchersContaining extends PetStoreMatchers {}
}
