/**
 * `petstore-mock/vitest`: assertions for SDK test suites. Add it to `setupFiles`, or import it once.
 *
 * @example
 * // vitest.config.ts: test: { setupFiles: ['petstore-mock/vitest'] }
 * expect(petStore).toHaveNoRetryViolations()
 */
import { expect } from 'vitest'
import type { AuditReport } from './core/audit.js'

interface Auditable {
  audit(): AuditReport
}

function isAuditable(value: unknown): value is Auditable {
  return typeof value === 'object' && value !== null && typeof (value as Auditable).audit === 'function'
}

export const petStoreMatchers = {
  /** Passes when no key sent a request before its Retry-After had passed and no key was banned. */
  toHaveNoRetryViolations(received: unknown) {
    if (!isAuditable(received)) {
      return { pass: false, message: () => '[petstore-mock] toHaveNoRetryViolations() expects a PetStore (from createPetStore).' }
    }
    const report = received.audit()
    return {
      pass: report.ok,
      message: () =>
        report.ok
          ? 'expected a retry violation or a ban, but every key honoured Retry-After'
          : `expected no retry violations, but:\n${report.problems.map((line) => `  - ${line}`).join('\n')}`,
    }
  },
  /** Passes when, after every 429, the gaps between a key's retries grew (exponential backoff). */
  toHaveBackedOff(received: unknown) {
    if (!isAuditable(received)) return { pass: false, message: () => '[petstore-mock] toHaveBackedOff() expects a PetStore.' }
    const flat = received.audit().keys.filter((key) => !key.backoffGrew)
    return {
      pass: flat.length === 0,
      message: () =>
        flat.length === 0
          ? 'expected a key whose retry gaps did not grow'
          : `expected retry gaps to grow, but ${flat.map((key) => `${key.key}: ${JSON.stringify(key.retryGapsMs)}`).join('; ')}`,
    }
  },
}

expect.extend(petStoreMatchers)

declare module 'vitest' {
  interface Assertion<T> {
    toHaveNoRetryViolations(): T
    toHaveBackedOff(): T
  }
  interface AsymmetricMatchersContaining {
    toHaveNoRetryViolations(): void
    toHaveBackedOff(): void
  }
}
