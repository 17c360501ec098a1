/**
 * The control panel's one contract with its two data sources: the server's admin API and event stream
 * (`http-source.ts`), or the world in the page itself (`world-source.ts`). The panel (`panel.ts`) knows only this
 * interface. Types only: nothing here exists at run time.
 */
import type { MockAdmin } from '../admin/operations.js'
import type { KeyStatus } from '../core/key-status.js'
import type { JournalSummary } from '../journal/entry.js'
import type { JournalEntryView } from '../journal/view.js'
import type { ScenarioListing } from '../scenarios/catalogue.js'
import type { ClockView } from '../world/events.js'
import type { TimelineView } from '../world/timeline.js'
import type { PanelOperation } from './operations.js'

/** A journal entry as the Requests table shows it: the event stream's `request` data. */
export type RequestRow = JournalSummary

/** One entry whole, as the admin API writes it (a body holding control characters as base64): what a click on a row shows. */
export type RequestDetail = JournalEntryView

/** One key's quota (`GET /__mock/keys`). */
export type KeyRow = KeyStatus

/** One scenario of the catalogue (`GET /__mock/scenarios`). */
export type ScenarioRow = ScenarioListing

/** The clock (`GET /__mock/clock`). */
export type ClockRow = ClockView

/** The scenario's timeline (`GET /__mock/timeline`, `world.timeline()`): its stages, the one now, the verdict. */
export type TimelineRow = TimelineView

export type PanelEvent =
  | { readonly type: 'request'; readonly data: RequestRow }
  | { readonly type: 'quota'; readonly data: readonly KeyRow[] }
  | { readonly type: 'clock'; readonly data: ClockRow }
  | { readonly type: 'scenario' | 'reset' | 'state' | 'cleared'; readonly data: { readonly scenario: string } }
  /** A stage of the scenario's timeline started (docs/scenarios.md, "Timelines"). */
  | { readonly type: 'stage'; readonly data: { readonly scenario: string; readonly stage: string } }
  /** Under load the server left out the requests between `after` and `before` (exclusive): the table reads them. */
  | { readonly type: 'gap'; readonly data: { readonly after: number; readonly before: number } }
  /** The source lost its connection (`connected: false`) or has it again (then the panel reloads everything). */
  | { readonly type: 'connection'; readonly data: { readonly connected: boolean; readonly message?: string } }

/**
 * The panel's data: the admin operations it offers (`surfaces: ['panel']` in src/admin/operations.ts), over the server's
 * admin API or the world in the page, each acting on the panel's session; and what only a panel needs.
 */
export interface PanelSource extends Pick<MockAdmin, PanelOperation> {
  /** Where the data comes from, shown in the panel's header: `http://127.0.0.1:4010` or `this page`. */
  readonly label: string
  /** The session the panel shows. */
  readonly session: string
  /** The live sessions (the server's); absent when there is only one (the page). */
  sessions?(): Promise<string[]>
  /**
   * A first API request to send, shown while the Requests table is empty: a curl command for the server, a `fetch` call
   * for the page. `key` is the session's first API key, when it has one.
   */
  firstRequest(key: string | undefined): string
  /** Calls `listener` with every event; returns the function that stops it. */
  subscribe(listener: (event: PanelEvent) => void): () => void
}
