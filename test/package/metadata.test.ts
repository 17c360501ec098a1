/**
 * The registry page's links and search words come from package.json: `repository`, `homepage` and `bugs` name the same
 * GitHub repository (npm shows them as "Repository", "Homepage" and "Issues"), and `keywords` carry the words users
 * search for. publint (the pack step) checks their shape; this checks that they are there and agree.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { ROOT } from '../http/support.js'

const REPOSITORY = 'github.com/petstore-mock/petstore-mock'

it('links the registry page to the repository, its readme and its issues', async () => {
  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>
  expect(pkg.repository).toEqual({ type: 'git', url: `git+https://${REPOSITORY}.git` })
  expect(pkg.homepage).toBe(`https://${REPOSITORY}#readme`)
  expect(pkg.bugs).toBe(`https://${REPOSITORY}/issues`)
  expect(pkg.keywords).toEqual(
    expect.arrayContaining(['mock', 'msw', 'petstore', 'api-mock', 'test-double', 'openapi', 'rate-limit', 'vitest', 'jest']),
  )
})
