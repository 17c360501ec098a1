#!/usr/bin/env node
// Makes sure `redis-server` (and `redis-cli`) are on PATH for the `--redis` tests (issue #17): each test file
// starts a private redis-server on a free loopback port. When it is missing, this installs Debian's package
// (`apt-get install redis-server`, through sudo when not root). It never starts the system service.
//
//   node scripts/ensure-redis.mjs
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { aptInstall, asRoot, cannotInstall } from './apt.mjs'

const log = (line) => console.log(`[redis:install] ${line}`)
const fail = (lines) => {
  console.error([`[redis:install] ${lines[0]}`, ...lines.slice(1).map((line) => `  ${line}`)].join('\n'))
  process.exit(1)
}
const found = (command) => spawnSync(command, ['--version'], { stdio: 'ignore' }).status === 0

if (found('redis-server')) {
  const version = spawnSync('redis-server', ['--version'], { encoding: 'utf8' }).stdout.trim()
  log(`redis-server found (${version}).`)
  process.exit(0)
}

const manual = [
  'Debian/Ubuntu:  sudo apt-get update && sudo apt-get install -y redis-server',
  'macOS:          brew install redis',
  'Elsewhere:      install Redis 6 or newer so that redis-server and redis-cli are on PATH (https://redis.io/docs/latest/operate/oss_and_stack/install/).',
]
const unable = cannotInstall('redis-server')
if (unable) fail([unable, ...manual])

// Debian's way to keep a package from starting its service: a policy-rc.d that answers 101 ("action forbidden"),
// which invoke-rc.d and deb-systemd-invoke both honour. Put in place only for the install, and only if none exists.
const POLICY = '/usr/sbin/policy-rc.d'
const ownPolicy = !existsSync(POLICY)
if (ownPolicy) {
  log(`writing ${POLICY} (exit 101) for the install, so the redis-server service is not started`)
  if (!asRoot(`printf '#!/bin/sh\\nexit 101\\n' > ${POLICY} && chmod 755 ${POLICY}`))
    fail([`Could not write ${POLICY}; not installing, so as not to start the redis-server service.`, ...manual])
}
log('redis-server is missing: installing the Debian package redis-server (the system service is not started).')
const problem = aptInstall('redis-server', log)
if (ownPolicy) {
  log(`removing ${POLICY}`)
  asRoot(`rm -f ${POLICY}`)
}
if (problem !== undefined) fail([problem, ...manual])
if (!found('redis-server')) fail(['apt-get installed redis-server, but it is still not on PATH (Debian puts it in /usr/bin).', ...manual])
if (!found('redis-cli')) log('redis-cli is not on PATH; the tests do not need it (they PING over TCP).')
log('redis-server installed. The tests start their own on free loopback ports; the system service is left alone.')
