import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { INTEGRATIONS, IntegrationMissingError, installed, loadIntegration, missingMessage } from './integrations.js'

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  dependencies: Record<string, string>
  peerDependencies: Record<string, string>
  peerDependenciesMeta: Record<string, { optional?: boolean }>
}

describe('the optional integrations', () => {
  it('are exactly the optional peer dependencies of package.json (but the test runners), none a dependency', () => {
    const optional = Object.keys(pkg.peerDependenciesMeta).filter((name) => pkg.peerDependenciesMeta[name]?.optional)
    expect(optional.filter((name) => name !== 'vitest' && name !== '@playwright/test').sort()).toEqual(Object.keys(INTEGRATIONS).sort())
    for (const name of Object.keys(INTEGRATIONS)) expect(pkg.dependencies[name], name).toBeUndefined()
  })

  it('names the install command in one line when a package is missing, and passes other failures on', async () => {
    expect(missingMessage('prom-client', 'GET /__mock/metrics')).toBe(
      'GET /__mock/metrics needs prom-client, which is not installed: npm i prom-client',
    )
    expect(installed('prom-client')).toBe(true)
    const notFound = Object.assign(new Error("Cannot find package 'express'"), { code: 'ERR_MODULE_NOT_FOUND' })
    // Installed here: a failure of an installed package is its own, passed on as it is.
    await expect(loadIntegration('express', 'the admin API', () => Promise.reject(notFound))).rejects.toBe(notFound)
    await expect(loadIntegration('express', 'the admin API', async () => 'loaded')).resolves.toBe('loaded')
  })

  it('is an IntegrationMissingError with a stable code', () => {
    const error = new IntegrationMissingError(missingMessage('@redis/client', '--redis'))
    expect(error.code).toBe('integration_missing')
    expect(error.message).toBe('--redis needs @redis/client, which is not installed: npm i @redis/client')
  })
})
