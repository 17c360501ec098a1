/**
 * API keys and their plans. The defaults live in fixtures/keys.json.
 * @see ../shared/spec/pet-store-service.md "Rate limits by plan"
 */
import defaultKeys from '../fixtures/keys.json' with { type: 'json' }
import type { ApiKey } from './core/types.js'
import { PLAN_LIMITS, PLANS, type Plan } from './spec.js'

/** A key as configured: its plan, and custom limits where the plan's do not apply. */
export interface KeyConfig {
  readonly key: string
  readonly plan: Plan
  readonly limits?: { readonly perMinute?: number | undefined; readonly perDay?: number | undefined } | undefined
}

/** The four default keys: `test-free`, `test-pro`, `test-business`, `test-enterprise`. */
export const DEFAULT_KEYS: readonly KeyConfig[] = defaultKeys.keys as KeyConfig[]

const isPositiveInteger = (value: unknown): value is number => Number.isInteger(value) && (value as number) > 0

/**
 * Resolves key configurations into the lookup the core uses, checking each one.
 *
 * @example
 * resolveKeys([{ key: 'my-key', plan: 'enterprise', limits: { perMinute: 10 } }])
 */
export function resolveKeys(configs: readonly KeyConfig[]): Map<string, ApiKey> {
  const keys = new Map<string, ApiKey>()
  for (const [index, config] of configs.entries()) {
    const where = `keys[${index}]`
    if (typeof config?.key !== 'string' || config.key === '' || /\s/.test(config.key)) {
      throw new TypeError(`[petstore-mock] ${where}.key must be a non-empty string without spaces.`)
    }
    if (!(PLANS as readonly string[]).includes(config.plan)) {
      throw new TypeError(`[petstore-mock] ${where}.plan is ${JSON.stringify(config.plan)}; use one of ${PLANS.join(', ')}.`)
    }
    const limits = {
      perMinute: config.limits?.perMinute ?? PLAN_LIMITS[config.plan].perMinute,
      perDay: config.limits?.perDay ?? PLAN_LIMITS[config.plan].perDay,
    }
    if (!isPositiveInteger(limits.perMinute) || !isPositiveInteger(limits.perDay)) {
      throw new TypeError(`[petstore-mock] ${where}.limits must be positive integers (perMinute, perDay).`)
    }
    if (keys.has(config.key)) throw new TypeError(`[petstore-mock] ${where}.key ${JSON.stringify(config.key)} is listed twice.`)
    keys.set(config.key, { key: config.key, plan: config.plan, limits })
  }
  return keys
}
