/**
 * The Playwright project of test/browser/playwright-fixture.test.ts: the `petstore-mock/playwright` fixture as a user
 * runs it, in the machine's Chromium (Debian's; CHROMIUM_PATH for another), in one run of Playwright's runner:
 * - `in-page`: worlds in the test's process answering the page by routing (pets.spec.ts; fails.spec.ts, which fails on
 *   purpose, only when PETSTORE_PLAYWRIGHT_FAIL is set, to check the journal attached to a failing test);
 * - `server`: a session per test on the standalone server, reached by the page and by an app that renders on its
 *   server side too (server.spec.ts, ssr-app.mjs), both started by `webServer` as a user's project starts them.
 * Ports from the environment (the vitest file picks free ones).
 */
import { defineConfig } from '@playwright/test'

const MOCK_PORT = process.env['PETSTORE_MOCK_PORT'] ?? '4791'
const APP_PORT = process.env['PETSTORE_APP_PORT'] ?? '4792'
export const MOCK = `http://127.0.0.1:${MOCK_PORT}`
export const SSR_APP = `http://127.0.0.1:${APP_PORT}`

export default defineConfig({
  testDir: '.',
  // Every test on its own worker's turn: tests of one file run side by side, each with its own world or session.
  fullyParallel: true,
  timeout: 30_000,
  // The results under test-results/ of the repository, beside the other browser tests' screenshots.
  outputDir: '../../test-results/playwright-fixture',
  webServer: [
    {
      command: `node ../../dist/src/cli/main.js --port ${MOCK_PORT} --log silent`,
      url: `${MOCK}/__mock/health`,
      reuseExistingServer: false,
    },
    { command: `node ssr-app.mjs ${APP_PORT} ${MOCK}`, url: `${SSR_APP}/health`, reuseExistingServer: false },
  ],
  projects: [
    { name: 'in-page', testMatch: process.env['PETSTORE_PLAYWRIGHT_FAIL'] ? ['pets.spec.ts', 'fails.spec.ts'] : ['pets.spec.ts'] },
    { name: 'server', testMatch: ['server.spec.ts'], use: { baseURL: SSR_APP } },
  ],
  use: {
    browserName: 'chromium',
    launchOptions: {
      executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking'],
    },
  },
})
