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

// Vitest 3 and 4 declare `Matchers<T = any>`, vitest 5 `Matchers<R, T>`: one declaration cannot merge with both. Every
// version maps the methods of `Chai.Assertion` onto its `Assertion` (its `VitestAssertion` type), so the matchers
// are added there, which reaches `expect(x)` in vitest 3, 4 and 5 alike; asymmetric matchers take no type parameters.
declare global {
  namespace Chai {
    interface Assertion extends PetStoreMatchers {}
  }
}
declare module 'vitest' {
  interface AsymmetricMatchersContaining extends PetStoreMatchers {}
}
