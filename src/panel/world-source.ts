/**
 * The panel's data from the world in the page (the browser host): no server, no request of its own, every call an
 * admin operation on the world (src/admin/world-admin.ts). Each change tells `actions`, so the worker's persistence
 * saves it.
 */

import { createWorldAdmin } from '../admin/world-admin.js'
import type { World } from '../world/create-world.js'
import { panelOperations } from './operations.js'
import type { PanelEvent, PanelSource } from './types.js'

export interface WorldActions {
  /** After any change of the world (the worker saves a persisted world). */
  changed(): void
}

const SESSION = 'in page'

/**
 * @example
 * const source = createWorldSource(petStore, { changed: save })
 */
export function createWorldSource(world: World, actions: WorldActions): PanelSource {
  const admin = createWorldAdmin({
    world: () => world,
    onChange() {
      actions.changed()
      return true
    },
    openapi: () => undefined,
    sessions: () => [SESSION],
    health: () => ({ status: 'ok', basePath: world.basePath }),
    har: () => ({ origin: location.origin, version: 'in-page' }),
  })
  return {
    label: 'this page',
    session: SESSION,
    firstRequest(key) {
      // `*/v1` (any origin) becomes `/v1`; a base URL with an origin stays whole.
      const base = world.urlPattern.startsWith('*') ? world.urlPattern.slice(1) : world.urlPattern
      return `fetch('${base}/pets'${key ? `, { headers: { Authorization: 'Bearer ${key}' } }` : ''})`
    },
    ...panelOperations(admin),
    subscribe: (listener) =>
      world.events.subscribe((event) => listener((event.type === 'request' ? { type: 'request', data: event.data } : event) as PanelEvent)),
  }
}
