/**
 * `verify()`: black-box checks of a Pet Store deployment (docs/verify.md). Each check runs against the target and
 * against an in-process mock with the options being verified, so the report shows what the spec says, what the target
 * did and what the mock does; where a decision differs, it names the option that makes the mock answer the same.
 */
import { AGGREGATE_CHECKS } from './checks-aggregate.js'
import { LIST_CHECKS } from './checks-list.js'
import { PET_CHECKS } from './checks-pets.js'
import { QUOTA_CHECKS } from './checks-quota.js'
import { ROUTE_CHECKS } from './checks-routes.js'
import { applyPatch, mergePatches } from './config.js'
import { brief } from './describe.js'
import { DEFAULT_TARGET_BODY_BYTES } from './read-body.js'
import { redact, redactDeep } from './report.js'
import { probe } from './requests.js'
import { type Allowed, type Engine, notAllowed, runCheck } from './run.js'
import { createMockSide, createTargetSide } from './side.js'
import {
  type Check,
  type CheckResult,
  type OptionPatch,
  type Side,
  Skip,
  VerifyError,
  type VerifyOptions,
  type VerifyReport,
} from './types.js'

/**
 * Every check, in the order they run: the lists first (a created pet would change them), then single pets, keys and
 * routes, then the free key's quota, and last the rules read from every answer. docs/verify.md lists them with their
 * spec sections and decision rows.
 */
export const CHECKS: readonly Check[] = [...LIST_CHECKS, ...PET_CHECKS, ...ROUTE_CHECKS, ...QUOTA_CHECKS, ...AGGREGATE_CHECKS]

const DEFAULTS = { maxRequests: 200, maxWaitSeconds: 65, timeoutMs: 10_000 } as const

function misuse(message: string): never {
  throw new TypeError(`[petstore-mock] verify: ${message}`)
}

/** The target's URL, checked, and as the report shows it (no user or password). */
function targetOf(text: string): { target: URL; shown: string } {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return misuse(`target must be the base address of the API, e.g. "https://staging.petstore.example/v1", got ${JSON.stringify(text)}.`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    misuse(`target must be an http or https URL, got ${JSON.stringify(url.protocol)}.`)
  const shown = new URL(url.href)
  shown.username = ''
  shown.password = ''
  return { target: url, shown: shown.href.replace(/\/+$/, '') }
}

function whole(value: number | undefined, fallback: number, name: string, min: number): number {
  const chosen = value ?? fallback
  if (!Number.isSafeInteger(chosen) || chosen < min) misuse(`${name} must be a whole number of at least ${min}, got ${String(value)}.`)
  return chosen
}

/** The first request: can the target be checked at all? */
async function reach(target: Side, shown: string): Promise<void> {
  const answer = await probe(target).catch((error: unknown) => {
    throw error instanceof Skip ? new VerifyError(`cannot start checking ${shown}: ${error.message}.`) : error
  })
  // An answer that could not be read whole says what was hit (the size cap, the time limit), not "cannot reach".
  if (answer.incomplete) throw new VerifyError(`cannot check ${shown}: ${answer.error}.`)
  if (answer.status === 0)
    throw new VerifyError(
      `cannot reach ${shown}: ${answer.error}. Check --target (the base address, ending with /v1) and that the service is up.`,
    )
  if (answer.status === 401 || answer.status === 403)
    throw new VerifyError(`${shown} refused the key given with --key (GET /pets answered ${brief(answer)}): check the key.`)
  if (answer.status === 404)
    throw new VerifyError(
      `${shown}/pets answered 404: --target must be the API's base address, ending with /v1 (e.g. https://staging.petstore.example/v1).`,
    )
}

function settle(options: VerifyOptions) {
  if (typeof options.key !== 'string' || options.key === '') misuse('key must be an API key of the target.')
  const allowed: Allowed = { writes: options.allowWrites === true, quota: options.allowQuota === true, ban: options.allowBan === true }
  if (allowed.quota && !options.freeKey) misuse('allowQuota needs freeKey: a Free-plan key of the target.')
  if (allowed.ban && !allowed.quota) misuse('allowBan needs allowQuota (and freeKey): the ban follows a 429.')
  return {
    ...targetOf(options.target),
    allowed,
    budget: whole(options.maxRequests, DEFAULTS.maxRequests, 'maxRequests', 1),
    maxWaitMs: whole(options.maxWaitSeconds, DEFAULTS.maxWaitSeconds, 'maxWaitSeconds', 0) * 1000,
    timeoutMs: whole(options.timeoutMs, DEFAULTS.timeoutMs, 'timeoutMs', 1),
    maxBodyBytes: whole(options.maxBodyBytes, DEFAULT_TARGET_BODY_BYTES, 'maxBodyBytes', 1),
  }
}

/**
 * Checks a deployment of the Pet Store API against the spec and the mock. Read-only unless `allowWrites`; the free
 * key's quota only with `allowQuota`, a ban only with `allowBan`; at most `maxRequests` requests. Keys never appear
 * in the report or in errors. Throws `VerifyError` when the target cannot be checked (unreachable, key refused).
 *
 * @example
 * import { verify } from 'petstore-mock/http'
 *
 * const report = await verify({ target: 'http://127.0.0.1:4010/v1', key: 'test-pro', allowWrites: true })
 * for (const check of report.checks) if (check.ok === false) console.log(check.id, check.actual, check.option)
 */
export async function verify(options: VerifyOptions): Promise<VerifyReport> {
  const settings = settle(options)
  const secrets = [options.key, options.freeKey ?? '']
  const say = (line: string) => options.onProgress?.(redact(line, secrets))
  const keys = { key: options.key, free: options.freeKey }
  const mockOptions = options.mock ?? {}
  const target = createTargetSide({
    ...settings,
    key: options.key,
    freeKey: options.freeKey,
    fetch: options.fetch ?? globalThis.fetch,
    onWait: (ms) => say(`waiting ${Math.ceil(ms / 1000)} s for the target's Retry-After…`),
  })
  const engine: Engine = {
    target,
    mock: createMockSide(mockOptions, keys),
    freshMock: (patch) => createMockSide(applyPatch(mockOptions, patch.config), keys),
    context: { allowWrites: settings.allowed.writes, marker: `petstore-mock verify ${new Date().toISOString()}` },
    allowed: settings.allowed,
  }
  const planned =
    1 + CHECKS.filter((check) => notAllowed(check.needs, settings.allowed) === undefined).reduce((n, check) => n + check.cost, 0)
  say(
    `petstore-mock verify: ${settings.shown}, request budget ${settings.budget} (--max-requests); this run plans at most ${planned}${planned > settings.budget ? ', so checks past the budget are skipped' : ''}.`,
  )
  await reach(target, settings.shown).catch((error: unknown) => {
    throw error instanceof VerifyError ? new VerifyError(redact(error.message, secrets)) : error
  })
  const checks: CheckResult[] = []
  const found: { check: string; patch: OptionPatch }[] = []
  for (const check of CHECKS) {
    const { result, patch } = await runCheck(check, engine)
    checks.push(result)
    if (patch) found.push({ check: check.id, patch })
  }
  const { config, conflicts } = mergePatches(found)
  const report: VerifyReport = {
    target: settings.shown,
    passed: checks.filter((check) => check.ok === true).length,
    failed: checks.filter((check) => check.ok === false).length,
    skipped: checks.filter((check) => check.ok === null).length,
    budget: { max: settings.budget, planned, used: target.used() },
    checks,
    config,
    conflicts,
  }
  return redactDeep(report, secrets)
}

export { writeConfigFile } from './config.js'
export { formatJson, formatTable } from './report.js'
export type { CheckResult, VerifyOptions, VerifyReport } from './types.js'
export { VerifyError } from './types.js'
