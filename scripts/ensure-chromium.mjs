#!/usr/bin/env node
// Makes sure the Chromium the browser tests drive (through playwright-core) is installed at
// /usr/bin/chromium (or CHROMIUM_PATH). `npx playwright install` downloads from a CDN; this uses the
// distribution's package instead: `apt-get install chromium` on Debian and Ubuntu, when run as root.
//
//   npm run browser:install
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const log = (line) => console.log(`[browser:install] ${line}`)

if (existsSync(path)) {
  log(`Chromium found at ${path}.`)
  process.exit(0)
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0
const hasApt = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0
if (!isRoot || !hasApt) {
  console.error(
    [
      `[browser:install] Chromium is not installed at ${path}, and this script can only install it as root with apt-get.`,
      '  Debian/Ubuntu:  sudo apt-get update && sudo apt-get install -y chromium   (Ubuntu without snap: chromium-browser)',
      '  Elsewhere:      install Chromium or Chrome, then run the tests with CHROMIUM_PATH=/path/to/chromium',
    ].join('\n'),
  )
  process.exit(1)
}

const run = (args) => {
  log(`apt-get ${args.join(' ')}`)
  const result = spawnSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
  if (result.status !== 0) {
    console.error(`[browser:install] apt-get ${args[0]} failed (exit code ${result.status ?? result.signal}).`)
    process.exit(1)
  }
}

log('Chromium is missing: installing the Debian package (this can take a few minutes).')
run(['update'])
run(['install', '-y', '--no-install-recommends', 'chromium'])
if (!existsSync(path)) {
  console.error(`[browser:install] apt-get installed chromium, but ${path} is still missing: set CHROMIUM_PATH to its binary.`)
  process.exit(1)
}
log(`Chromium installed at ${path}.`)
