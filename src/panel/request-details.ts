/**
 * The details pane of the requests view: one request's headers and bodies on both sides, read anew for the row clicked
 * last, and forgotten when the journal is cleared.
 */
import { h, replace } from './dom.js'
import type { PanelSource, RequestDetail, RequestRow } from './types.js'

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

/** A body as sent: indented when whole JSON, as it is when `asIs` (a truncated prefix, base64) or other text. */
function readable(text: string | undefined, asIs: boolean, headers: Readonly<Record<string, string>>): HTMLElement {
  if (text === undefined || text === '') return h('pre', {}, '(none)')
  return h('pre', {}, asIs || !/json/i.test(headers['content-type'] ?? 'application/json') ? text : indentJson(text))
}

/** The details of one request: both sides' headers and bodies, truncated ones marked. */
function detailsOf(detail: RequestDetail): HTMLElement[] {
  const truncated = (yes: boolean, size?: number) =>
    yes ? h('span', { class: 'tag' }, size === undefined ? 'truncated to 16 KiB' : `truncated: first 16 KiB of ${size} bytes`) : null
  // The server shows a body holding control characters as the base64 of its bytes (docs/spec-decisions.md row 61).
  const encoded = (encoding: string | undefined) => (encoding === 'base64' ? h('span', { class: 'tag' }, 'base64 of its bytes') : null)
  return [
    h('h3', {}, `#${detail.seq} ${detail.method} ${detail.path}${detail.query ? `?${detail.query}` : ''} → ${detail.status}`),
    h(
      'p',
      { class: 'muted' },
      `Answered in ${detail.durationMs.toFixed(1)} ms${detail.delayMs > 0 ? `, ${detail.delayMs} ms of them a scenario's latency` : ''}.`,
    ),
    // Why (docs/explain.md): the rule, and the facts it read; a server older than reasons sends none.
    h('p', { class: 'reason', hidden: !detail.reason }, h('strong', {}, 'Why: '), detail.reason?.text ?? ''),
    h('h3', {}, 'Request headers'),
    headerTable('Request headers', detail.requestHeaders),
    h('h3', {}, 'Request body', truncated(detail.bodyTruncated, detail.bodySize), encoded(detail.bodyEncoding)),
    readable(detail.bodyText, detail.bodyTruncated || detail.bodyEncoding !== undefined, detail.requestHeaders),
    h('h3', {}, 'Response headers'),
    headerTable('Response headers', detail.responseHeaders),
    h('h3', {}, 'Response body', truncated(detail.responseBodyTruncated), encoded(detail.responseBodyEncoding)),
    readable(detail.responseBody, detail.responseBodyTruncated || detail.responseBodyEncoding !== undefined, detail.responseHeaders),
  ]
}

/**
 * The details of the row clicked last, read anew on each click. Each click, and each clearing of the journal, starts a
 * new reading: an older one's answer, on its way meanwhile, is dropped (it would show an entry of the journal before
 * the reset, or another row than the one clicked last).
 */
export function detailsPane(
  source: PanelSource,
  notify: (message: string, error?: boolean) => void,
  tidy: (selected: number | undefined) => void,
) {
  const element = h('section', { class: 'details', 'aria-label': 'Request details', hidden: true })
  let selected: number | undefined
  let reading = 0
  const forget = (why: string) => {
    reading++
    if (selected === undefined) return
    if (!element.hidden) replace(element, h('p', {}, `Entry #${selected} is gone: ${why}. Click a row to see its details.`))
    selected = undefined
    tidy(selected)
  }
  return {
    element,
    forget,
    get selected() {
      return selected
    },
    async select(row: RequestRow, tr: HTMLTableRowElement) {
      selected = row.seq
      tidy(selected)
      tr.tabIndex = 0
      const asked = ++reading
      try {
        const detail = await source.request(row.seq)
        if (asked !== reading) return
        element.hidden = false
        if (!detail) return replace(element, h('p', {}, `Entry #${row.seq} is no longer in the journal.`))
        replace(element, ...detailsOf(detail))
      } catch (error) {
        notify(`Could not read request #${row.seq}: ${(error as Error).message}`, true)
      }
    },
    /** Forgets the entry shown when the journal no longer has it (a state import may or may not have cleared it). */
    async recheck(why: string) {
      if (selected === undefined || element.hidden) return
      const asked = ++reading
      const still = await source.request(selected).catch(() => undefined)
      if (asked === reading && !still) forget(why)
    },
  }
}
