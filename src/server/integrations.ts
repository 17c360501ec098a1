/**
 * The optional packages of the server's tools (decision 029): not installed with the library, loaded when a tool is
 * used. A command that needs one that is missing stops before it starts anything, with one line naming what to
 * install (exit 2); a lazily loaded tool of a running server answers its call 501 with the same words.
 */
import { PetStoreMockError } from '../core/errors.js'

/** Each optional package (a peer dependency marked optional in package.json) and what needs it. */
export const INTEGRATIONS = {
  express: "the server's admin API (/__mock)",
  '@modelcontextprotocol/sdk': 'the MCP server (petstore-mock mcp, /__mock/mcp)',
  '@redis/client': '--redis',
  'prom-client': 'GET /__mock/metrics',
  '@opentelemetry/api': 'tracing: true (--tracing)',
} as const

export type Integration = keyof typeof INTEGRATIONS

/** One of the server's tools needs a package that is not installed. */
export class IntegrationMissingError extends PetStoreMockError {
  override readonly name = 'IntegrationMissingError'
  readonly code = 'integration_missing'
}

/** "`feature` needs `name`, which is not installed: npm i `name`", and how else to start, when there is one. */
export function missingMessage(name: Integration, feature: string, orRun?: string): string {
  return `${feature} needs ${name}, which is not installed: npm i ${name}${orRun === undefined ? '' : `, or run ${orRun}`}`
}

/** Whether `name` resolves from this package, as the import that loads it will resolve it. */
export function installed(name: Integration): boolean {
  try {
    import.meta.resolve(name)
    return true
  } catch {
    return false
  }
}

/**
 * Loads an optional package's module; when the package is missing, throws `IntegrationMissingError` naming the install.
 *
 * @example
 * const prom = await loadIntegration('prom-client', 'GET /__mock/metrics', () => import('prom-client'))
 */
export async function loadIntegration<T>(name: Integration, feature: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load()
  } catch (error) {
    if (!installed(name)) throw new IntegrationMissingError(missingMessage(name, feature))
    throw error
  }
}
