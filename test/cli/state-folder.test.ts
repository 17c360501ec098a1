/**
 * The state file's folder at start (src/cli/serve.ts `ensureStateFolder`): a missing one is created as `mkdir -p`
 * does, with a one-line notice, so the config example of docs/server.md (`"stateFile": "./state/petstore.json"`) runs as
 * written; one that cannot be made stops the start with exit 2, naming where the path came from and the fix.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ensureBuilt, killClis, ROOT, runCli, startCli } from '../http/support.js'

let dir = ''

beforeAll(ensureBuilt, 90_000)
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'petstore-state-folder-'))
})
afterEach(async () => {
  await killClis()
  await rm(dir, { recursive: true, force: true })
})

const isFolder = (path: string) => stat(path).then((found) => found.isDirectory())

describe('a missing folder of the state file', () => {
  it('is created, with a one-line notice, when the config file names it', async () => {
    const file = join(dir, 'petstore-mock.json')
    await writeFile(file, JSON.stringify({ port: 0, log: 'silent', stateFile: './state/deep/petstore.json' }))
    const cli = await startCli(['--config', file])
    expect(await isFolder(join(dir, 'state', 'deep'))).toBe(true)
    expect(cli.stderr()).toBe(`petstore-mock: created ${join(dir, 'state', 'deep')} for the state file\n`)
    expect(cli.stdout()).toContain(`state file ${join(dir, 'state', 'deep', 'petstore.json')}`)
  })

  it('is created when --state-file names it', async () => {
    const cli = await startCli(['--port', '0', '--log', 'silent', '--state-file', join(dir, 'new', 'state.json')])
    expect(await isFolder(join(dir, 'new'))).toBe(true)
    expect(cli.stderr()).toContain('created')
  })

  it('lets the example of the section "A config file" of docs/server.md run as written (the port given as a flag)', async () => {
    const guide = await readFile(join(ROOT, 'docs', 'server.md'), 'utf8')
    const example = /```json\n([\s\S]*?)```/.exec(guide.slice(guide.indexOf('## A config file')))?.[1] ?? ''
    expect(JSON.parse(example)).toHaveProperty('stateFile')
    const file = join(dir, 'petstore-mock.json')
    await writeFile(file, example)
    const cli = await startCli(['--config', file, '--port', '0', '--log', 'silent'])
    expect(await isFolder(join(dir, 'state'))).toBe(true)
    expect(cli.stdout()).toContain(`Config file ${file}`)
  })
})

describe('a folder of the state file that cannot be made', () => {
  /** A file where the state file's folder would go. */
  const blocker = async () => {
    await writeFile(join(dir, 'blocker'), 'not a folder')
    return join(dir, 'blocker')
  }
  const fix = 'is in the way (it is not a folder). Move it aside, or point it at another folder.'

  it('stops the start with exit 2, naming the config file and its key', async () => {
    const blocked = await blocker()
    const file = join(dir, 'petstore-mock.json')
    await writeFile(file, JSON.stringify({ port: 0, stateFile: 'blocker/state/petstore.json' }))
    expect(await runCli(['--config', file])).toEqual({
      code: 2,
      stdout: '',
      stderr: `petstore-mock: ${file}: stateFile: the state file's folder ${join(blocked, 'state')} cannot be made: ${blocked} ${fix}\n`,
    })
  })

  it('names --state-file or PETSTORE_STATE_FILE when the path came from there', async () => {
    const stateFile = join(await blocker(), 'state.json')
    const fromFlag = await runCli(['--port', '0', '--state-file', stateFile])
    expect(fromFlag.code).toBe(2)
    expect(fromFlag.stderr).toMatch(/^petstore-mock: --state-file: the state file's folder .*blocker cannot be made/)
    const fromEnv = await runCli(['--port', '0'], { PETSTORE_STATE_FILE: stateFile })
    expect(fromEnv.code).toBe(2)
    expect(fromEnv.stderr).toMatch(/^petstore-mock: PETSTORE_STATE_FILE: the state file's folder .*blocker cannot be made/)
  })
})
