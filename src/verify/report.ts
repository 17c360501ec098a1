/**
 * The report as people and machines read it: a table (wrapped to the terminal's width) or JSON, never with a key.
 */
import type { CheckResult, VerifyReport } from './types.js'

/** What a key is replaced with: the first of these that leaves no key in the text (see `redact`). */
const MARKERS = ['<redacted key>', '[redacted]', '***'] as const

/** A marker that shares no character with any key: no key can occur in it, nor across its edges. */
function disjointMarker(secrets: readonly string[]): string {
  const used = new Set([...secrets.join('')])
  let code = 0x2022
  while (used.has(String.fromCodePoint(code))) code += 1
  return String.fromCodePoint(code).repeat(3)
}

/**
 * `text` with every key replaced (a target may echo a key back in a header or body, and URLs may hold one). A key
 * may also occur in the marker itself (`e`, `key`) or across its edge (`>x`): then the next marker is tried, and the
 * last one shares no character with any key, so the text returned never holds one
 * (test/in-process/verify-redaction.test.ts).
 *
 * @example
 * redact('Bearer sk-live-1234', ['sk-live-1234']) // 'Bearer <redacted key>'
 */
export function redact(text: string, secrets: readonly string[]): string {
  const given = secrets.filter((secret) => secret !== '')
  const holdsKey = (candidate: string) => given.some((secret) => candidate.includes(secret))
  const replaced = (marker: string) => given.reduce((out, secret) => out.split(secret).join(marker), text)
  if (!holdsKey(text)) return text
  for (const marker of MARKERS) {
    const out = replaced(marker)
    if (!holdsKey(out)) return out
  }
  return replaced(disjointMarker(given))
}

/**
 * A copy of `value` with every string value redacted. The names of its fields are its own shape, never a secret,
 * and stay as they are: a key such as `checks` or `e` renamed them, and the report could not be read
 * (test/in-process/verify-redaction.test.ts).
 */
export function redactDeep<T>(value: T, secrets: readonly string[]): T {
  if (typeof value === 'string') return redact(value, secrets) as T
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, secrets)) as T
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactDeep(item, secrets)])) as T
  }
  return value
}

/** A check's fields in the JSON, in this order; `skipped` only where it is set (JSON.stringify leaves out `undefined`). */
const CHECK_FIELDS = ['id', 'title', 'spec', 'expected', 'actual', 'ok', 'option', 'kind', 'skipped'] as const

/** The report as JSON: `{ target, passed, failed, skipped, budget, checks: [{ id, title, spec, expected, actual, ok, option, … }], config, conflicts }`. */
export function formatJson(report: VerifyReport): string {
  const checks = report.checks.map((check) => Object.fromEntries(CHECK_FIELDS.map((field) => [field, check[field]])))
  const { target, passed, failed, skipped, budget, config, conflicts } = report
  return JSON.stringify({ target, passed, failed, skipped, budget, checks, config, conflicts }, null, 2)
}

/** Words of `text` in lines of at most `width` characters (a longer word is cut). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(/\s+/).filter(Boolean)) {
    let rest = word
    while (rest.length > width) {
      if (line) lines.push(line)
      line = ''
      lines.push(rest.slice(0, width))
      rest = rest.slice(width)
    }
    if (line === '') line = rest
    else if (line.length + 1 + rest.length <= width) line += ` ${rest}`
    else {
      lines.push(line)
      line = rest
    }
  }
  if (line !== '' || lines.length === 0) lines.push(line)
  return lines
}

const RESULT = (check: CheckResult) => (check.ok === true ? 'ok' : check.ok === false ? 'FAIL' : 'skip')

function optionCell(check: CheckResult): string {
  if (check.ok !== false) return ''
  if (check.option !== null) return check.option
  return check.kind === 'spec' ? 'none: the target does not do what the spec says' : 'none: no option of the mock answers like this'
}

/** The rows of the table, each cell wrapped to its column. */
function rows(report: VerifyReport, widths: readonly number[]): string[] {
  const header = ['RESULT', 'CHECK', 'SPEC SAYS', 'TARGET', 'MOCK', 'OPTION TO MATCH']
  const lines: string[] = []
  const emit = (cells: readonly string[]) => {
    const wrapped = cells.map((cell, i) => wrap(cell, widths[i] ?? 10))
    const height = Math.max(...wrapped.map((cell) => cell.length))
    for (let row = 0; row < height; row++) {
      lines.push(
        wrapped
          .map((cell, i) => (cell[row] ?? '').padEnd(widths[i] ?? 10))
          .join('  ')
          .trimEnd(),
      )
    }
  }
  emit(header)
  lines.push(widths.map((width) => '-'.repeat(width)).join('  '))
  for (const check of report.checks) {
    emit([RESULT(check), `${check.id}: ${check.title}`, check.spec, check.actual, check.expected, optionCell(check)])
  }
  return lines
}

/** The summary under the table: counts, requests, the options found and how to write them. */
function footer(report: VerifyReport): string[] {
  const lines = [
    `${report.passed} passed, ${report.failed} failed, ${report.skipped} skipped; ${report.budget.used} of ${report.budget.max} requests used.`,
  ]
  const notSpec = report.checks.filter((check) => check.ok === false && check.kind === 'spec').map((check) => check.id)
  if (notSpec.length > 0) lines.push(`Not as the spec says: ${notSpec.join(', ')}.`)
  const options = report.checks.filter((check) => check.option !== null).map((check) => check.option as string)
  if (options.length > 0) {
    lines.push(`Options that make the mock answer like the target: ${[...new Set(options)].join('; ')}.`)
    lines.push('--write-config FILE writes them as a config file; start the mock with --config FILE.')
  }
  for (const conflict of report.conflicts) lines.push(`Conflict: ${conflict}`)
  return lines
}

/**
 * The report as a table wrapped to `width` columns (default 160), the summary below it.
 *
 * @example
 * process.stdout.write(`${formatTable(report, process.stdout.columns)}\n`)
 */
export function formatTable(report: VerifyReport, width = 160): string {
  const usable = Math.max(100, width) - 2 * 5
  const result = 6
  // Ids are never cut: the column is at least as wide as the longest.
  const check = Math.max(Math.floor(usable * 0.18), ...report.checks.map((c) => c.id.length + 1))
  const rest = usable - result - check
  const widths = [result, check, Math.floor(rest * 0.28), Math.floor(rest * 0.26), Math.floor(rest * 0.26), Math.floor(rest * 0.2)]
  return [`Target: ${report.target}`, '', ...rows(report, widths), '', ...footer(report)].join('\n')
}
