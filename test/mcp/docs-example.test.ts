/**
 * The worked example of docs/mcp.md, run end to end as its page shows it: a script plays the agent through the SDK's
 * client over stdio and `fetch` plays the app (test/package/doc-blocks.test.ts runs it again against the packed tarball).
 * Here `npx petstore-mock` is the built CLI of this clone.
 */
import { execFile } from 'node:child_process'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, expect, it } from 'vitest'
import { CLI, ensureBuilt, ROOT } from '../http/support.js'

const script = join(ROOT, '.tmp', `mcp-example-${process.pid}.mjs`)
afterAll(() => rm(script, { force: true }))

it('runs the worked example: 429 with Retry-After, the clock past the window, then 200', async () => {
  await ensureBuilt()
  const page = await readFile(join(ROOT, 'docs', 'mcp.md'), 'utf8')
  const block = /<!-- test: run -->\n```js\n([\s\S]*?)\n```/.exec(page)?.[1]
  expect(block).toContain("command: 'npx'")
  const code = (block as string).replace(
    "command: 'npx', args: ['petstore-mock', ",
    `command: process.execPath, args: [${JSON.stringify(CLI)}, `,
  )
  expect(code).not.toContain("'npx'")
  await mkdir(join(ROOT, '.tmp'), { recursive: true })
  await writeFile(script, code)
  const { stdout } = await promisify(execFile)(process.execPath, [script], { cwd: ROOT, timeout: 45_000 })
  expect(stdout).toMatch(/^tools: list_keys, exhaust_quota/m)
  expect(stdout).toMatch(/^app: 429, Retry-After \d+ s$/m)
  expect(stdout).toMatch(/^read_journal: 1 requests, #1 to #1; statuses 429\.$/m)
  expect(stdout).toMatch(/^app: 200$/m)
})
