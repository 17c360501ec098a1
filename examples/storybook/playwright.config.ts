// The built Storybook served by a tiny static server for the run; the machine's Chromium (CHROMIUM_PATH, Debian's by
// default) instead of the browsers `npx playwright install` would download.
import { defineConfig } from '@playwright/test'

const PORT = process.env.STORYBOOK_STATIC_PORT ?? '4820'

export default defineConfig({
  testDir: './tests',
  forbidOnly: !!process.env.CI,
  reporter: 'list',
  webServer: { command: `node serve.mjs ${PORT}`, url: `http://127.0.0.1:${PORT}/iframe.html` },
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    browserName: 'chromium',
    launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] },
  },
})
