import type { StorybookConfig } from '@storybook/react-vite'

const config: StorybookConfig = {
  framework: '@storybook/react-vite',
  stories: ['../src/**/*.stories.tsx'],
  // msw's worker script (mockServiceWorker.js), written there by `msw init public/`, served at the root.
  staticDirs: ['../public'],
  // Builds and test runs send no usage reports.
  core: { disableTelemetry: true },
}

export default config
