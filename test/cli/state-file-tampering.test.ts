/**
 * A state file or log that was tampered with, or that a crash left, as the built CLI meets it at start: whatever
 * would lose an acknowledged change stops the start (exit 2) with one line naming the file, the line and the fix;
 * what a crash can leave (a torn last line, temporary files of a snapshot rewrite) is cleaned up with a notice.
 */
import { appendFile, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ensureBuilt, eventually, killClis, postPet, runCli, startCli } from '../http/support.js'

let dir = ''
let file = ''

beforeAll(ensureBuilt, 90_000)

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'petstore-tamper-'))
  file = join(dir, 'state.json')
})

afterEach(async () => {
  await killClis()
  await rm(dir, { recursive: true, force: true })
})

const serve = (stateFile = file) => ['--port', '0', '--log', 'silent', '--state-file', stateFile]

/** A create as the log holds it. */
const logLine = (seq: number, id: number, name = `Logged ${id}`) =>
  `{"seq":${seq},"session":"default","create":{"id":${id},"name":"${name}","categoryId":1}}\n`

/** Creates one pet (id 51) and stops the CLI with SIGTERM: the state file holds it, no log is left. Returns its logSeq. */
async function savedState(): Promise<number> {
  const cli = await startCli(serve())
  expect((await postPet(cli.url, { name: 'Saved', categoryId: 1 })).status).toBe(201)
  cli.child.kill('SIGTERM')
  expect((await cli.exited).code).toBe(0)
  return (JSON.parse(await readFile(file, 'utf8')) as { logSeq: number }).logSeq
}

/** Creates pets, waits until a snapshot holds them, then kills the CLI with -9: the state file and an empty log stay. */
async function killedAfterSnapshot(stateFile = file): Promise<void> {
  const cli = await startCli(serve(stateFile))
  for (const name of ['Kept 1', 'Kept 2']) expect((await postPet(cli.url, { name, categoryId: 1 })).status).toBe(201)
  // The snapshot holds them once the state file says so and its segments of the log are deleted (a moment after).
  const segment = new RegExp(`^${basename(stateFile).replace(/\./g, '\\.')}\\.log\\.\\d+$`)
  await eventually(async () => {
    const saved = (await readFile(stateFile, 'utf8').catch(() => '')).includes('Kept 2')
    const segments = (await readdir(dirname(stateFile))).filter((name) => segment.test(name))
    return saved && segments.length === 0 ? true : undefined
  })
  cli.child.kill('SIGKILL')
  await cli.exited
}

/**
 * The state file with `from` replaced by `to`, and its digest removed, as a user who means the change does (file.ts):
 * the start then reads the edited file, and refuses what is wrong in it.
 */
async function editState(from: string | RegExp, to: string): Promise<void> {
  const text = await readFile(file, 'utf8')
  const edited = text.replace(from, to)
  expect(edited).not.toBe(text)
  await writeFile(file, edited.replace(/,"digest":"sha256:[0-9a-f]{64}"/, ''))
}

/** Runs the CLI over the state and expects it to refuse with exit 2 and a one-line message; returns that line. */
async function refusal(): Promise<string> {
  const result = await runCli(serve())
  expect(result.code, result.stderr).toBe(2)
  expect(result.stderr.trim().split('\n'), result.stderr).toHaveLength(1)
  return result.stderr
}

describe('a log that does not continue its state file', () => {
  it('refuses to start with exit 2 when a line of the log was removed, naming the file, the line and the missing change', async () => {
    const logSeq = await savedState()
    await writeFile(`${file}.log`, logLine(logSeq + 1, 52) + logLine(logSeq + 3, 54))
    const message = await refusal()
    expect(message).toContain(`${file}.log, line 2, is change ${logSeq + 3}`)
    expect(message).toContain(`change ${logSeq + 2} is missing`)
    expect(message).toContain('aside to start from the seed')
  })

  it('refuses to start with exit 2 when the log starts after the change its state file holds last', async () => {
    const logSeq = await savedState()
    await writeFile(`${file}.log`, logLine(logSeq + 2, 52))
    expect(await refusal()).toContain(`${file}.log, line 1, is change ${logSeq + 2}, but the state file holds changes up to ${logSeq}`)
  })

  it('refuses to start with exit 2 when a create reuses an id the state holds (a pet would be replaced)', async () => {
    const logSeq = await savedState()
    // Pet 3 is one of the 50 seeded pets the state file holds.
    await writeFile(`${file}.log`, logLine(logSeq + 1, 3, 'Not pet 3'))
    expect(await refusal()).toContain(`${file}.log, line 1 (change ${logSeq + 1}): create.id: pet 3 exists already`)
  })

  it('refuses to start with exit 2 when a line names no session the server could have (it was dropped without a word)', async () => {
    const logSeq = await savedState()
    await writeFile(`${file}.log`, logLine(logSeq + 1, 52).replace('"session":"default"', '"session":"bad name!"'))
    expect(await refusal()).toContain(`${file}.log, line 1 (change ${logSeq + 1}): session "bad name!" is no session name`)
  })

  it('refuses to start with exit 2 when a line of the log is repeated', async () => {
    const logSeq = await savedState()
    await writeFile(`${file}.log`, logLine(logSeq + 1, 52) + logLine(logSeq + 1, 52))
    expect(await refusal()).toContain(`${file}.log, line 2, is change ${logSeq + 1} again`)
  })

  it("refuses to start with exit 2 when the state file's logSeq is ahead of its content", async () => {
    const logSeq = await savedState()
    await writeFile(`${file}.log`, logLine(logSeq + 1, 52) + logLine(logSeq + 2, 53))
    await editState(`"logSeq":${logSeq},`, `"logSeq":${logSeq + 15},`)
    expect(await refusal()).toContain(
      `${file}.log, line 1, is change ${logSeq + 1}, which the state file says it holds already ("logSeq": ${logSeq + 15})`,
    )
  })

  it('refuses to start with exit 2 when a segment of the log is not named for its last line', async () => {
    const logSeq = await savedState()
    await writeFile(`${file}.log.${logSeq + 5}`, logLine(logSeq + 1, 52))
    expect(await refusal()).toContain(
      `${file}.log.${logSeq + 5} is named for change ${logSeq + 5}, but its last line is change ${logSeq + 1}`,
    )
  })
})

/**
 * The log files beside `stateFile`, as the refusal names them: a snapshot taken while the test wrote may have cut the
 * log into a segment (`state.json.log.N`, decisions/014-state-log-segments.md) beside the open `state.json.log`.
 */
async function logsOf(stateFile = file): Promise<string> {
  const base = stateFile.slice(stateFile.lastIndexOf('/') + 1)
  const names = (await readdir(dir)).filter(
    (name) => name === `${base}.log` || new RegExp(`^${base.replaceAll('.', '\\.')}\\.log\\.\\d+$`).test(name),
  )
  return names
    .sort((a, b) => (a === `${base}.log` ? -1 : b === `${base}.log` ? 1 : a.localeCompare(b, 'en', { numeric: true })))
    .map((name) => join(dir, name))
    .join(', ')
}

describe('a log without its state file', () => {
  it('refuses to start with exit 2 when the state file is missing while its log is there', async () => {
    await killedAfterSnapshot()
    await rm(file)
    const logs = await logsOf()
    expect(logs.startsWith(`${file}.log`)).toBe(true)
    const message = await refusal()
    expect(message).toContain(`${file} is missing, but its change log ${logs} is there`)
    expect(message).toContain(`Restore ${file} from a backup, or move ${logs} aside to start from the seed`)
  })

  it('refuses to start with exit 2 when the state file was replaced by a dangling symlink beside its log', async () => {
    await killedAfterSnapshot()
    await rm(file)
    await symlink(join(dir, 'gone.json'), file)
    expect(await refusal()).toContain(`but its change log ${await logsOf()} is there`)
  })

  it('refuses to start with exit 2 when the state file is a symlink whose target is gone while the log beside the target is there', async () => {
    const target = join(dir, 'real.json')
    await writeFile(target, '{"version":1,"sessions":{}}')
    await symlink(target, file)
    await killedAfterSnapshot()
    await rm(target)
    expect(await refusal()).toContain(`${file} is a symlink to ${target}, which is missing, but its change log ${target}.log is there`)
  })

  it('refuses to start with exit 2 when the log that continues the snapshot was emptied after a kill -9', async () => {
    await killedAfterSnapshot()
    await writeFile(`${file}.log`, '')
    expect(await refusal()).toContain(
      `but no file of ${file}.log begins with it: the log was emptied or replaced, so the changes acknowledged after the snapshot would be lost.`,
    )
  })

  it('refuses to start with exit 2 when the log that continues the snapshot was deleted after a kill -9', async () => {
    await killedAfterSnapshot()
    await rm(`${file}.log`)
    expect(await refusal()).toContain(`but ${file}.log is missing, so the changes acknowledged after the snapshot would be lost.`)
  })

  it('starts again after a kill -9 that came before its first snapshot', async () => {
    const first = await startCli(serve())
    first.child.kill('SIGKILL')
    await first.exited
    const second = await startCli(serve())
    expect((await postPet(second.url, { name: 'After', categoryId: 1 })).status).toBe(201)
  })
})

describe('a state file this petstore-mock cannot read', () => {
  it('refuses to start with exit 2 from a state file changed after it was written (a pet renamed by hand)', async () => {
    await savedState()
    const text = await readFile(file, 'utf8')
    await writeFile(file, text.replace('"name":"Saved"', '"name":"Renamed"'))
    expect(await refusal()).toContain(
      `State file ${file} was changed after petstore-mock wrote it: its "digest" is not the one of its content`,
    )
  })

  it('refuses to start with exit 2 from a state file of an unknown version', async () => {
    await savedState()
    await editState(/^\{"version":1,/, '{"version":99,')
    expect(await refusal()).toContain(`State file ${file} has version 99; this petstore-mock reads version 1.`)
  })

  it('refuses to start with exit 2 from a state file whose logSeq is not a whole number', async () => {
    const logSeq = await savedState()
    await editState(`"logSeq":${logSeq},`, '"logSeq":"soon",')
    expect(await refusal()).toContain(`State file ${file}: "logSeq" must be a whole number from 0.`)
  })

  it('refuses to start with exit 2 from a wrongly typed log entry, in one line naming the file, the line and the field', async () => {
    const logSeq = await savedState()
    await writeFile(`${file}.log`, `{"seq":${logSeq + 1},"session":"default","create":{"id":52,"name":42,"categoryId":1}}\n`)
    const message = await refusal()
    expect(message).toContain(`${file}.log, line 1 (change ${logSeq + 1}): create.name:`)
    expect(message).not.toContain('invalid_type')
  })
})

describe('what a crash leaves', () => {
  it('starts over a torn last line of the log, cutting it with a notice on stderr, every acknowledged pet there', async () => {
    const first = await startCli(serve())
    const names = ['Ack 1', 'Ack 2', 'Ack 3']
    for (const name of names) expect((await postPet(first.url, { name, categoryId: 1 })).status).toBe(201)
    first.child.kill('SIGKILL')
    await first.exited
    // A create whose write a crash cut short: its answer was never sent.
    const torn = '{"seq":4,"session":"default","create":{"id":54,"na'
    await appendFile(`${file}.log`, torn)
    const second = await startCli(serve())
    const notice = await eventually(async () => second.stderr().match(/.*torn last line.*/)?.[0])
    expect(notice).toContain(`${file}.log, line `)
    expect(notice).toContain(`cut off a torn last line of ${torn.length} bytes`)
    expect(notice).toContain('never acknowledged')
    const state = (await (await fetch(`${second.url}/__mock/state`)).json()) as { pets: { name: string }[] }
    expect(state.pets.map((pet) => pet.name)).toEqual(expect.arrayContaining(names))
  })

  /** Leaves two temporary files of a snapshot rewrite beside the state file, and two files that are not its own. */
  async function leftovers(): Promise<{ temps: string[]; others: string[] }> {
    await savedState()
    const temps = ['state.json.4242.0badc0de.tmp', 'state.json.977.1234abcd.tmp']
    const others = ['other.json.4242.0badc0de.tmp', 'state.json.notes']
    for (const name of [...temps, ...others]) await writeFile(join(dir, name), '{"version":1,"logSeq":0,"sess')
    return { temps, others }
  }

  it('removes the temporary files of a snapshot rewrite a crash cut short at start, with a notice', async () => {
    const { temps } = await leftovers()
    const cli = await startCli(serve())
    const notice = await eventually(async () => cli.stderr().match(/.*temporary file.*/)?.[0])
    expect(notice).toContain(`Removed 2 temporary file(s)`)
    expect(await readdir(dir)).not.toEqual(expect.arrayContaining([temps[0]]))
    expect(await readdir(dir)).not.toEqual(expect.arrayContaining([temps[1]]))
  })

  it('leaves the files beside the state file that are not its temporary files', async () => {
    const { others } = await leftovers()
    await startCli(serve())
    expect(await readdir(dir)).toEqual(expect.arrayContaining(others))
  })
})
