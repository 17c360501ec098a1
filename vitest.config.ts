import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const src = (file: string) => fileURLToPath(new URL(`./src/${file}`, import.meta.url))

export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['src/**/*.test.ts'] } },
      { test: { name: 'in-process', include: ['test/**/*.test.ts'], exclude: ['test/http/**', 'test/browser/**', 'test/package/**'] } },
      { test: { name: 'http', include: ['test/http/**/*.test.ts'] } },
      { test: { name: 'package', include: ['test/package/**/*.test.ts'], testTimeout: 240_000, hookTimeout: 240_000 } },
      { test: { name: 'browser', include: ['test/browser/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 120_000 } },
      {
        // The examples import the package by name, as users do; here the name points at the source.
        resolve: {
          alias: [
            { find: /^petstore-mock\/vitest$/, replacement: src('vitest.ts') },
            { find: /^petstore-mock$/, replacement: src('index.ts') },
          ],
        },
        test: { name: 'examples', include: ['examples/sdk-suite/**/*.test.ts'] },
      },
    ],
  },
})
