/**
 * The Playwright project of test/browser/playwright-fixture.test.ts: the `petstore-mock/playwright` fixture as a user
 * runs it, in the machine's Chromium (Debian's; CHROMIUM_PATH for another).
 */
import { defineConfig } from '@playwright/test'

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  // fails.spec.ts fails on purpose: only the run that checks the failing test's attachment includes it.
  testIgnore: process.env['PETSTORE_PLAYWRIGHT_FAIL'] ? [] : ['fails.spec.ts'],
  // Every test on its own worker's turn: tests of one file run side by side, each with its own world.
  fullyParallel: true,
  timeout: 30_000,
  // The results under test-results/ of the repository, beside the other browser tests' screenshots.
  outputDir: '../../test-results/playwright-fixture',
  use: {
    browserName: 'chromium',
    launchOptions: {
      executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking'],
    },
  },
})
