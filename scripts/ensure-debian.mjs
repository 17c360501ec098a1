#!/usr/bin/env node
/**
 * Makes sure the machine's tools the tests and benchmarks drive are on PATH, installing what is missing from
 * Debian's packages in ONE apt-get call (apt-get holds the dpkg lock: three installs started at once fail on a
 * fresh machine with "Could not get lock /var/lib/dpkg/lock-frontend"). The call also waits for a lock another
 * apt-get holds (DPkg::Lock::Timeout) instead of failing.
 *
 *   node scripts/ensure-debian.mjs chromium redis xmllint     # what `npm test` needs
 *   node scripts/ensure-debian.mjs wrk                        # what `npm run bench` needs
 *
 * Tools: chromium (the browser tests, driven by playwright-core at /usr/bin/chromium or CHROMIUM_PATH), redis
 * (redis-server for the --redis tests: each test file starts its own on a free loopback port; the system service is
 * never started), xmllint (the report card's JUnit report is validated with it), wrk (the load generator of bench/).
 * As root, or through `sudo -n` (never a password prompt).
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const log = (line) => console.log(`[debian] ${line}`)
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0
const sudo = isRoot ? [] : ['sudo', '-n']
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const runs = (command, args) => spawnSync(command, args, { stdio: 'ignore' }).error === undefined

/** Each tool: the Debian package that brings it, how to tell it is there, and what to do by hand elsewhere. */
const TOOLS = {
  chromium: {
    pkg: 'chromium',
    present: () => existsSync(chromiumPath),
    manual: 'Debian/Ubuntu: apt-get install chromium; elsewhere install Chromium or Chrome and set CHROMIUM_PATH',
  },
  redis: {
    pkg: 'redis-server',
    present: () => spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0,
    manual: 'Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis (Redis 6 or newer on PATH)',
  },
  xmllint: {
    pkg: 'libxml2-utils',
    present: () => runs('xmllint', ['--version']),
    manual: 'Debian/Ubuntu: apt-get install libxml2-utils; macOS: it comes with the system',
  },
  wrk: {
    pkg: 'wrk',
    // `wrk -v` prints its version and exits 1; a missing command does not start at all.
    present: () => runs('wrk', ['-v']),
    manual: 'Debian/Ubuntu: apt-get install wrk; macOS: brew install wrk',
  },
}

const names = process.argv.slice(2)
const unknown = names.filter((name) => !(name in TOOLS))
if (names.length === 0 || unknown.length > 0) {
  console.error(`[debian] usage: node scripts/ensure-debian.mjs ${Object.keys(TOOLS).join('|')} ...`)
  process.exit(2)
}
const missing = names.filter((name) => !TOOLS[name].present())
for (const name of names) if (!missing.includes(name)) log(`${name}: found`)
if (missing.length === 0) process.exit(0)

const fail = (line) => {
  console.error(`[debian] ${line}`)
  for (const name of missing) console.error(`  ${name}: ${TOOLS[name].manual}`)
  process.exit(1)
}
if (spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status !== 0)
  fail(`${missing.join(', ')} missing, and this script can only install with apt-get.`)
if (!isRoot && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status !== 0)
  fail(`${missing.join(', ')} missing, and installing needs root: run as root, or with sudo that needs no password.`)

/** Runs a command as root with its output on ours; true when it succeeded. */
const asRoot = (args, env = {}) => {
  const [file, ...rest] = [...sudo, ...args]
  return spawnSync(file, rest, { stdio: 'inherit', env: { ...process.env, ...env } }).status === 0
}
// Wait up to 10 minutes for a dpkg lock another apt-get holds (apt 1.9.11 and later), instead of failing at once.
const apt = (args) => {
  const line = ['apt-get', '-o', 'DPkg::Lock::Timeout=600', ...args]
  log(line.join(' '))
  return asRoot(line, { DEBIAN_FRONTEND: 'noninteractive' })
}

// Debian's way to keep a package from starting its service: a policy-rc.d that answers 101 ("action forbidden"),
// which invoke-rc.d and deb-systemd-invoke both honour. Put in place for the install only, and only if none exists.
const POLICY = '/usr/sbin/policy-rc.d'
const ownPolicy = missing.includes('redis') && !existsSync(POLICY)
if (ownPolicy && !asRoot(['sh', '-c', `printf '#!/bin/sh\\nexit 101\\n' > ${POLICY} && chmod 755 ${POLICY}`]))
  fail(`Could not write ${POLICY}; not installing, so as not to start the redis-server service.`)

const packages = missing.map((name) => TOOLS[name].pkg)
const since = Date.now()
log(`missing: ${missing.join(', ')}; installing the Debian packages ${packages.join(' ')} in one apt-get call`)
// A fresh machine's package lists are often missing or stale: update first, then install.
let ok = apt(['update', '-q']) && apt(['install', '-y', '-q', '--no-install-recommends', ...packages])
if (ownPolicy) asRoot(['rm', '-f', POLICY])
if (!ok) fail(`apt-get could not install ${packages.join(' ')}.`)
ok = missing.every((name) => TOOLS[name].present())
if (!ok) fail(`apt-get installed ${packages.join(' ')}, but ${missing.filter((n) => !TOOLS[n].present()).join(', ')} is still missing.`)
log(`installed ${packages.join(' ')} in ${Math.round((Date.now() - since) / 1000)} s`)
