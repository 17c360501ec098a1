/**
 * The optional packages the server's tools load when used: a command or flag that needs one that is not installed stops
 * before starting anything, with one line naming what to install (exit 2, `usageFailed`), never a stack trace.
 */
import { UsageError } from './values.js'

/** Whether `name` resolves from this package, as the import that loads it will resolve it. */
function installed(name: string): boolean {
  try {
    import.meta.resolve(name)
    return true
  } catch {
    return false
  }
}

/**
 * Throws a `UsageError` naming the install command when `name` is missing.
 *
 * @example
 * if (options.tracing) needIntegration('@opentelemetry/api', '--tracing')
 */
export function needIntegration(name: string, feature: string): void {
  if (!installed(name)) throw new UsageError(`${feature} needs ${name}, which is not installed: npm i ${name}`)
}
