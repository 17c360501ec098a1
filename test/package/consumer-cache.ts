/**
 * The consumer project's installed dependencies, kept between runs of `npm test` on one machine: a run whose project
 * asks for the same packages as one of today's earlier runs copies that run's node_modules (hard links) and installs
 * only the new tarball into it, instead of installing everything again (half a minute of a busy machine's CPU in each
 * lane). What a cached copy holds is checked, not trusted: the installed petstore-mock must be this run's tarball, byte
 * for byte in its package.json and its main entry, or the run fails naming the cache to remove.
 * Entries are keyed by the project's package.json, the tarball's own dependencies, the Node version and the UTC date
 * (so a range like msw's `^2.12.0` is resolved afresh each day); entries of earlier days are removed.
 * A fresh machine has none: its first run installs as before and fills one.
 */
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { cp, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)
const CACHE = join(tmpdir(), 'petstore-mock-consumer-cache')
const DAY_MS = 24 * 60 * 60 * 1000

/** A file of the tarball, read with tar. */
type TarballFile = (path: string) => Promise<string>

/**
 * Fills `project/node_modules` (its package.json written) for the tarball `fileOf` reads: from today's cache entry for the same
 * packages when there is one, else by `install()`, which then fills the entry.
 */
export async function installCached(project: string, fileOf: TarballFile, install: () => Promise<void>): Promise<string> {
  const manifest = await fileOf('package/package.json')
  const own = JSON.parse(manifest) as Record<string, unknown>
  const key = createHash('sha256')
    .update(await readFile(join(project, 'package.json'), 'utf8'))
    .update(JSON.stringify([own['dependencies'], own['peerDependencies'], own['optionalDependencies'], own['bin']]))
    .update(JSON.stringify([process.version, new Date().toISOString().slice(0, 10)]))
    .digest('hex')
    .slice(0, 16)
  const entry = join(CACHE, key)
  await dropOldEntries()
  if (existsSync(join(entry, 'complete'))) {
    await fromEntry(entry, project)
    await install()
    await checkInstalled(project, manifest, fileOf, entry)
    return `copied from ${entry}, this tarball installed into it`
  }
  await install()
  await fillEntry(entry, project)
  return `installed, kept in ${entry} for the next runs`
}

/** The entry's node_modules hard-linked into `project`, its petstore-mock left out and unknown to the lock file. */
async function fromEntry(entry: string, project: string): Promise<void> {
  // Hard links where the system can (npm replaces a package's files rather than writing into them); removing a
  // folder of the copy unlinks only the copy's names.
  if (process.platform === 'linux') await run('cp', ['-al', join(entry, 'node_modules'), join(project, 'node_modules')])
  else await cp(join(entry, 'node_modules'), join(project, 'node_modules'), { recursive: true, verbatimSymlinks: true })
  await rm(join(project, 'node_modules', 'petstore-mock'), { recursive: true, force: true })
  // npm rewrites its record of the tree in place: the copy's must be a file of its own, and without it npm reads the tree.
  await rm(join(project, 'node_modules', '.package-lock.json'), { force: true })
  // The lock file names the tarball of the run that filled the entry (its integrity): without that entry npm installs
  // this run's tarball and writes its own.
  const lock = JSON.parse(await readFile(join(entry, 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> }
  delete lock.packages['node_modules/petstore-mock']
  await writeFile(join(project, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`)
}

/** Fails unless the project's petstore-mock is this run's tarball (its package.json and main entry). */
async function checkInstalled(project: string, manifest: string, fileOf: TarballFile, entry: string): Promise<void> {
  const installed = join(project, 'node_modules', 'petstore-mock')
  const main = 'dist/src/index.js'
  const same =
    (await readFile(join(installed, 'package.json'), 'utf8').catch(() => '')) === manifest &&
    (await readFile(join(installed, main), 'utf8').catch(() => '')) === (await fileOf(`package/${main}`))
  if (!same) throw new Error(`The consumer project from ${entry} does not hold this run's tarball: remove ${CACHE} and run again.`)
}

/** Copies the freshly installed project's node_modules and lock file into `entry`, whole or not at all. */
async function fillEntry(entry: string, project: string): Promise<void> {
  const partial = `${entry}.${process.pid}.part`
  await rm(partial, { recursive: true, force: true })
  await mkdir(partial, { recursive: true })
  await cp(join(project, 'node_modules'), join(partial, 'node_modules'), { recursive: true, verbatimSymlinks: true })
  await cp(join(project, 'package-lock.json'), join(partial, 'package-lock.json'))
  await writeFile(join(partial, 'complete'), new Date().toISOString())
  await rm(entry, { recursive: true, force: true })
  await rename(partial, entry)
}

/** Removes the entries (and half-written ones) older than a day. */
async function dropOldEntries(): Promise<void> {
  const names = await readdir(CACHE).catch(() => [] as string[])
  for (const name of names) {
    const path = join(CACHE, name)
    const { mtimeMs } = await stat(path)
    if (Date.now() - mtimeMs > DAY_MS) await rm(path, { recursive: true, force: true })
  }
}
