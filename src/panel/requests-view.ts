/**
 * The Requests table: the session's newest requests, newest first, live; filters by status and path;
 * a click (or Enter) on a row shows its headers and bodies.
 */
import { field, h, replace, timeOfDay } from './dom.js'
import type { PanelSource, RequestDetail, RequestRow } from './types.js'

/** The table keeps at most this many rows (older ones are in the journal and the HAR). */
export const MAX_ROWS = 200

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

function rowElement(row: RequestRow, select: (row: RequestRow, tr: HTMLTableRowElement) => void): HTMLTableRowElement {
  const tr = h(
    'tr',
    { class: 'row', tabindex: -1, 'aria-selected': 'false', 'data-seq': row.seq, title: `#${row.seq} at ${row.time}` },
    h('td', {}, timeOfDay(row.time)),
    h('td', {}, row.method),
    h('td', { class: 'path' }, row.query === '' ? row.path : `${row.path}?${row.query}`),
    h('td', { class: `num s${String(row.status)[0]}` }, row.status, row.code ? h('span', { class: 'muted' }, ` ${row.code}`) : null),
    h('td', {}, row.plan ?? h('span', { class: 'muted' }, 'no key')),
    h('td', { class: 'num' }, `${row.durationMs.toFixed(1)} ms`),
    h('td', {}, row.scenario ?? '', row.fault ? h('span', { class: 'chaos' }, ` ${row.fault}`) : null),
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

/** The table of requests around its body. */
function requestsTable(body: HTMLTableSectionElement): HTMLElement {
  const columns = ['Time', 'Method', 'Path', 'Status', 'Plan', 'Duration', 'Scenario']
  return h(
    'div',
    { class: 'table-wrap' },
    h('table', { 'aria-label': 'Requests' }, h('thead', {}, h('tr', {}, ...columns.map((name) => h('th', { scope: 'col' }, name)))), body),
  )
}

function headerTable(name: string, headers: Readonly<Record<string, string>>): HTMLElement {
  const entries = Object.entries(headers)
  return h(
    'table',
    { 'aria-label': name },
    h(
      'tbody',
      {},
      ...entries.map(([key, value]) => h('tr', {}, h('th', { scope: 'row' }, key), h('td', { class: 'path' }, value))),
      entries.length === 0 ? h('tr', {}, h('td', { class: 'muted' }, '(none)')) : null,
    ),
  )
}

/**
 * JSON text indented for reading without parsing it, so every number stays as spelled (int64 ids exact).
 * Text that is not JSON comes out with its whitespace outside strings changed only.
 */
export function indentJson(text: string): string {
  let out = ''
  let depth = 0
  let inString = false
  const newline = () => `\n${'  '.repeat(depth)}`
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string
    if (inString) {
      out += char
      if (char === '\\') out += text[++i] ?? ''
      else if (char === '"') inString = false
    } else if (char === '"') {
      inString = true
      out += char
    } else if (char === '{' || char === '[') {
      depth += 1
      out += char + newline()
    } else if (char === '}' || char === ']') {
      depth = Math.max(0, depth - 1)
      out += newline() + char
    } else if (char === ',') out += char + newline()
    else if (char === ':') out += ': '
    else if (!/\s/.test(char)) out += char
  }
  return out.replace(/([[{])\n\s*([\]}])/g, '$1$2')
}

/** A body as sent: indented when whole JSON, a truncated prefix or other text as it is. */
function readable(text: string | undefined, truncated: boolean, type: string | undefined): string {
  if (text === undefined || text === '') return '(none)'
  return truncated || !/json/i.test(type ?? 'application/json') ? text : indentJson(text)
}

/** The details of one request: both sides' headers and bodies, truncated ones marked. */
export function detailsOf(detail: RequestDetail): HTMLElement[] {
  const truncated = (yes: boolean, size?: number) =>
    yes ? h('span', { class: 'tag' }, size === undefined ? 'truncated to 16 KiB' : `truncated: first 16 KiB of ${size} bytes`) : null
  // The server shows a body holding control characters as the base64 of its bytes (docs/spec-decisions.md row 61).
  const encoded = (encoding: string | undefined) => (encoding === 'base64' ? h('span', { class: 'tag' }, 'base64 of its bytes') : null)
  return [
    h('h3', {}, `#${detail.seq} ${detail.method} ${detail.path}${detail.query ? `?${detail.query}` : ''} → ${detail.status}`),
    h('h3', {}, 'Request headers'),
    headerTable('Request headers', detail.requestHeaders),
    h('h3', {}, 'Request body', truncated(detail.bodyTruncated, detail.bodySize), encoded(detail.bodyEncoding)),
    h(
      'pre',
      {},
      readable(detail.bodyText, detail.bodyTruncated || detail.bodyEncoding !== undefined, detail.requestHeaders['content-type']),
    ),
    h('h3', {}, 'Response headers'),
    headerTable('Response headers', detail.responseHeaders),
    h('h3', {}, 'Response body', truncated(detail.responseBodyTruncated), encoded(detail.responseBodyEncoding)),
    h(
      'pre',
      {},
      readable(
        detail.responseBody,
        detail.responseBodyTruncated || detail.responseBodyEncoding !== undefined,
        detail.responseHeaders['content-type'],
      ),
    ),
  ]
}

/**
 * @example
 * const view = requestsView(source, (message) => console.log(message))
 * await view.load()
 */
export function requestsView(source: PanelSource, notify: (message: string, error?: boolean) => void): RequestsView {
  let rows: RequestRow[] = []
  const status = h('input', { type: 'text', inputmode: 'numeric', size: 6, placeholder: '4xx' })
  const path = h('input', { type: 'search', size: 18, placeholder: '/v1/pets' })
  const body = h('tbody')
  const details = h('section', { class: 'details', 'aria-label': 'Request details', hidden: true })
  const count = h('span', { class: 'muted' })
  const empty = h('p', { class: 'empty', hidden: true })
  let key: string | undefined
  const visible = (row: RequestRow) => statusMatches(status.value, row.status) && row.path.includes(path.value.trim())
  // Loads overlap (first connection, scenario switch, reset): only the newest shows, with the rows the event stream
  // brought while it was on its way, which may be newer than the list it read.
  let loadsStarted = 0
  let loadShown = 0
  const arriving = new Set<RequestRow[]>()

  let selected: number | undefined
  // Each click, and each clearing of the journal, starts a new reading: an older one's answer, on its way meanwhile, is
  // dropped (it would show an entry of the journal before the reset, or another row than the one clicked last).
  let reading = 0
  const select = async (row: RequestRow, tr: HTMLTableRowElement) => {
    selected = row.seq
    tidyRows(body, selected)
    tr.tabIndex = 0
    const asked = ++reading
    try {
      const detail = await source.request(row.seq)
      if (asked !== reading) return
      details.hidden = false
      if (!detail) return replace(details, h('p', {}, `Entry #${row.seq} is no longer in the journal.`))
      replace(details, ...detailsOf(detail))
    } catch (error) {
      notify(`Could not read request #${row.seq}: ${(error as Error).message}`, true)
    }
  }
  /** What to do when the table shows nothing: send a first request, or loosen the filters. */
  const hint = () => {
    empty.hidden = body.rows.length > 0
    if (!empty.hidden) {
      if (rows.length === 0) replace(empty, 'No requests yet: send one, e.g. ', h('code', {}, source.firstRequest(key)))
      else replace(empty, `No request matches the filters (${rows.length} hidden): clear the Status or Path filter.`)
    }
  }
  const forget = (why: string) => {
    reading++
    if (selected === undefined) return
    if (!details.hidden) replace(details, h('p', {}, `Entry #${selected} is gone: ${why}. Click a row to see its details.`))
    selected = undefined
    tidyRows(body, selected)
  }
  const render = () => {
    const shown = rows.filter(visible)
    replace(body, ...shown.map((row) => rowElement(row, select)))
    tidyRows(body, selected)
    count.textContent = `${shown.length} shown of ${rows.length}`
    hint()
  }
  status.addEventListener('input', render)
  path.addEventListener('input', render)

  const element = h(
    'section',
    { class: 'requests' },
    h('h2', { id: 'requests-heading' }, 'Requests ', count),
    h('div', { class: 'filters' }, field('Status filter', status, 'status-filter'), field('Path filter', path, 'path-filter')),
    requestsTable(body),
    empty,
    details,
  )
  return {
    element,
    async load() {
      const load = ++loadsStarted
      const arrived: RequestRow[] = []
      arriving.add(arrived)
      let loaded: RequestRow[]
      try {
        loaded = await source.requests(MAX_ROWS)
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
      if (visible(row)) {
        body.prepend(rowElement(row, select))
        while (body.rows.length > MAX_ROWS) body.lastElementChild?.remove()
        tidyRows(body, selected)
      }
      count.textContent = `${body.rows.length} shown of ${rows.length}`
      hint()
    },
    hintKey(next) {
      if (next === key) return
      key = next
      if (!empty.hidden) hint()
    },
    forget,
    async recheck(why) {
      if (selected === undefined || details.hidden) return
      const asked = ++reading
      const still = await source.request(selected).catch(() => undefined)
      if (asked === reading && !still) forget(why)
    },
  }
}
