/** Scenarios, user scenario folders and fixtures from the command line (docs/scenarios.md). */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { writeFixtures } from '../../src/server/files.js'
import { auth, ensureBuilt, killClis, runCli, startCli } from '../http/support.js'
import { tempDirs } from '../support/temp-dirs.js'

const temp = tempDirs()
afterAll(temp.remove)

beforeAll(ensureBuilt, 120_000)
afterEach(killClis)

describe('--scenario', () => {
  const startSoldOut = () => startCli(['--port', '0', '--log', 'silent', '--scenario', 'sold-out'])

  it('names its scenario in the banner', async () => {
    const cli = await startSoldOut()
    expect(cli.stdout()).toContain('Scenario sold-out.')
  })

  it('starts in the named scenario', async () => {
    const cli = await startSoldOut()
    const pets = (await (await fetch(`${cli.url}/v1/pets?limit=100`, { headers: auth('test-free') })).json()) as { status: string }[]
    expect(pets.length).toBeGreaterThan(0)
    expect(pets.every((pet) => pet.status === 'sold')).toBe(true)
  })

  it('refuses an unknown scenario with exit code 2, listing the known names with a suggestion', async () => {
    const { code, stderr } = await runCli(['--scenario', 'sold-out-store'])
    expect(code).toBe(2)
    expect(stderr).toMatch(/Unknown scenario "sold-out-store"\. Known scenarios: .*Did you mean "sold-out"\?/)
  })

  it('reads the scenario from PETSTORE_SCENARIO', async () => {
    const cli = await startCli(['--port', '0', '--log', 'silent'], { PETSTORE_SCENARIO: 'unauthorized' })
    expect((await fetch(`${cli.url}/v1/pets`, { headers: auth('test-free') })).status).toBe(401)
  })
})

describe('--scenarios DIR', () => {
  it("adds the folder's scenarios to the shipped ones", async () => {
    const dir = await temp.make('scenarios-')
    await writeFile(join(dir, 'two-pets.json'), JSON.stringify({ name: 'two-pets', description: 'Two pets', data: { pets: 2 } }))
    const cli = await startCli(['--port', '0', '--log', 'silent', '--scenarios', dir, '--scenario', 'two-pets'])
    expect(await (await fetch(`${cli.url}/v1/pets`, { headers: auth('test-free') })).json()).toHaveLength(2)
    const names = ((await (await fetch(`${cli.url}/__mock/scenarios`)).json()) as { name: string }[]).map((s) => s.name)
    expect(names).toEqual(expect.arrayContaining(['two-pets', 'flaky', 'default']))
  })

  it('refuses an invalid file with exit code 2, naming the file, the field, the fix', async () => {
    const dir = await temp.make('scenarios-')
    const file = join(dir, 'bad.json')
    await writeFile(file, JSON.stringify({ name: 'bad', description: 'x', faults: [{ fault: { type: 'network-error' } }] }))
    const { code, stderr } = await runCli(['--scenarios', dir])
    expect(code).toBe(2)
    expect(stderr).toContain(`Invalid scenario ${file}: faults[0].chaos: must be true`)
  })

  it('refuses a file that is not JSON, naming it', async () => {
    const dir = await temp.make('scenarios-')
    await writeFile(join(dir, 'broken.json'), '{ "name": ')
    const { code, stderr } = await runCli(['--scenarios', dir])
    expect(code).toBe(2)
    expect(stderr).toMatch(/broken\.json is not valid JSON/)
  })
})

describe('--fixtures DIR', () => {
  it('serves the fixtures that npm run fixtures wrote', async () => {
    const dir = await temp.make('fixtures-')
    await writeFixtures({ seed: 42, pets: 200, out: dir })
    const cli = await startCli(['--port', '0', '--log', 'silent', '--fixtures', dir])
    expect((await fetch(`${cli.url}/v1/pets/200`, { headers: auth('test-pro') })).status).toBe(200)
    expect((await fetch(`${cli.url}/v1/pets/201`, { headers: auth('test-pro') })).status).toBe(404)
  })
})
