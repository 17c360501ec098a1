// The mock and the built app, started for the run by Playwright; the machine's Chromium (CHROMIUM_PATH, Debian's by
// default) instead of the browsers `npx playwright install` would download.
import { defineConfig } from '@playwright/test'

const MOCK_PORT = process.env.PETSTORE_MOCK_PORT ?? '4810'
const APP_PORT = process.env.PETSTORE_APP_PORT ?? '4811'
export const MOCK = `http://127.0.0.1:${MOCK_PORT}`
const APP = `http://127.0.0.1:${APP_PORT}`

export default defineConfig({
  testDir: './tests',
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  reporter: 'list',
  webServer: [
    // The server needs express beside petstore-mock: its admin API drives each test's session.
    { command: `npx petstore-mock --port ${MOCK_PORT} --log silent`, url: `${MOCK}/__mock/health` },
    {
      // `next build` ran first (npm test): the app as it ships, pointed at the mock.
      command: `npm start -- --port ${APP_PORT}`,
      url: APP,
      env: { PETSTORE_URL: MOCK, PETSTORE_KEY: 'test-free' },
    },
  ],
  use: {
    baseURL: APP,
    browserName: 'chromium',
    launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] },
  },
})
