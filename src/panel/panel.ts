/**
 * The control panel (README, "Control panel"; docs/spec-decisions.md row 54): Requests, Keys, Scenario, Clock and State
 * of one session, live. One component for both hosts: the server's page feeds it from the admin API and the event
 * stream, the browser host from the world in the page (`PanelSource`). It renders into a shadow root of its own.
 */
import { clockView, stateView } from './control-views.js'
import { field, h, messageOf } from './dom.js'
import { type RequestsView, requestsView } from './requests-view.js'
import { keysView, scenarioView } from './side-views.js'
import { PANEL_CSS } from './styles.js'
import { timelineView } from './timeline-view.js'
import type { ClockRow, KeyRow, PanelEvent, PanelSource } from './types.js'

export interface MountedPanel {
  /** Reads everything again. */
  refresh(): Promise<void>
  /** Stops listening and removes the panel. */
  close(): void
}

export interface PanelOptions {
  /** Called when the user picks another session in the session picker (the server's page reloads with `?session=`). */
  onSession?: (name: string) => void
  /** Extra elements for the header (the in-page panel's Close button). */
  headerExtras?: readonly HTMLElement[]
}

/** The session picker: the live sessions, the shown one selected. */
function sessionPicker(source: PanelSource, onSession: (name: string) => void): { element: HTMLElement; load(): Promise<void> } {
  const select = h('select')
  const load = async () => {
    const names = (await source.sessions?.()) ?? [source.session]
    if (!names.includes(source.session)) names.push(source.session)
    select.replaceChildren(...names.map((name) => h('option', { value: name, selected: name === source.session }, name)))
  }
  select.addEventListener('change', () => onSession(select.value))
  // Sessions come and go: the list is read again whenever the picker is about to open.
  select.addEventListener('focus', () => void load().catch(() => undefined))
  return { element: field('Session', select, 'session-select'), load }
}

/** The bar on top: the name, where the data comes from, the session (a picker for the server's), the connection. */
function header(source: PanelSource, picker: HTMLElement, connection: HTMLElement, extras: readonly HTMLElement[] = []): HTMLElement {
  return h(
    'header',
    { class: 'bar' },
    h('h1', {}, 'petstore-mock'),
    h('span', { class: 'source' }, source.label),
    source.sessions ? picker : h('span', { class: 'muted' }, `session ${source.session}`),
    connection,
    ...extras,
  )
}

/**
 * A reset, a scenario switch and a cleared journal start the journal afresh (the world's `reset`, `useScenario`): the open
 * entry is not in it. An import keeps the journal (a state holds no journal): the entry stays while the journal holds it.
 */
function journalChanged(
  requests: Pick<RequestsView, 'forget' | 'recheck'>,
  event: PanelEvent & { type: 'scenario' | 'reset' | 'state' | 'cleared' },
): void {
  if (event.type === 'reset') requests.forget('the session was reset')
  else if (event.type === 'cleared') requests.forget('the journal was cleared')
  else if (event.type === 'scenario') requests.forget(`the scenario "${event.data.scenario}" started`)
  else void requests.recheck('a state was imported')
}

/**
 * @example
 * const root = document.querySelector('#panel').attachShadow({ mode: 'open' })
 * mountPanel(root, createHttpSource({ session: 'default' }))
 */
export function mountPanel(root: ShadowRoot, source: PanelSource, options: PanelOptions = {}): MountedPanel {
  const statusLine = h('p', { class: 'status-line', role: 'status', 'aria-live': 'polite' })
  const notify = (message: string, error = false) => {
    statusLine.textContent = message
    statusLine.classList.toggle('error', error)
  }
  const requests = requestsView(source, notify)
  const keys = keysView()
  const scenario = scenarioView(source, notify)
  const clock = clockView(source, notify)
  const timeline = timelineView(source, notify)
  const sessions = sessionPicker(source, options.onSession ?? (() => undefined))
  const connection = h('span', { class: 'connection live' }, 'live')
  const container = h(
    'div',
    { class: 'panel' },
    header(source, sessions.element, connection, options.headerExtras),
    statusLine,
    h('div', { class: 'main' }, timeline.element, requests.element, keys.element),
    h('div', { class: 'side' }, scenario.element, clock.element, stateView(source, notify)),
  )
  root.replaceChildren(h('style', {}, PANEL_CSS), container)

  const showKeys = (rows: readonly KeyRow[]) => {
    keys.show(rows)
    requests.hintKey(rows[0]?.key)
  }
  // The strip moves its now marker along a running clock between reads.
  const showClock = (row: ClockRow) => {
    clock.show(row)
    timeline.clock(row)
  }
  const refresh = async () => {
    try {
      const views = [requests, scenario, sessions, timeline]
      await Promise.all([...views.map((view) => view.load()), source.keys().then(showKeys), source.clock().then(showClock)])
    } catch (error) {
      notify(`Could not read the session: ${messageOf(error)}`, true)
    }
  }
  let reading: ReturnType<typeof setTimeout> | undefined
  const onEvent = (event: PanelEvent) => {
    // The strip counts each stage's requests and marks the stage now: read again while a timeline shows.
    if (event.type === 'request' || event.type === 'clock' || event.type === 'stage') timeline.changed()
    if (event.type === 'request') requests.add(event.data)
    else if (event.type === 'stage') return
    else if (event.type === 'gap') {
      // Requests came faster than the stream sends them: read the table again, at most once a second.
      reading ??= setTimeout(() => {
        reading = undefined
        void requests.load().catch(() => undefined)
        timeline.changed()
      }, 1_000)
    } else if (event.type === 'quota') showKeys(event.data)
    else if (event.type === 'clock') showClock(event.data)
    else if (event.type === 'connection') {
      connection.textContent = event.data.connected ? 'live' : 'reconnecting…'
      connection.className = `connection ${event.data.connected ? 'live' : 'lost'}`
      if (event.data.connected) void refresh()
      else if (event.data.message) notify(event.data.message, true)
    } else {
      journalChanged(requests, event)
      void refresh()
    }
  }
  const unsubscribe = source.subscribe(onEvent)
  void refresh()
  return {
    refresh,
    close() {
      unsubscribe()
      clearTimeout(reading)
      clock.stop()
      timeline.stop()
      root.replaceChildren()
    },
  }
}
