/**
 * The Keys table (each key's plan, what it has left this minute and day, when each resets, its ban)
 * and the Scenario select (the catalogue with descriptions, chaos scenarios marked).
 */
import { field, h, messageOf, replace, shortMoment, tableOf } from './dom.js'
import type { KeyRow, PanelSource, ScenarioRow } from './types.js'

/**
 * @example
 * const keys = keysView(); keys.show(await source.keys())
 */
export function keysView() {
  const body = h('tbody')
  // A world may have no keys (`keys: []`, the `unauthorized` scenario): then every API request answers 401.
  const empty = h(
    'p',
    { class: 'empty', hidden: true },
    'No API keys: every request answers 401. Switch scenario, or give the mock keys with its keys option (README, "Default API keys").',
  )
  const columns = ['Key', 'Plan', 'Minute left', 'Minute resets', 'Day left', 'Day resets', 'Banned until']
  const element = h('section', { class: 'keys' }, h('h2', { id: 'keys-heading' }, 'Keys'), tableOf('Keys', columns, body), empty)
  return {
    element,
    show(keys: readonly KeyRow[]) {
      empty.hidden = keys.length > 0
      replace(
        body,
        ...keys.map((key) =>
          h(
            'tr',
            {},
            h('th', { scope: 'row' }, key.key),
            h('td', {}, key.plan),
            h('td', { class: 'num' }, `${key.minuteRemaining} / ${key.perMinute}`),
            h('td', { title: key.minuteResetsAt }, key.minuteResetsAt.slice(11, 19)),
            h('td', { class: 'num' }, `${key.dayRemaining} / ${key.perDay}`),
            h('td', { title: key.dayResetsAt }, shortMoment(key.dayResetsAt)),
            key.bannedUntil === null
              ? h('td', { class: 'muted' }, 'not banned')
              : h('td', { class: 'banned', title: key.bannedUntil }, shortMoment(key.bannedUntil)),
          ),
        ),
      )
    },
  }
}

function optionOf(scenario: ScenarioRow): HTMLOptionElement {
  const text = [scenario.name, scenario.description ? ` — ${scenario.description}` : '', scenario.chaos ? ' (chaos)' : '']
  if (scenario.invalid) text.push(' (invalid file)')
  return h('option', { value: scenario.name, selected: scenario.current, disabled: scenario.invalid !== undefined }, text.join(''))
}

/**
 * @example
 * const scenario = scenarioView(source, notify); await scenario.load()
 */
export function scenarioView(source: PanelSource, notify: (message: string, error?: boolean) => void) {
  const select = h('select')
  const description = h('p', { class: 'muted', 'aria-live': 'polite' })
  let scenarios: readonly ScenarioRow[] = []
  const describe = () => {
    const chosen = scenarios.find((scenario) => scenario.name === select.value)
    replace(
      description,
      chosen?.chaos ? h('span', { class: 'chaos' }, 'Chaos: injects faults. ') : null,
      chosen?.description ?? chosen?.invalid ?? '',
    )
  }
  select.addEventListener('change', async () => {
    const name = select.value
    select.disabled = true
    try {
      await source.useScenario(name)
      notify(`Scenario "${name}" is on: its data, keys, counters and clock start from scratch.`)
    } catch (error) {
      notify(`Could not switch to "${name}": ${messageOf(error)}`, true)
    } finally {
      select.disabled = false
      await load().catch(() => undefined)
    }
  })
  const load = async () => {
    scenarios = await source.scenarios()
    replace(select, ...scenarios.map(optionOf))
    describe()
  }
  const element = h(
    'section',
    { class: 'scenario' },
    h('h2', { id: 'scenario-heading' }, 'Scenario'),
    field('Scenario', select, 'scenario-select'),
    description,
  )
  return { element, load }
}
