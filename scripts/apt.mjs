// Installs Debian packages for the project's own scripts (`ensure-redis.mjs`, `ensure-wrk.mjs`): `apt-get` as root,
// or through `sudo -n` (never a password prompt, so tests and benchmarks never hang waiting for one).
import { spawnSync } from 'node:child_process'

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0
const sudo = isRoot ? [] : ['sudo', '-n']

/** Why `command` cannot be installed here (no apt-get; neither root nor password-less sudo), or `undefined`. */
export function cannotInstall(command) {
  if (spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status !== 0)
    return `${command} is not on PATH, and this script can only install it with apt-get.`
  if (!isRoot && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status !== 0)
    return `${command} is not on PATH, and installing it needs root: run as root, or with sudo that needs no password.`
  return undefined
}

/** Runs a shell line as root (directly, or through `sudo -n`); `true` when it succeeded. */
export function asRoot(line) {
  const [file, ...rest] = [...sudo, 'sh', '-c', line]
  return spawnSync(file, rest, { stdio: 'inherit' }).status === 0
}

/**
 * `apt-get install -y --no-install-recommends <pkg>`. The package lists may be missing or stale (a fresh container):
 * install first, and update and retry only if needed. `undefined` when installed, else what failed.
 */
export function aptInstall(pkg, log) {
  const run = (args) => {
    const [file, ...rest] = [...sudo, 'apt-get', ...args]
    log([file, ...rest].join(' '))
    const result = spawnSync(file, rest, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
    return result.status === 0 ? undefined : (result.status ?? result.signal)
  }
  const install = ['install', '-y', '--no-install-recommends', pkg]
  let failed = run(install)
  if (failed === undefined) return undefined
  log(`apt-get install failed (exit code ${failed}): updating the package lists and trying again.`)
  const updateFailed = run(['update'])
  if (updateFailed !== undefined) return `apt-get update failed (exit code ${updateFailed}).`
  failed = run(install)
  return failed === undefined ? undefined : `apt-get install ${pkg} failed (exit code ${failed}).`
}
