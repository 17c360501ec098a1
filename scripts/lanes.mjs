/**
 * Which vitest files each lane of `npm test` runs (decisions/019). Read by scripts/test.mjs and scripts/msw3-lane.mjs.
 *
 * - Today's lane (scripts/msw3-lane.mjs --all: Node 24 from the npm registry, msw 3, vitest 5, TypeScript 7) runs
 *   every file: users arrive with these tools, so every behaviour is checked on them.
 * - The oldest lane (the machine's Node, 20, with the repository's msw 2.12 and vitest 4: the oldest we support) runs
 *   the files below: what a user on those tools meets and what could differ there. Paths are vitest filters.
 */
export const OLDEST_LANE = [
  // The spec's every documented status, body and header in each Node host, on msw 2 (not Chromium: its test is the
  // browser example below, msw 2's service worker in a page).
  'test/in-process/conformance.test.ts',
  'test/express/conformance.test.ts',
  'test/http/conformance.test.ts',
  // Not Redis replicas: the server on this Node is the HTTP conformance above, and the Redis store is the same
  // JavaScript on either Node; today's lane runs them (decisions/027).
  'test/browser/example.test.ts',
  // What a user on Node 20 installs (npm picks msw 2 there) and runs: the tarball with npx, setupServer, Jest,
  // node:test and the bundle; the README's and docs' code blocks; the example SDK suite on vitest 4.
  'test/package/pack.test.ts',
  'test/package/doc-blocks.test.ts',
  'examples/',
]
