import { availableParallelism } from 'node:os'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

const src = (file: string) => fileURLToPath(new URL(`./src/${file}`, import.meta.url))

/**
 * Each project is named after what it runs (CONTRIBUTING.md lists them). No test depends on the machine's speed:
 * time-based behaviour runs on the manual clock and waits poll for a condition, so the timeouts below are ceilings
 * for a busy machine, not budgets. Budgets live in bench/ (docs/benchmarks.md).
 */
const BUSY_MACHINE = { testTimeout: 60_000, hookTimeout: 120_000, expect: { poll: { timeout: 20_000 } }, isolate: false }

/**
 * The projects whose files are longest start first. vitest's own sequencer runs the projects one after another in the
 * order of their names (longest files first within each, once it has their times), so `package`, whose doc-blocks file
 * is the longest of the run, started two thirds of the way in and ran alone at the end. `browser` comes before it:
 * the package files wait for the run's one consumer install (test/package/consumer-setup.ts), done by then.
 */
const LONGEST_FIRST = ['browser', 'package', 'cli', 'redis', 'http', 'mcp', 'in-process', 'scenarios', 'explain', 'examples']
class LongestProjectsFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // Projects not in the list (unit, express, architecture: seconds each) come last.
    const rank = (spec: TestSpecification) => {
      const index = LONGEST_FIRST.indexOf(spec.project.name)
      return index === -1 ? LONGEST_FIRST.length : index
    }
    const sorted = await super.sort(files)
    // A stable sort by project: each keeps vitest's order of its files.
    return sorted
      .map((spec, index) => ({ spec, index }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.index - b.index)
      .map(({ spec }) => spec)
  }
}

export default defineConfig({
  test: {
    ...BUSY_MACHINE,
    sequence: { sequencer: LongestProjectsFirst },
    // Most test files wait on sockets, child processes and Chromium rather than compute, so a third worker on two
    // cores keeps both busy; vitest's default (cores - 1) leaves one idle.
    maxWorkers: Math.max(2, availableParallelism() + 1),
    projects: [
      // The core, the store and the world's pieces, each beside its code: no server, no process, no socket.
      { test: { name: 'unit', include: ['src/**/*.test.ts'], ...BUSY_MACHINE } },
      // Whole worlds through petStore.fetch and msw's setupServer: the journal, the state format, regressions.
      {
        test: {
          name: 'in-process',
          include: ['test/{in-process,journal,state,regressions,support}/**/*.test.ts'],
          ...BUSY_MACHINE,
        },
      },
      // The express middleware in a user's app, over loopback HTTP.
      { test: { name: 'express', include: ['test/express/**/*.test.ts'], ...BUSY_MACHINE } },
      // Every shipped scenario file, driven by its own checks, in-process, over HTTP and through express.
      { test: { name: 'scenarios', include: ['test/scenarios/**/*.test.ts'], ...BUSY_MACHINE } },
      // The standalone server started in this process (createPetStoreServer) on a loopback port.
      { test: { name: 'http', include: ['test/http/**/*.test.ts'], ...BUSY_MACHINE } },
      // The built CLI as a process: flags, exit codes, signals, the state file across kill -9, verify, snapshot.
      { test: { name: 'cli', include: ['test/cli/**/*.test.ts'], ...BUSY_MACHINE } },
      // The MCP server through the SDK's own client: over stdio (the built CLI) and at /__mock/mcp.
      { test: { name: 'mcp', include: ['test/mcp/**/*.test.ts'], ...BUSY_MACHINE } },
      // Why this answer: the reasons in the journal, X-Mock-Reason, spans and metrics (docs/explain.md).
      { test: { name: 'explain', include: ['test/explain/**/*.test.ts'], ...BUSY_MACHINE } },
      // Replicas sharing a private redis-server started per run.
      { test: { name: 'redis', include: ['test/redis/**/*.test.ts'], ...BUSY_MACHINE } },
      // The folder layers and the import rules.
      { test: { name: 'architecture', include: ['test/architecture/**/*.test.ts'], ...BUSY_MACHINE } },
      // The packed tarball installed into a fresh project, and the Dockerfile's runtime stage.
      // One install of the tarball for the whole run (its global setup), copied by the files that need one.
      {
        test: {
          name: 'package',
          include: ['test/package/**/*.test.ts'],
          globalSetup: ['test/package/consumer-setup.ts'],
          ...BUSY_MACHINE,
          testTimeout: 240_000,
          hookTimeout: 300_000,
        },
      },
      // Chromium (Debian's, driven by playwright-core): the service worker, the conformance suite, the panel.
      { test: { name: 'browser', include: ['test/browser/**/*.test.ts'], ...BUSY_MACHINE, testTimeout: 90_000, hookTimeout: 180_000 } },
      {
        // The examples import the package by name, as users do; here the name points at the source.
        resolve: {
          alias: [
            { find: /^petstore-mock\/vitest$/, replacement: src('vitest.ts') },
            { find: /^petstore-mock$/, replacement: src('index.ts') },
          ],
        },
        test: { name: 'examples', include: ['examples/sdk-suite/**/*.test.ts'], ...BUSY_MACHINE },
      },
    ],
  },
})
