// The config `npm init playwright` writes, with one change: the machine's Chromium (CHROMIUM_PATH, Debian's by
// default) instead of the browsers `npx playwright install` would download.
import { defineConfig } from '@playwright/test'

export default defineConfig({
  testDir: './tests',
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  reporter: 'list',
  use: {
    browserName: 'chromium',
    launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] },
  },
})
