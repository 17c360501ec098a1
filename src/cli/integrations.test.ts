import { describe, expect, it } from 'vitest'
import { needIntegration } from './integrations.js'
import { UsageError } from './values.js'

describe('needIntegration', () => {
  it('passes for an installed package and names the install command for a missing one, as a usage error', () => {
    expect(() => needIntegration('@opentelemetry/api', '--tracing')).not.toThrow()
    const missing = (() => {
      try {
        needIntegration('petstore-mock-no-such-package', '--tracing')
      } catch (error) {
        return error
      }
    })()
    expect(missing).toBeInstanceOf(UsageError)
    expect((missing as Error).message).toBe(
      '--tracing needs petstore-mock-no-such-package, which is not installed: npm i petstore-mock-no-such-package',
    )
  })
})
