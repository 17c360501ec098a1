/**
 * The panel's data from the world in the page (the browser host): no server, no request of its own,
 * every call straight on the world. Changes go through `actions` so the worker's persistence saves them.
 */

import { toHar } from '../journal/har.js'
import { listScenarios } from '../scenarios/catalogue.js'
import { stringifySnapshot } from '../snapshot.js'
import type { World } from '../world/create-world.js'
import { clockView } from '../world/events.js'
import type { PanelEvent, PanelSource } from './types.js'

export interface WorldActions {
  useScenario(name: string): Promise<void>
  reset(): Promise<void>
  /** After the clock moved or the state was imported (the worker saves a persisted world). */
  changed(): void
}

/**
 * @example
 * const source = createWorldSource(petStore, { useScenario: handle.useScenario, reset: handle.reset, changed: () => {} })
 */
export function createWorldSource(world: World, actions: WorldActions): PanelSource {
  const clockChanged = async (move: () => void) => {
    move()
    actions.changed()
  }
  return {
    label: 'this page',
    session: 'in page',
    firstRequest(key) {
      // `*/v1` (any origin) becomes `/v1`; a base URL with an origin stays whole.
      const base = world.urlPattern.startsWith('*') ? world.urlPattern.slice(1) : world.urlPattern
      return `fetch('${base}/pets'${key ? `, { headers: { Authorization: 'Bearer ${key}' } }` : ''})`
    },
    requests: async (limit) => world.journal.scanSummaries({ from: world.journal.lastSeq + 1, toward: 'older', count: limit }).entries,
    request: async (seq) => world.journal.get(seq),
    keys: async () => world.keyStatuses(),
    scenarios: async () => listScenarios(world.scenarios, world.scenario),
    clock: async () => clockView(world.clock),
    async timeline() {
      const view = world.timeline()
      return view && view.stages.length > 0 ? view : null
    },
    useScenario: (name) => actions.useScenario(name),
    advanceClock: (seconds) => clockChanged(() => world.clock.advance(seconds * 1000)),
    setClock: (moment) => clockChanged(() => world.clock.set(moment)),
    realTime: () => clockChanged(() => world.clock.useRealTime()),
    reset: () => actions.reset(),
    async exportState() {
      await world.ready()
      return stringifySnapshot(world.snapshot(), 2)
    },
    async importState(text) {
      await world.restore(text)
      actions.changed()
    },
    har: async () => JSON.stringify(toHar(world.journal.all(), { origin: location.origin, version: 'in-page' }), null, 2),
    subscribe: (listener) =>
      world.events.subscribe((event) => listener((event.type === 'request' ? { type: 'request', data: event.data } : event) as PanelEvent)),
  }
}
