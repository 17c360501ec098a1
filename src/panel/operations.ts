/**
 * The admin operations the panel offers (`surfaces: ['panel']` in src/admin/operations.ts, checked by
 * test/admin/operations.test.ts), taken from either implementation of the admin interface as they are: each acts on
 * the implementation's own session, the panel's.
 */
import type { MockAdmin } from '../admin/operations.js'

export const PANEL_OPERATIONS = [
  'keys',
  'scenarios',
  'useScenario',
  'timeline',
  'reset',
  'clock',
  'setClock',
  'advanceClock',
  'realTime',
  'journal',
  'request',
  'har',
  'exportState',
  'importState',
] as const

export type PanelOperation = (typeof PANEL_OPERATIONS)[number]

/** @example const source = { ...panelOperations(createHttpAdmin({ url, session })), label, session, … } */
export function panelOperations(admin: MockAdmin): Pick<MockAdmin, PanelOperation> {
  return Object.fromEntries(PANEL_OPERATIONS.map((name) => [name, admin[name]])) as unknown as Pick<MockAdmin, PanelOperation>
}
