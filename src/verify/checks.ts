/**
 * Every check of `petstore-mock verify`, in the order they run: the lists first (a created pet would change them),
 * then single pets, keys and routes, then the free key's quota, and last the rules read from every answer.
 * docs/verify.md lists them with their spec sections and decision rows.
 */
import { AGGREGATE_CHECKS } from './checks-aggregate.js'
import { LIST_CHECKS } from './checks-list.js'
import { PET_CHECKS } from './checks-pets.js'
import { QUOTA_CHECKS } from './checks-quota.js'
import { ROUTE_CHECKS } from './checks-routes.js'
import type { Check } from './types.js'

export const CHECKS: readonly Check[] = [...LIST_CHECKS, ...PET_CHECKS, ...ROUTE_CHECKS, ...QUOTA_CHECKS, ...AGGREGATE_CHECKS]
