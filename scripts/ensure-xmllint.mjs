#!/usr/bin/env node
// Makes sure `xmllint` (libxml2's validator) is on PATH: the report card's JUnit report is validated with it against
// the Jenkins JUnit schema (test/cli/check-client.test.ts). When it is missing, this installs Debian's package
// libxml2-utils (`apt-get install`, through sudo when not root).
//
//   node scripts/ensure-xmllint.mjs
import { spawnSync } from 'node:child_process'
import { aptInstall, cannotInstall } from './apt.mjs'

const log = (line) => console.log(`[xmllint:install] ${line}`)
const fail = (line) => {
  console.error(
    `[xmllint:install] ${line}\n  Debian/Ubuntu:  sudo apt-get install -y libxml2-utils\n  macOS:          it comes with the system`,
  )
  process.exit(1)
}
const version = () => spawnSync('xmllint', ['--version'], { encoding: 'utf8' }).stderr?.split('\n')[0]?.trim()

if (version()) process.exit(0)
const unable = cannotInstall('xmllint')
if (unable) fail(unable)
log('xmllint is missing: installing the Debian package libxml2-utils.')
const problem = aptInstall('libxml2-utils', log)
if (problem !== undefined) fail(problem)
if (!version()) fail('apt-get installed libxml2-utils, but xmllint is still not on PATH.')
log(`installed: ${version()}`)
