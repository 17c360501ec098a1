/**
 * One check on both sides: the in-process mock first (what the mock does), then the target, then the verdict. When
 * a decision differs, each candidate option is tried on a fresh mock, and the one that answers like the target is
 * the one the report names.
 */
import { type Check, type CheckResult, type Needs, type Observation, type OptionPatch, type RunContext, type Side, Skip } from './types.js'

/** What the flags allow: writes (`--allow-writes`), the free key's quota (`--allow-quota`), a ban (`--allow-ban`). */
export type Allowed = Readonly<Record<Needs, boolean>>

export interface Engine {
  readonly target: Side
  readonly mock: Side
  /** A fresh in-process mock with the verified options and `patch` on top. */
  readonly freshMock: (patch: OptionPatch) => Side
  readonly context: RunContext
  readonly allowed: Allowed
}

type Seen = { observation: Observation } | { skipped: string } | { broken: string }

/** Runs a check on one side; a `Skip` is a skip, any other error a failure to check (never a crash). */
async function observe(check: Check, side: Side, context: RunContext): Promise<Seen> {
  try {
    return { observation: await check.run(side, context) }
  } catch (error) {
    if (error instanceof Skip) return { skipped: error.message }
    return { broken: error instanceof Error ? error.message : String(error) }
  }
}

const REASONS: Record<Needs, string> = {
  writes: 'read-only run: --allow-writes sends POST and DELETE requests (pets named "petstore-mock verify <time>")',
  quota: "uses up the free key's minute: needs --free-key KEY --allow-quota",
  ban: 'gets the free key banned for a while: needs --allow-ban',
}

/** Why a check may not run on the target with these flags, or `undefined`. */
export function notAllowed(needs: Needs | undefined, allowed: Allowed): string | undefined {
  if (needs === undefined) return undefined
  const given = needs === 'ban' ? allowed.ban && allowed.quota : allowed[needs]
  return given ? undefined : REASONS[needs]
}

function describeSeen(seen: Seen, kind: Check['kind']): string {
  if ('skipped' in seen) return `skipped: ${seen.skipped}`
  if ('broken' in seen) return `could not check: ${seen.broken}`
  const { summary, pass } = seen.observation
  return kind === 'spec' && pass === false ? `${summary} (not as the spec says)` : summary
}

async function findOption(check: Check, target: Observation, engine: Engine): Promise<OptionPatch | undefined> {
  for (const patch of check.candidates?.(target) ?? []) {
    const seen = await observe(check, engine.freshMock(patch), engine.context)
    if ('observation' in seen && seen.observation.summary === target.summary) return patch
  }
  return undefined
}

/** The check's line of the report, and the option that makes the mock match when a decision differs. */
export async function runCheck(check: Check, engine: Engine): Promise<{ result: CheckResult; patch?: OptionPatch }> {
  const mock = await observe(check, engine.mock, engine.context)
  const base = { id: check.id, kind: check.kind, title: check.title, spec: check.spec, expected: describeSeen(mock, check.kind) }
  const skip = (reason: string) => ({ result: { ...base, actual: `skipped: ${reason}`, ok: null, option: null, skipped: reason } })
  const refused = notAllowed(check.needs, engine.allowed)
  if (refused !== undefined) return skip(refused)
  const left = engine.target.left()
  if (check.cost > left) return skip(`needs up to ${check.cost} requests, ${left} left in the budget (--max-requests)`)
  const target = await observe(check, engine.target, engine.context)
  if ('skipped' in target) return skip(target.skipped)
  const actual = describeSeen(target, check.kind)
  if (!('observation' in target)) return { result: { ...base, actual, ok: false, option: null } }
  if (check.kind === 'spec') return { result: { ...base, actual, ok: target.observation.pass === true, option: null } }
  if (!('observation' in mock)) {
    const reason = `the mock could not run it (${base.expected})`
    return { result: { ...base, actual, ok: null, option: null, skipped: reason } }
  }
  if (mock.observation.summary === target.observation.summary) return { result: { ...base, actual, ok: true, option: null } }
  const patch = await findOption(check, target.observation, engine)
  if (!patch) return { result: { ...base, actual, ok: false, option: null } }
  return { result: { ...base, actual, ok: false, option: patch.label }, patch }
}
