#!/usr/bin/env node
// Makes sure `wrk` (the HTTP load generator every server benchmark drives) is on PATH before `npm run bench`.
// When it is missing, this installs Debian's package (`apt-get install wrk`, through sudo when not root); a fresh
// machine has no wrk, and the benchmarks used to stop with a TypeError instead of saying so.
//
//   node scripts/ensure-wrk.mjs
import { spawnSync } from 'node:child_process'

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
if (spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status !== 0)
  fail('wrk is not on PATH, and this script can only install it with apt-get.')
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0
// Not root: sudo without a password prompt (-n), so the benchmarks never hang waiting for one.
const sudo = isRoot ? [] : ['sudo', '-n']
if (!isRoot && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status !== 0)
  fail('wrk is not on PATH, and installing it needs root: run as root, or with sudo that needs no password.')

const aptGet = (args) => {
  const [file, ...rest] = [...sudo, 'apt-get', ...args]
  log([file, ...rest].join(' '))
  return spawnSync(file, rest, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status === 0
}
log('wrk is missing: installing the Debian package wrk.')
// The package lists may be missing or stale (a fresh container): install first, update and retry only if needed.
const installed =
  aptGet(['install', '-y', '--no-install-recommends', 'wrk']) ||
  (aptGet(['update']) && aptGet(['install', '-y', '--no-install-recommends', 'wrk']))
if (!installed) fail('apt-get could not install wrk.')
if (!version()) fail('apt-get installed wrk, but it is still not on PATH (Debian puts it in /usr/bin).')
log(`installed: ${version()}`)
