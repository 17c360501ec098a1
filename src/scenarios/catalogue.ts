/**
 * The scenarios that ship with petstore-mock (scenarios/*.json), and how a name or a file becomes a
 * checked `Scenario`, with errors that name the file, the field and the fix.
 */
import afterSunset from '../../scenarios/after-sunset.json' with { type: 'json' }
import dailyQuotaExhausted from '../../scenarios/daily-quota-exhausted.json' with { type: 'json' }
import defaultScenario from '../../scenarios/default.json' with { type: 'json' }
import emptyStore from '../../scenarios/empty-store.json' with { type: 'json' }
import flaky from '../../scenarios/flaky.json' with { type: 'json' }
import keyBanned from '../../scenarios/key-banned.json' with { type: 'json' }
import largeStore from '../../scenarios/large-store.json' with { type: 'json' }
import outage from '../../scenarios/outage.json' with { type: 'json' }
import outageIncident from '../../scenarios/outage-incident.json' with { type: 'json' }
import quotaExhaustion from '../../scenarios/quota-exhaustion.json' with { type: 'json' }
import rateLimited from '../../scenarios/rate-limited.json' with { type: 'json' }
import slowDay from '../../scenarios/slow-day.json' with { type: 'json' }
import slowNetwork from '../../scenarios/slow-network.json' with { type: 'json' }
import slowTail from '../../scenarios/slow-tail.json' with { type: 'json' }
import soldOut from '../../scenarios/sold-out.json' with { type: 'json' }
import unauthorized from '../../scenarios/unauthorized.json' with { type: 'json' }
import { plainMessage } from '../core/errors.js'
import { issuesText } from '../core/issues.js'
import { likelyMeant } from '../core/spelling.js'
import { type Scenario, ScenarioSchema } from './schema.js'

/** The shipped scenario files, by name, unchecked (checked on use). */
export const BUILT_IN_SCENARIOS: Readonly<Record<string, unknown>> = {
  default: defaultScenario,
  'empty-store': emptyStore,
  'large-store': largeStore,
  'sold-out': soldOut,
  'rate-limited': rateLimited,
  'daily-quota-exhausted': dailyQuotaExhausted,
  'key-banned': keyBanned,
  'after-sunset': afterSunset,
  'slow-network': slowNetwork,
  'slow-day': slowDay,
  'slow-tail': slowTail,
  flaky,
  outage,
  'outage-incident': outageIncident,
  'quota-exhaustion': quotaExhaustion,
  unauthorized,
}

/** Checks a scenario's content; `source` names it in errors (a file path, or "scenario option"). */
export function parseScenario(value: unknown, source: string): Scenario {
  const result = ScenarioSchema.safeParse(value)
  if (result.success) return result.data
  throw new TypeError(
    `[petstore-mock] Invalid scenario ${source}: ${issuesText(result.error)}. The format is in docs/scenarios.md; scenarios/scenario.schema.json lets an editor check it.`,
  )
}

/** The message for a name no scenario has. */
export function unknownScenarioMessage(name: string, known: readonly string[]): string {
  const suggestion = likelyMeant(name, known)
  return `Unknown scenario ${JSON.stringify(name)}. Known scenarios: ${[...known].sort().join(', ')}.${suggestion ? ` Did you mean ${JSON.stringify(suggestion)}?` : ''}`
}

/** A catalogue: the shipped scenarios plus the user's, which add to or override them by name. */
export interface ScenarioCatalogue {
  names(): string[]
  /** The names the user's scenarios define (theirs, or a shipped one they override): the ones a start must check. */
  ownNames(): string[]
  /** The checked scenario, or throws a TypeError naming the known ones. */
  get(name: string): Scenario
  has(name: string): boolean
}

export function createScenarioCatalogue(extra: readonly (Scenario | { scenario: unknown; source: string })[] = []): ScenarioCatalogue {
  const raw = new Map<string, { value: unknown; source: string }>()
  const own = new Set<string>()
  for (const [name, value] of Object.entries(BUILT_IN_SCENARIOS)) raw.set(name, { value, source: `scenarios/${name}.json` })
  for (const item of extra) {
    const entry =
      'source' in item && 'scenario' in item
        ? { value: item.scenario, source: item.source }
        : { value: item, source: 'from the scenarios option' }
    const name = (entry.value as { name?: unknown })?.name
    if (typeof name !== 'string') parseScenario(entry.value, entry.source)
    raw.set(name as string, entry)
    own.add(name as string)
  }
  const checked = new Map<string, Scenario>()
  return {
    names: () => [...raw.keys()],
    ownNames: () => [...own],
    has: (name) => raw.has(name),
    get(name) {
      const cached = checked.get(name)
      if (cached) return cached
      const entry = raw.get(name)
      if (!entry) throw new TypeError(`[petstore-mock] ${unknownScenarioMessage(name, [...raw.keys()])}`)
      const scenario = parseScenario(entry.value, entry.source)
      checked.set(name, scenario)
      return scenario
    },
  }
}

/** One scenario as `GET /__mock/scenarios` and the control panel list it. */
export interface ScenarioListing {
  readonly name: string
  readonly description?: string | undefined
  /** Whether it injects faults (one of its fault rules is marked `chaos`). */
  readonly chaos?: boolean | undefined
  readonly current: boolean
  /** Why the scenario's file cannot be used, when it cannot. */
  readonly invalid?: string | undefined
}

/**
 * @example
 * listScenarios(world.scenarios, world.scenario) // [{ name: 'default', description: '…', chaos: false, current: true }, …]
 */
export function listScenarios(catalogue: ScenarioCatalogue, current: string): ScenarioListing[] {
  return catalogue.names().map((name) => {
    try {
      const scenario = catalogue.get(name)
      const chaos = (scenario.faults ?? []).some((rule) => rule.chaos === true)
      return { name, description: scenario.description, chaos, current: name === current }
    } catch (error) {
      return { name, invalid: plainMessage(error), current: false }
    }
  })
}
