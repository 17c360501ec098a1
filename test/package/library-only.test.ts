/**
 * The library install (decisions/029): `npm i -D petstore-mock msw` in an empty project, as a front-end team or an SDK
 * suite runs it, brings the library and none of the server's optional tools (at most 70 packages and 60 MiB on disk),
 * its entries work from that install alone, the README's vitest quick start passes in it, and the server's commands
 * say in one line what to install (exit 2), never a stack.
 */
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { cp, mkdir, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Consumer, copyConsumer, ROOT, SERVER_INTEGRATIONS, sh } from './consumer.js'

/** decisions/029: what a user of the library alone installs, with msw. */
const MAX_PACKAGES = 70
const MAX_KIB = 60 * 1024

let consumer: Consumer
let library: string

beforeAll(async () => {
  consumer = await copyConsumer('petstore-library-')
  library = join(consumer.workDir, 'library')
  await mkdir(library)
  await writeFile(join(library, 'package.json'), '{ "private": true, "type": "module" }\n')
  // The README's install line, with the packed tarball for petstore-mock; what the npm cache holds is not asked again.
  await sh('npm', ['i', '-D', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', consumer.tarball, 'msw'], library)
}, 240_000)

afterAll(async () => {
  if (consumer) await rm(consumer.workDir, { recursive: true, force: true })
})

/** Runs `command` in the library project; resolves with its exit code and output (never rejects). */
const run = (command: string, args: string[]) => runIn(library, command, args)

/** Runs `command` in `cwd`; resolves with its exit code and output (never rejects). */
function runIn(cwd: string, command: string, args: string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(command, args, { cwd, env: process.env, timeout: 120_000 })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

describe('npm i -D petstore-mock msw in an empty project', () => {
  it(`installs at most ${MAX_PACKAGES} packages in ${MAX_KIB / 1024} MiB, none of the server's optional tools`, async () => {
    const { stdout } = await sh('npm', ['ls', '--all', '--parseable'], library)
    const packages = new Set(stdout.trim().split('\n').slice(1))
    const kib = Number((await sh('du', ['-sk', 'node_modules'], library)).stdout.split('\t')[0])
    process.stdout.write(`[library install] ${packages.size} packages, ${(kib / 1024).toFixed(1)} MiB (du -sk)\n`)
    expect(packages.size).toBeLessThanOrEqual(MAX_PACKAGES)
    expect(kib).toBeLessThanOrEqual(MAX_KIB)
    for (const name of SERVER_INTEGRATIONS) expect(existsSync(join(library, 'node_modules', name)), name).toBe(false)
  })

  it('runs the main, node, http and check entries from that install alone', async () => {
    const script = `
      import { createPetStore } from 'petstore-mock'
      import { setupPetStoreServer } from 'petstore-mock/node'
      import { createPetStoreServer } from 'petstore-mock/http'
      import { checkClient } from 'petstore-mock/check'
      const headers = { authorization: 'Bearer test-pro' }
      const out = {}
      out.main = (await createPetStore({ seed: 1 }).fetch('/v1/pets?limit=1', { headers })).status
      const { server } = setupPetStoreServer({ seed: 1 })
      server.listen({ onUnhandledRequest: 'error' })
      out.node = (await fetch('https://api.petstore.test/v1/pets/1', { headers })).status
      server.close()
      const standalone = createPetStoreServer({ port: 0, log: 'silent' })
      const url = await standalone.listen()
      out.http = (await fetch(url + '/v1/pets?limit=1', { headers })).status
      const admin = await fetch(url + '/__mock/health')
      out.admin = { status: admin.status, body: await admin.json() }
      await standalone.close()
      const send = (path) => async ({ baseUrl, key }) => (await fetch(baseUrl + path, { headers: { authorization: 'Bearer ' + key } })).text()
      const tasks = { listPets: send('/pets'), getPet: send('/pets/1'), createPet: send('/pets') }
      const report = await checkClient(tasks, { only: ['auth.bearer'] })
      out.check = report.checks.map((check) => [check.id, check.status])
      console.log(JSON.stringify(out))
    `
    await writeFile(join(library, 'entries.mjs'), script)
    const { code, stdout, stderr } = await run('node', ['entries.mjs'])
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
    const out = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}')
    expect(out).toMatchObject({ main: 200, node: 200, http: 200, check: [['auth.bearer', 'passed']] })
    // The admin API needs express: its calls say what to install, with the Error body (docs/errors.md).
    expect(out.admin).toEqual({
      status: 501,
      body: {
        code: 'integration_missing',
        status: 501,
        message: "the server's admin API (/__mock) needs express, which is not installed: npm i express.",
      },
    })
  })

  it("passes the README's vitest quick start, with the user's own vitest beside it", async () => {
    // The user's vitest: the one the shared project installed, linked in (its own dependencies resolve where it lies).
    await symlink(join(consumer.project, 'node_modules', 'vitest'), join(library, 'node_modules', 'vitest'))
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    const block = /<!-- test: vitest -->\n```ts\n([\s\S]*?)```/.exec(readme)?.[1]
    expect(block).toContain("from 'petstore-mock/node'")
    // As written: npm installs msw 2 on Node 20 and msw 3 on Node 22 and later, and the block is right with both.
    await writeFile(join(library, 'quick.test.ts'), block ?? '')
    const { code, stdout, stderr } = await run('node', [join('node_modules', 'vitest', 'vitest.mjs'), 'run', 'quick.test.ts'])
    expect({ code, stderr: stderr.includes('FAIL') ? stderr : '' }).toEqual({ code: 0, stderr: '' })
    expect(stdout).toMatch(/1 passed/)
  })

  it("runs examples/jest (Jest 30, native ESM) from that install, with the user's own Jest beside it", async () => {
    const dir = join(library, 'jest-example')
    await cp(join(ROOT, 'examples', 'jest'), dir, { recursive: true, filter: (source) => !source.includes('node_modules') })
    // The user's Jest, linked in from the shared project as vitest is above.
    await mkdir(join(library, 'node_modules', '@jest'), { recursive: true })
    for (const name of ['jest', '@jest/globals'])
      await symlink(join(consumer.project, 'node_modules', name), join(library, 'node_modules', name))
    const tests = [...readFileSync(join(dir, 'pets.test.js'), 'utf8').matchAll(/\bit\('([^']+)'/g)].map((match) => match[1])
    expect(tests.length).toBeGreaterThanOrEqual(5)
    const jest = join(library, 'node_modules', 'jest', 'bin', 'jest.js')
    const { code, stdout, stderr } = await runIn(dir, 'node', ['--experimental-vm-modules', jest, '--ci'])
    expect({ code, output: code === 0 ? '' : stdout + stderr }).toEqual({ code: 0, output: '' })
    expect(stderr).toMatch(new RegExp(`Tests:\\s+${tests.length} passed, ${tests.length} total`))
  })

  it('stops the server and the MCP commands in one line naming the install, exit 2', async () => {
    const bin = join('node_modules', '.bin', 'petstore-mock')
    const server = await run(bin, ['--port', '0'])
    expect(server).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "petstore-mock: the server's admin API (/__mock) needs express, which is not installed: npm i express, or run npx -y -p petstore-mock -p express petstore-mock\n",
    })
    const mcp = await run(bin, ['mcp'])
    expect(mcp.code).toBe(2)
    expect(mcp.stderr.trim().split('\n')).toEqual([
      'petstore-mock mcp: the MCP server needs @modelcontextprotocol/sdk, which is not installed: npm i @modelcontextprotocol/sdk, or run npx -y -p petstore-mock -p @modelcontextprotocol/sdk -p express petstore-mock mcp',
    ])
  })
})
