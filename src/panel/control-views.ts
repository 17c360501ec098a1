/**
 * The Clock (the session clock's time, advance buttons, set a moment, real time) and State (reset,
 * export and import of the state, the journal as HAR) sections.
 */
import { button, download, field, h, messageOf } from './dom.js'
import type { ClockRow, PanelSource } from './types.js'

type Notify = (message: string, error?: boolean) => void

/**
 * The spec's sunset of `GET /pets/{petId}` (src/spec.ts SUNSET; the panel imports nothing outside src/panel), the
 * moment QA most often moves the clock to. test/browser/panel-server.test.ts checks the two agree.
 */
const SUNSET = '2030-12-05T00:00:00Z'

export interface ClockView {
  readonly element: HTMLElement
  show(clock: ClockRow): void
  /** Stops the ticking display. */
  stop(): void
}

/** Runs an action, reporting its outcome in the status line. */
async function act(notify: Notify, done: string, failed: string, action: () => Promise<void>): Promise<void> {
  try {
    await action()
    notify(done)
  } catch (error) {
    notify(`${failed}: ${messageOf(error)}`, true)
  }
}

/**
 * @example
 * const clock = clockView(source, notify); clock.show(await source.clock())
 */
export function clockView(source: PanelSource, notify: Notify): ClockView {
  const time = h('output', { class: 'clock', id: 'clock-time', 'aria-labelledby': 'clock-heading' })
  const mode = h('span', { class: 'muted' })
  let shown: { clock: ClockRow; at: number } | undefined
  const show = (clock: ClockRow) => {
    shown = { clock, at: Date.now() }
    time.value = clock.now
    mode.textContent = modeText(clock)
  }
  /** Moves the clock, then shows it read again: the display follows at once, without waiting for the event stream. */
  const move = (label: string, change: () => Promise<unknown>, done: string) =>
    act(notify, done, `Could not ${label}`, async () => {
      await change()
      show(await source.clock())
    })
  // A running clock moves on between events: the display follows it each second.
  const tick = setInterval(() => {
    if (!shown || shown.clock.frozen) return
    // At --clock-speed N the store's clock moves N ms each real ms (`speed` is missing from servers before it existed).
    time.value = new Date(Date.parse(shown.clock.now) + (Date.now() - shown.at) * (shown.clock.speed ?? 1)).toISOString()
  }, 1000)
  const moment = h('input', { type: 'text', placeholder: SUNSET, size: 24, spellcheck: 'false' })
  const advance = (label: string, seconds: number) =>
    button(label, () => move('advance the clock', () => source.advanceClock(seconds), `Clock advanced: ${label.slice(8)}.`))
  const setClock = (event: Event) => {
    event.preventDefault()
    const value = moment.value.trim()
    if (value === '') return notify(`Type a moment first, e.g. ${SUNSET} (the Sunset button sets the clock to it).`, true)
    void move('set the clock', () => source.setClock(value), `Clock set to ${value} (frozen).`)
  }
  const sunset = () => {
    moment.value = SUNSET
    void move('set the clock', () => source.setClock(SUNSET), `Clock set to the sunset, ${SUNSET} (frozen): getPet now answers 410.`)
  }
  const element = h(
    'section',
    { class: 'clock-section' },
    h('h2', { id: 'clock-heading' }, 'Clock'),
    h('p', {}, time, ' ', mode),
    h('div', { class: 'buttons' }, advance('Advance 1 minute', 60), advance('Advance 1 hour', 3_600), advance('Advance 1 day', 86_400)),
    h(
      'form',
      { class: 'buttons', onsubmit: setClock },
      field('Moment (ISO 8601)', moment, 'clock-moment'),
      h('button', { type: 'submit' }, 'Set clock'),
      button('Sunset', sunset, { title: `Set the clock to the sunset of getPet, ${SUNSET}` }),
    ),
    h(
      'div',
      { class: 'buttons' },
      button('Real time', () => move('go back to real time', () => source.realTime(), 'Clock back on real time.')),
    ),
  )
  return { element, show, stop: () => clearInterval(tick) }
}

/** How the clock runs, beside its time. */
function modeText(clock: ClockRow): string {
  if (clock.frozen) return '(frozen)'
  const pace = (clock.speed ?? 1) === 1 ? '' : `, ${clock.speed}× real time`
  return clock.offsetMs === 0 && pace === '' ? '(real time)' : `(running${pace}, ${Math.round(clock.offsetMs / 1000)} s from real time)`
}

/**
 * @example
 * const state = stateView(source, notify)
 */
export function stateView(source: PanelSource, notify: Notify): HTMLElement {
  const file = h('input', { type: 'file', accept: 'application/json,.json' })
  file.addEventListener('change', async () => {
    const chosen = file.files?.[0]
    if (!chosen) return
    await act(notify, `State imported from ${chosen.name}.`, 'Could not import the state', async () =>
      source.importState(await chosen.text()),
    )
    file.value = ''
  })
  const stamp = () => new Date().toISOString().replace(/[:.]/g, '-')
  const acting = (label: string, done: string, failed: string, action: () => Promise<void>) =>
    button(label, () => act(notify, done, failed, action))
  return h(
    'section',
    { class: 'state' },
    h('h2', { id: 'state-heading' }, 'State'),
    h(
      'div',
      { class: 'buttons' },
      acting('Reset', 'Session reset to its seed: pets, ids, counters, bans and journal.', 'Could not reset', () => source.reset()),
      acting('Export state', 'State exported.', 'Could not export the state', async () =>
        download(`petstore-mock-${source.session}-${stamp()}.json`, (await source.exportState()) ?? ''),
      ),
      acting('Export HAR', 'Journal exported as HAR.', 'Could not export the HAR', async () =>
        download(`petstore-mock-${source.session}-${stamp()}.har`, await source.har()),
      ),
    ),
    h('div', { class: 'buttons' }, field('Import state', file, 'state-file')),
  )
}
