import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['src/**/*.test.ts'] } },
      { test: { name: 'in-process', include: ['test/**/*.test.ts'], exclude: ['test/http/**', 'test/browser/**'] } },
    ],
  },
})
