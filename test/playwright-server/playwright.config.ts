/**
 * The Playwright project of the fixture's server mode (test/browser/playwright-fixture.test.ts): the standalone server
 * and an app that renders on its server side too (ssr-app.mjs), both started by Playwright's `webServer`, as a user's
 * project starts them. Ports from the environment (the vitest file picks free ones); Chromium from Debian.
 */
import { defineConfig } from '@playwright/test'

const MOCK_PORT = process.env['PETSTORE_MOCK_PORT'] ?? '4791'
const APP_PORT = process.env['PETSTORE_APP_PORT'] ?? '4792'
export const MOCK = `http://127.0.0.1:${MOCK_PORT}`
export const APP = `http://127.0.0.1:${APP_PORT}`

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  fullyParallel: true,
  timeout: 30_000,
  outputDir: '../../test-results/playwright-server',
  webServer: [
    {
      command: `node ../../dist/src/cli/main.js --port ${MOCK_PORT} --log silent`,
      url: `${MOCK}/__mock/health`,
      reuseExistingServer: false,
    },
    { command: `node ssr-app.mjs ${APP_PORT} ${MOCK}`, url: `${APP}/health`, reuseExistingServer: false },
  ],
  use: {
    baseURL: APP,
    browserName: 'chromium',
    launchOptions: {
      executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking'],
    },
  },
})
