/**
 * The retry-audit and report-card matchers, shared by `petstore-mock/vitest` and `petstore-mock/jest`: plain
 * functions of the form both runners' `expect.extend` take.
 */
import { resultText } from './check/report.js'
import type { CardReport } from './check/types.js'
import type { AuditReport } from './journal/audit.js'
import type { SpecCoverage } from './journal/coverage.js'

interface Auditable {
  audit(): AuditReport
  coverage(): SpecCoverage
}

function isAuditable(value: unknown): value is Auditable {
  return typeof value === 'object' && value !== null && typeof (value as Auditable).audit === 'function'
}

/**
 * @example
 * expect.extend(petStoreMatchers)
 * expect(petStore).toHaveNoRetryViolations()
 */
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
  /** Passes when the journal's traffic exercised at least `min` (0 to 1, default 1) of the spec's coverage items. */
  toCoverSpec(received: unknown, min = 1) {
    if (!isAuditable(received)) return { pass: false, message: () => '[petstore-mock] toCoverSpec() expects a PetStore.' }
    const coverage = received.coverage()
    const percent = (ratio: number) => `${Math.round(ratio * 1000) / 10}%`
    return {
      pass: coverage.ratio >= min,
      message: () =>
        `expected the traffic to cover ${percent(min)} of the spec, it covered ${percent(coverage.ratio)} (${coverage.covered} of ${coverage.total}); never exercised: ${coverage.missing.join(', ') || 'nothing'}`,
    }
  },
  /** Passes when every required check of a report card (`checkClient`, `petstore-mock/check`) passed or did not apply. */
  toPassClientChecks(received: unknown) {
    const report = received as CardReport
    if (typeof report !== 'object' || report === null || !Array.isArray(report.checks)) {
      return { pass: false, message: () => '[petstore-mock] toPassClientChecks() expects the report of checkClient().' }
    }
    const failed = report.checks.filter((result) => result.status === 'failed' && result.level === 'required')
    return {
      pass: failed.length === 0,
      message: () =>
        failed.length === 0
          ? `expected a failed check, but every required check of ${report.card} passed`
          : `expected the client to pass ${report.card}, but:\n${failed.map(resultText).join('\n')}`,
    }
  },
}

/** The matchers' types, as `expect(petStore).toHaveNoRetryViolations()` is written. */
export interface PetStoreMatchers<R = void> {
  /** No key sent a request before its Retry-After had passed, and no key was banned. */
  toHaveNoRetryViolations(): R
  /** After every 429, the gaps between a key's retries grew (exponential backoff). */
  toHaveBackedOff(): R
  /** Every required check of a report card (`checkClient`) passed or did not apply. */
  toPassClientChecks(): R
  /** The journal's traffic exercised at least `min` (0 to 1, default 1) of the spec's coverage items. */
  toCoverSpec(min?: number): R
}
