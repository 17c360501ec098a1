/**
 * What a start of the server needs of the optional packages (decision 029), checked before anything starts: one line
 * naming the install (exit 2, `usageFailed`), never a stack trace.
 */
import { INTEGRATIONS, type Integration, installed, missingMessage } from '../server/integrations.js'
import { UsageError } from './values.js'

/** The options that each need a package of their own, and how the user set them (`--redis`, `PETSTORE_REDIS`, …). */
interface Wanted {
  readonly redis?: unknown
  readonly tracing?: boolean | undefined
}

/**
 * Throws a `UsageError` for the first package a start needs that is not installed: express for a server of its own,
 * the MCP SDK for `petstore-mock mcp`, `@redis/client` with `--redis`, `@opentelemetry/api` with `--tracing`.
 *
 * @example
 * needIntegrations({ server: true, mcp: false }, options, source)
 */
export function needIntegrations(
  { server, mcp }: { server: boolean; mcp: boolean },
  options: Wanted,
  source: (option: 'redis' | 'tracing') => string,
): void {
  const needed: [Integration, string][] = []
  if (mcp) needed.push(['@modelcontextprotocol/sdk', 'the MCP server'])
  if (server) needed.push(['express', INTEGRATIONS.express])
  if (options.redis !== undefined) needed.push(['@redis/client', source('redis')])
  if (options.tracing) needed.push(['@opentelemetry/api', source('tracing')])
  const missing = needed.find(([name]) => !installed(name))
  if (missing === undefined) return
  // From an empty folder, npx puts the packages beside petstore-mock in one go (docs/server.md, "Optional tools").
  const packages = needed.map(([name]) => `-p ${name}`).join(' ')
  const run = `npx -y -p petstore-mock ${packages} petstore-mock${mcp ? ' mcp' : ''}`
  throw new UsageError(missingMessage(missing[0], missing[1], run))
}
