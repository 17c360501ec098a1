/**
 * Vitest browser mode, as docs/browser.md "Vitest browser mode" tells a front-end team to set it up: the page's two
 * blocks (tagged `vitest-browser config` and `vitest-browser test`) written verbatim into a copy of the run's project
 * with the packed tarball, vitest 5, `@vitest/browser-playwright` and msw 3 (./consumer.ts), then `vitest run` in Chromium. One stated
 * substitution: `playwright()` gets the machine's Chromium (`launchOptions.executablePath`) instead of a browser that
 * `npx playwright install` would download.
 *
 * Vitest 5 and msw 3 need Node 22 or later: on the machine's Node 20 this file skips; `npm test`'s second lane
 * (scripts/msw3-lane.mjs, Node 24) runs it.
 */
import { execFile } from 'node:child_process'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHROMIUM_PATH } from '../browser/support.js'
import { ROOT } from '../http/support.js'
import { type Consumer, copyConsumer, NODE_MAJOR } from './consumer.js'

const run = promisify(execFile)
let project = ''
let consumer: Consumer | undefined

/** The code of the block right after `<!-- test: vitest-browser NAME -->` in docs/browser.md. */
async function docBlock(name: string): Promise<string> {
  const page = await readFile(join(ROOT, 'docs', 'browser.md'), 'utf8')
  const match = new RegExp(`<!-- test: vitest-browser ${name} -->\\n\`\`\`ts\\n([\\s\\S]*?)\\n\`\`\``).exec(page)
  if (!match?.[1]) throw new Error(`docs/browser.md has no block tagged "vitest-browser ${name}".`)
  return `${match[1]}\n`
}

/** `vitest run` in the project with this Node, its JSON report read back. */
async function vitestRun(config: string): Promise<{ numPassedTests: number; numFailedTests: number; text: string }> {
  const report = join(project, `report-${config}.json`)
  const vitest = join(project, 'node_modules', 'vitest', 'vitest.mjs')
  // The default reporter prints a failed import's cause (the JSON report keeps only "Failed to import test file").
  const args = [vitest, 'run', '--config', config, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`]
  const { stdout, stderr } = await run(process.execPath, args, { cwd: project, timeout: 120_000 }).catch((error) => error)
  const counts = JSON.parse(await readFile(report, 'utf8')) as { numPassedTests: number; numFailedTests: number }
  return { ...counts, text: `${stdout}\n${stderr}\n${await readFile(report, 'utf8')}` }
}

describe.skipIf(NODE_MAJOR < 22)('vitest 5 browser mode with msw/vite (docs/browser.md)', () => {
  beforeAll(async () => {
    // A copy of the run's one install (./consumer.ts), which holds vitest, @vitest/browser-playwright and playwright
    // beside the tarball and msw where this file runs.
    consumer = await copyConsumer('petstore-vitest-browser-')
    project = consumer.project
    const config = await docBlock('config')
    expect(config).toContain('playwright()')
    const machineChromium = `playwright({ launchOptions: { executablePath: ${JSON.stringify(CHROMIUM_PATH)} } })`
    await writeFile(join(project, 'vitest.config.ts'), config.replace('playwright()', machineChromium))
    // The same config without msw's plugin: the worker script is then nowhere to be found.
    const bare = config.replace('playwright()', machineChromium).replace(/^ {2}plugins: .*\n/m, '')
    expect(bare).not.toContain('msw(')
    await writeFile(join(project, 'vitest.bare.config.ts'), bare)
    await writeFile(join(project, 'pets.browser.test.ts'), await docBlock('test'))
  }, 300_000)

  afterAll(async () => {
    if (consumer) await rm(consumer.workDir, { recursive: true, force: true })
  })

  it('passes the documented test in Chromium with the documented config', async () => {
    const result = await vitestRun('vitest.config.ts')
    expect(result.numFailedTests, result.text).toBe(0)
    expect(result.numPassedTests, result.text).toBe(1)
  }, 150_000)

  it('fails to start the worker without msw/vite: the plugin line is what serves the script', async () => {
    const result = await vitestRun('vitest.bare.config.ts')
    expect(result.numPassedTests).toBe(0)
    expect(result.text).toContain('Service Worker script does not exist')
  }, 150_000)
})
