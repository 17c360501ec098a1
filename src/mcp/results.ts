/**
 * What a tool answers: a one-line summary and the JSON, or an error result (`isError: true`) whose text names the fix,
 * never a thrown error: a bad argument must not end the server's conversation (docs/mcp.md, "Errors").
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { durationMsOf } from '../core/duration.js'
import { stringifyJson } from '../core/json.js'

/** A result an agent reads: the summary line first, then the data as JSON. */
export function answer(summary: string, data: unknown): CallToolResult {
  return {
    content: [
      { type: 'text', text: summary },
      { type: 'text', text: stringifyJson(data ?? null, 2) },
    ],
  }
}

/** An error result: what was wrong and the fix. */
export const failure = (message: string): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text: message.replace(/^\[petstore-mock\] /, '') }],
})

/** Runs a tool's body; whatever it throws becomes its error result. */
export function guarded<A>(run: (args: A) => Promise<CallToolResult>): (args: A) => Promise<CallToolResult> {
  return async (args) => {
    try {
      return await run(args)
    } catch (error) {
      return failure(error instanceof Error ? error.message : String(error))
    }
  }
}

/**
 * Seconds of a duration: a number of seconds, `90s`, `15m`, `2h`, `1d`, `500ms`, or ISO 8601 (`PT1M30S`, `P1D`), read
 * by the one reader (src/core/duration.ts). Throws with the forms it takes.
 *
 * @example
 * durationSeconds('15m') // 900
 */
export function durationSeconds(value: string | number): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value
  const text = String(value).trim()
  if (/^-?\d+(?:\.\d+)?$/.test(text)) return Number(text)
  const ms = durationMsOf(text)
  if (ms !== undefined) return ms / 1_000
  throw new Error(
    `"by" must be a duration: seconds as a number, or "90s", "15m", "2h", "1d", "500ms", or ISO 8601 "PT1M"; got ${JSON.stringify(value)}.`,
  )
}
