/**
 * A small element builder for the control panel: `h('button', { type: 'button', onclick }, 'Reset')`.
 * No framework: the panel is a few tables and forms, served as they are compiled.
 */

export type Child = Node | string | number | null | undefined | false

type Props = Record<string, unknown>

/** The children to add: the empty ones skipped, numbers as text. */
const nodes = (children: readonly Child[]): (Node | string)[] =>
  children.flatMap((child) =>
    child === null || child === undefined || child === false ? [] : typeof child === 'number' ? String(child) : child,
  )

/**
 * @example
 * h('label', {}, 'Scenario ', h('select', { onchange: () => {} }))
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue
    if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2), value as EventListener)
    else if (name === 'value') (element as unknown as { value: string }).value = String(value)
    else element.setAttribute(name, value === true ? '' : String(value))
  }
  element.append(...nodes(children))
  return element
}

/** Replaces an element's children. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren(...nodes(children))
}

/** A button that is not a form's submit button. */
export const button = (label: string, onclick: () => unknown, props: Props = {}): HTMLButtonElement =>
  h('button', { type: 'button', onclick, ...props }, label)

/** A table with a header row of `columns` around `body`, scrolling inside its frame. */
export function tableOf(label: string, columns: readonly string[], body: HTMLTableSectionElement): HTMLElement {
  const head = h('thead', {}, h('tr', {}, ...columns.map((name) => h('th', { scope: 'col' }, name))))
  return h('div', { class: 'table-wrap' }, h('table', { 'aria-label': label }, head, body))
}

/** `2026-06-01T12:00:00.000Z` -> `12:00:00.000` (the table's time column; the title keeps the whole moment). */
export const timeOfDay = (iso: string): string => iso.slice(11, 23)

/** `2026-06-01T12:00:00.000Z` -> `2026-06-01 12:00:00` (resets and bans). */
export const shortMoment = (iso: string): string => `${iso.slice(0, 10)} ${iso.slice(11, 19)}`

/** Starts a download of `text` as a file (export state, HAR). */
export function download(name: string, text: string, type = 'application/json'): void {
  const url = URL.createObjectURL(new Blob([text], { type }))
  const link = h('a', { href: url, download: name })
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

/** A thrown value's message, for the panel's status line. */
export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** A labelled control: the label names it by `for`, not by wrapping (a wrapped select would add its value to its name). */
export function field(label: string, control: HTMLInputElement | HTMLSelectElement, id: string): HTMLElement {
  control.id = id
  return h('div', { class: 'field' }, h('label', { for: id }, label), control)
}
