#!/usr/bin/env node
// Makes sure `wrk` (the HTTP load generator every server benchmark drives) is on PATH before `npm run bench`.
// When it is missing, this installs Debian's package (`apt-get install wrk`, through sudo when not root); a fresh
// machine has no wrk, and the benchmarks used to stop with a TypeError instead of saying so.
//
//   node scripts/ensure-wrk.mjs
import { spawnSync } from 'node:child_process'
import { aptInstall, cannotInstall } from './apt.mjs'

const log = (line) => console.log(`[wrk:install] ${line}`)
const manual = [
  'Debian/Ubuntu:  sudo apt-get update && sudo apt-get install -y wrk',
  'macOS:          brew install wrk',
  'Elsewhere:      build it from https://github.com/wg/wrk and put it on PATH.',
]
const fail = (line) => {
  console.error([`[wrk:install] ${line}`, ...manual.map((text) => `  ${text}`)].join('\n'))
  process.exit(1)
}
// `wrk -v` prints its version and exits 1; a missing command has no status at all.
const version = () => spawnSync('wrk', ['-v'], { encoding: 'utf8' }).stdout?.split('\n')[0]?.trim()

if (version()) process.exit(0)
const unable = cannotInstall('wrk')
if (unable) fail(unable)
log('wrk is missing: installing the Debian package wrk.')
const problem = aptInstall('wrk', log)
if (problem !== undefined) fail(problem)
if (!version()) fail('apt-get installed wrk, but it is still not on PATH (Debian puts it in /usr/bin).')
log(`installed: ${version()}`)
