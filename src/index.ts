/**
 * petstore-mock: a stateful, spec-exact mock of the Pet Store API.
 *
 * @example
 * import { setupServer } from 'msw/node'
 * import { createPetStore } from 'petstore-mock'
 *
 * const petStore = createPetStore({ seed: 1 })
 * const server = setupServer(...petStore.handlers)
 */
export { type Clock, createClock, type Moment } from './clock.js'
export type { ApiOptions, Quota, QuotaDecision } from './core/api.js'
export { ERRORS, type ErrorCode, PetStoreMockError } from './core/errors.js'
export type { KeyCounters, RateLimiter, RateLimitOptions } from './core/rate-limit.js'
export type { ApiKey, ApiRequest, ApiResponse, ApiResult, Limits, Plan } from './core/types.js'

import { createPetStoreSharing, type PetStore, type PetStoreOptions } from './create-pet-store.js'
import { traceAnswers } from './world/tracing.js'

export type { PetStore, PetStoreOptions, World } from './create-pet-store.js'

/**
 * Creates one isolated Pet Store world. Two stores never share pets, counters or clocks. With `tracing: true` its
 * requests are OpenTelemetry spans (docs/explain.md, "Traces"): this entry is for Node; browsers use
 * `petstore-mock/browser`, which never loads the tracing.
 *
 * @example
 * import { setupServer } from 'msw/node'
 * import { createPetStore } from 'petstore-mock'
 *
 * const petStore = createPetStore({ seed: 1 })
 * const server = setupServer(...petStore.handlers)
 * server.listen()
 * const response = await fetch('https://api.petstore.test/v1/pets', { headers: { Authorization: 'Bearer test-pro' } })
 */
export function createPetStore(options: PetStoreOptions = {}): PetStore {
  return createPetStoreSharing(options, { traceAnswers })
}

export type { AuditReport, KeyAudit, RateLimitedAnswer, RetryViolation } from './journal/audit.js'
export type { CoverageItem, SpecCoverage } from './journal/coverage.js'
export type { Journal, JournalEntry, JournalFilter } from './journal/journal.js'
export { DEFAULT_KEYS, type KeyConfig } from './keys.js'
export { openApiDocument } from './openapi.js'
export type { Scenario, ScenarioInput } from './scenarios/schema.js'
export {
  ErrorSchema,
  type NewPetRecord,
  NewPetSchema,
  PET_STATUSES,
  type PetRecord,
  type PetRecordInput,
  PetSchema,
  PetStatusSchema,
} from './schemas.js'
export { parseSnapshot, stringifySnapshot, type WorldSnapshot } from './snapshot.js'
export { DEPRECATED_AT, OPERATIONS, type Operation, type OperationId, PAGE_SIZE, PLAN_LIMITS, SUNSET } from './spec.js'
export type { PetCollection } from './store/pet-data.js'
export type { ErrorBody, NewPet, Pet, PetStatus, Pets } from './wire.js'
export type { TimelineView } from './world/timeline.js'
