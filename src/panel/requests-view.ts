/**
 * The Requests table: the session's newest requests, newest first, live; filters by status, path and reason;
 * a click (or Enter) on a row shows its headers and bodies.
 */
import { type Child, field, h, replace, tableOf, timeOfDay } from './dom.js'
import { detailsPane } from './request-details.js'
import type { PanelSource, RequestRow } from './types.js'

/** The table keeps at most this many rows (older ones are in the journal and the HAR). */
const MAX_ROWS = 200

export interface RequestsView {
  readonly element: HTMLElement
  load(): Promise<void>
  add(row: RequestRow): void
  /** The API key the empty table's hint sends its example request with (the session's first). */
  hintKey(key: string | undefined): void
  /** The journal was cleared (`why`, e.g. "the session was reset"): the open entry is gone. */
  forget(why: string): void
  /** The journal may have lost entries (`why`): reads the open entry again, and says so when it is gone. */
  recheck(why: string): Promise<void>
}

/** `4xx` or `429`: does the row's status match what was typed? */
function statusMatches(filter: string, status: number): boolean {
  const text = filter.trim().toLowerCase()
  if (text === '') return true
  if (/^\dxx$/.test(text)) return String(status)[0] === text[0]
  return String(status).startsWith(text)
}

/**
 * A path and query as text with a line-break opportunity after each `/`, `?` and `&` (`<wbr>`): a narrow Path column
 * wraps between segments, never inside a name or a value (styles.ts keeps words whole).
 */
function breakable(target: string): Child[] {
  return target.split(/(?<=[/?&])/).flatMap((segment, index) => (index === 0 ? [segment] : [h('wbr'), segment]))
}

function rowElement(row: RequestRow, select: (row: RequestRow, tr: HTMLTableRowElement) => void): HTMLTableRowElement {
  const tr = h(
    'tr',
    { class: 'row', tabindex: -1, 'aria-selected': 'false', 'data-seq': row.seq, title: `#${row.seq} at ${row.time}` },
    h('td', {}, timeOfDay(row.time)),
    h('td', {}, row.method),
    h('td', { class: 'path' }, ...breakable(row.query === '' ? row.path : `${row.path}?${row.query}`)),
    h('td', { class: `num s${String(row.status)[0]}` }, row.status, row.code ? h('span', { class: 'muted' }, ` ${row.code}`) : null),
    h('td', {}, row.plan ?? h('span', { class: 'muted' }, 'no key')),
    h('td', { class: 'num' }, `${row.durationMs.toFixed(1)} ms`),
    h('td', {}, row.scenario ?? '', row.fault ? h('span', { class: 'chaos' }, ` ${row.fault}`) : null),
    // The rule that decided the answer (docs/explain.md); a server older than reasons sends none.
    h('td', { class: 'reason' }, row.rule ?? ''),
  )
  tr.addEventListener('click', () => select(row, tr))
  tr.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault()
      select(row, tr)
    } else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      // One Tab stop for the whole table; the arrows move between rows.
      const next = (event.key === 'ArrowDown' ? tr.nextElementSibling : tr.previousElementSibling) as HTMLElement | null
      if (!next) return
      event.preventDefault()
      tr.tabIndex = -1
      next.tabIndex = 0
      next.focus()
    }
  })
  return tr
}

/** Keeps exactly one row a Tab stop (the focused one, else the first), and marks the selected one. */
function tidyRows(body: HTMLTableSectionElement, selected: number | undefined): void {
  const rows = [...body.rows]
  const focused = rows.find((tr) => tr.tabIndex === 0) ?? rows[0]
  for (const tr of rows) {
    tr.tabIndex = tr === focused ? 0 : -1
    tr.setAttribute('aria-selected', String(tr.dataset['seq'] === String(selected)))
  }
}

/** The section: its heading with the count, the two filters, the table, and what shows below it. */
function requestsSection(
  count: HTMLElement,
  [status, path, reason, rules]: [HTMLInputElement, HTMLInputElement, HTMLInputElement, HTMLElement],
  body: HTMLTableSectionElement,
  below: HTMLElement[],
) {
  return h(
    'section',
    { class: 'requests' },
    h('h2', { id: 'requests-heading' }, 'Requests ', count),
    h(
      'div',
      { class: 'filters' },
      field('Status filter', status, 'status-filter'),
      field('Path filter', path, 'path-filter'),
      field('Reason filter', reason, 'reason-filter'),
      rules,
    ),
    tableOf('Requests', ['Time', 'Method', 'Path', 'Status', 'Plan', 'Duration', 'Scenario', 'Reason'], body),
    ...below,
  )
}

/** The Status, Path and Reason filters, and the rules of the rows offered to the Reason one as it is typed. */
function requestFilters() {
  const status = h('input', { type: 'text', inputmode: 'numeric', size: 6, placeholder: '4xx' })
  const path = h('input', { type: 'search', size: 18, placeholder: '/v1/pets' })
  const reason = h('input', { type: 'search', size: 14, placeholder: 'rate.', list: 'reason-rules' })
  // The rules of the rows the table holds (docs/explain.md lists them all); a rule or a family (`rate.`) filters.
  const rules = h('datalist', { id: 'reason-rules' })
  return {
    elements: [status, path, reason, rules] as [HTMLInputElement, HTMLInputElement, HTMLInputElement, HTMLElement],
    visible: (row: RequestRow) =>
      statusMatches(status.value, row.status) && row.path.includes(path.value.trim()) && (row.rule ?? '').startsWith(reason.value.trim()),
    offer(rows: readonly RequestRow[]) {
      const named = [...new Set(rows.map((row) => row.rule))].sort()
      if (named.join() !== [...rules.children].map((option) => (option as HTMLOptionElement).value).join())
        replace(rules, ...named.map((rule) => h('option', { value: rule })))
    },
    onInput(render: () => void) {
      for (const input of [status, path, reason]) input.addEventListener('input', render)
    },
  }
}

/**
 * @example
 * const view = requestsView(source, (message) => console.log(message))
 * await view.load()
 */
export function requestsView(source: PanelSource, notify: (message: string, error?: boolean) => void): RequestsView {
  let rows: RequestRow[] = []
  const filters = requestFilters()
  const body = h('tbody')
  const pane = detailsPane(source, notify, (selected) => tidyRows(body, selected))
  const { select } = pane
  const count = h('span', { class: 'muted' })
  const empty = h('p', { class: 'empty', hidden: true })
  let key: string | undefined
  // Loads overlap (first connection, scenario switch, reset): only the newest shows, with the rows the event stream
  // brought while it was on its way, which may be newer than the list it read.
  let loadsStarted = 0
  let loadShown = 0
  const arriving = new Set<RequestRow[]>()

  /** What to do when the table shows nothing: send a first request, or loosen the filters. */
  const hint = () => {
    empty.hidden = body.rows.length > 0
    if (!empty.hidden) {
      if (rows.length === 0) replace(empty, 'No requests yet: send one, e.g. ', h('code', {}, source.firstRequest(key)))
      else replace(empty, `No request matches the filters (${rows.length} hidden): clear the Status, Path or Reason filter.`)
    }
  }
  const render = () => {
    const shown = rows.filter(filters.visible)
    replace(body, ...shown.map((row) => rowElement(row, select)))
    tidyRows(body, pane.selected)
    count.textContent = `${shown.length} shown of ${rows.length}`
    filters.offer(rows)
    hint()
  }
  filters.onInput(render)

  return {
    element: requestsSection(count, filters.elements, body, [empty, pane.element]),
    async load() {
      const load = ++loadsStarted
      const arrived: RequestRow[] = []
      arriving.add(arrived)
      let loaded: RequestRow[]
      try {
        // The journal answers newest last; the table shows newest first.
        loaded = [...(await source.journal({ limit: MAX_ROWS }))].reverse()
      } finally {
        arriving.delete(arrived)
      }
      if (load < loadShown) return
      loadShown = load
      const newest = loaded[0]?.seq ?? 0
      rows = [...arrived.filter((row) => row.seq > newest).reverse(), ...loaded].slice(0, MAX_ROWS)
      render()
    },
    add(row) {
      // Before the check below: after a reset, numbers start again and the rows still shown are the old ones.
      for (const arrived of arriving) arrived.push(row)
      if (rows.some((known) => known.seq === row.seq)) return
      rows.unshift(row)
      if (rows.length > MAX_ROWS) rows.length = MAX_ROWS
      filters.offer(rows)
      if (filters.visible(row)) {
        body.prepend(rowElement(row, select))
        while (body.rows.length > MAX_ROWS) body.lastElementChild?.remove()
        tidyRows(body, pane.selected)
      }
      count.textContent = `${body.rows.length} shown of ${rows.length}`
      hint()
    },
    hintKey(next) {
      if (next === key) return
      key = next
      if (!empty.hidden) hint()
    },
    forget: pane.forget,
    recheck: pane.recheck,
  }
}
