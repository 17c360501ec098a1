/**
 * `petstore-mock/jest`: the retry-audit matchers for Jest, and their types for Jest's `expect` (from
 * `@jest/globals` or the `expect` package) and for the `jest` namespace of @types/jest.
 *
 * It calls nothing itself: Jest's `expect` is not importable without a dependency on it, and a global
 * `expect` is missing under `injectGlobals: false`. So a setup file registers the matchers.
 *
 * @example
 * // jest.setup.js, listed in jest.config.js: setupFilesAfterEnv: ['./jest.setup.js']
 * import { expect } from '@jest/globals'
 * import { petStoreMatchers } from 'petstore-mock/jest'
 * expect.extend(petStoreMatchers)
 *
 * // in a test
 * expect(petStore).toHaveNoRetryViolations()
 */
// The augmentation below applies only when `expect` is part of the program; this keeps it there, also in the
// emitted declarations (a type-only import would be dropped from them), for @types/jest users too.
/// <reference types="expect" preserve="true" />
import type { PetStoreMatchers } from './matchers.js'

export { type PetStoreMatchers, petStoreMatchers } from './matchers.js'

// The type parameters are written exactly as `expect` 30 declares them, or the declarations would not merge.
declare module 'expect' {
  interface Matchers<R extends void | Promise<void>, T = unknown> extends PetStoreMatchers<R> {}
  interface AsymmetricMatchers extends PetStoreMatchers {}
}

// @types/jest declares `jest.Matchers<R, T = {}>` (30.0.0); the same parameters, for the global `expect` it types.
declare global {
  namespace jest {
    // biome-ignore lint/complexity/noBannedTypes: @types/jest declares `T = {}`; the merge needs the same default.
    interface Matchers<R, T = {}> extends PetStoreMatchers<R> {}
  }
}
