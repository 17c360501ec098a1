const SECOND = 1_000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
const UNIT_MS: Record<string, number> = { ms: 1, s: SECOND, m: MINUTE, h: HOUR, d: DAY }

/**
 * The one reader of a length of time a person writes (a scenario timeline's `after` and `for`, the MCP clock tool's
 * `by`): `90s`, `5m`, `2h`, `1d`, `500ms` (a leading `-` for a step back), or ISO 8601 `PT1H30M`, `P1D`. In ms;
 * undefined when the text is none of these, so each caller's message names the forms its own format takes.
 *
 * @example
 * durationMsOf('5m') // 300000
 * durationMsOf('PT1M30S') // 90000
 */
export function durationMsOf(text: string): number | undefined {
  const trimmed = text.trim()
  const simple = /^(-?\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/i.exec(trimmed)
  if (simple) return Number(simple[1]) * (UNIT_MS[(simple[2] as string).toLowerCase()] as number)
  const iso = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i.exec(trimmed)
  if (!iso || !/\d/.test(trimmed) || /T$/i.test(trimmed)) return undefined
  const [, d = '0', h = '0', m = '0', s = '0'] = iso
  return Number(d) * DAY + Number(h) * HOUR + Number(m) * MINUTE + Number(s) * SECOND
}
