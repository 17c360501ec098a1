/**
 * Which vitest files each lane of `npm test` runs (decisions/019). One list each, read by scripts/test.mjs (the main
 * lane, the machine's Node: the oldest we support) and scripts/msw3-lane.mjs (the Node 24 lane: today's Node, msw 3,
 * vitest 5). Paths are vitest filters: a file, a folder, or a name every host's file shares.
 */

/** What can differ between runtimes, msw or Chromium: run in both lanes. */
export const BOTH_LANES = [
  'conformance.test.ts',
  'test/cli/cli.test.ts',
  'test/browser/example.test.ts',
  'test/browser/bundle.test.ts',
  'test/browser/panel-in-page.test.ts',
  'examples/',
  'test/package/pack.test.ts',
  'test/package/doc-blocks.test.ts',
  'test/package/vitest-browser.test.ts',
]

/**
 * Run once, in the Node 24 lane only: the Dockerfile's runtime stage (its image is node:24-slim), and the report card
 * grading the shipped client scripts from the installed tarball (42 CPU-seconds a lane; the card's verdicts are judged
 * in-process, test/http/check-card.test.ts, and the CLI's card on the main lane, test/cli/check-client.test.ts, so a
 * second grading on the oldest Node could not differ). Everything else not in BOTH_LANES runs on the main lane only.
 */
export const NODE24_ONLY = ['test/package/dockerfile.test.ts', 'test/package/check-client.test.ts']
