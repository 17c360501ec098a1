/**
 * `--state-file` writes the creates of an event-loop turn in one write (and one fsync with `--fsync`), just before the
 * server sends the answers it held through the turn (decisions/015-answers-of-a-turn-together.md).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { parseJson } from '../../core/json.js'
import { StaleSnapshotError, type SteppedSnapshot } from '../../snapshot.js'
import { createWorld } from '../../world/create-world.js'
import { createSessions, type Sessions } from '../sessions.js'
import { readStateFile, writeStateFile } from './file.js'
import { openStateLog } from './log.js'
import { readStateLog } from './log-read.js'
import { createStateSaver } from './saver.js'

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))
/** The temporary folders this file made, removed when it ends. */
const made: string[] = []
const dir = (): string => {
  const folder = mkdtempSync(join(tmpdir(), 'petstore-state-saver-'))
  made.push(folder)
  return folder
}
afterAll(() => {
  for (const folder of made) rmSync(folder, { recursive: true, force: true })
})
/** The changes a file of the log holds: its lines but the first, which names the log (log.ts). */
const lines = (file: string): { seq: bigint | number; session: string }[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line))
    .filter((line) => 'session' in line)
/** The id the first line of a file of the log names. */
const idOf = (file: string): string => (JSON.parse(readFileSync(file, 'utf8').split('\n')[0] as string) as { log: string }).log
const pet = (name: string) => ({ name, categoryId: 1n })

describe('state log: queued lines', () => {
  it('writes nothing until flushed, then every queued line in order with its own number', () => {
    const file = join(dir(), 'state.json.log')
    const log = openStateLog(file, { fsync: false, seq: 7, wholeBytes: 0 })
    log.queue('default', 'create', '{"id":1}')
    log.queue('qa', 'create', '{"id":2}')
    expect(log.pending).toBe(true)
    expect(lines(file)).toEqual([])
    log.flush()
    expect(log.pending).toBe(false)
    expect(lines(file)).toEqual([
      { seq: 8, session: 'default', create: { id: 1 } },
      { seq: 9, session: 'qa', create: { id: 2 } },
    ])
    log.close(false)
  })

  /** A log with a line queued, then one appended. */
  function queuedThenAppended() {
    const file = join(dir(), 'state.json.log')
    const log = openStateLog(file, { fsync: true, seq: 0, wholeBytes: 0 })
    log.queue('default', 'create', '{"id":1}')
    log.append('default', 'state', '{"pets":[]}')
    return { file, log }
  }

  it('writes the queued lines ahead of an appended one', () => {
    const { file, log } = queuedThenAppended()
    expect(lines(file).map((line) => [line.seq, 'create' in line])).toEqual([
      [1, true],
      [2, false],
    ])
    log.close(false)
  })

  it('writes the queued lines before a snapshot marks the log', () => {
    const { file, log } = queuedThenAppended()
    log.queue('default', 'create', '{"id":2}')
    expect(log.mark().seq).toBe(3)
    // The marked segment holds the queued line: the snapshot taken at the mark may drop it.
    expect(lines(`${file}.3`).map((line) => line.seq)).toEqual([1, 2, 3])
    log.queue('default', 'create', '{"id":3}')
    log.close(false)
    expect(lines(file).map((line) => line.seq)).toEqual([4])
  })

  it('keeps the log open and appended to when a snapshot cannot move it aside', () => {
    const { file, log } = queuedThenAppended()
    // A folder where the segment would go: the rename fails (EISDIR), as in a folder made read-only.
    mkdirSync(`${file}.2`)
    expect(() => log.mark()).toThrow()
    log.append('default', 'create', '{"id":2}')
    expect(lines(file).map((line) => line.seq)).toEqual([1, 2, 3])
    rmdirSync(`${file}.2`)
    expect(log.mark().seq).toBe(3)
    log.append('default', 'create', '{"id":3}')
    log.close(false)
    expect(lines(`${file}.3`).map((line) => line.seq)).toEqual([1, 2, 3])
    expect(lines(file).map((line) => line.seq)).toEqual([4])
  })

  it('cuts a short write back to the last whole line and numbers the next lines on from it, so the log reads back whole', () => {
    const file = join(dir(), 'state.json.log')
    let short = false
    // The first write after `short` is set stops halfway, as a full disk or a file size limit makes it.
    const write = (fd: number, text: string): number => {
      const bytes = Buffer.from(text)
      const cut = short ? bytes.subarray(0, bytes.length >> 1) : bytes
      short = false
      return writeSync(fd, cut)
    }
    const log = openStateLog(file, { fsync: false, seq: 0, wholeBytes: 0, write })
    log.append('default', 'create', '{"id":51}')
    short = true
    expect(() => log.append('default', 'create', '{"id":52}')).toThrow(/short write/)
    log.append('default', 'create', '{"id":53}')
    log.close(false)
    expect(readStateLog(file, 0).lines.map((line) => [line.seq, (line as { create: { id: number } }).create.id])).toEqual([
      [1, 51n],
      [2, 53n],
    ])
  })
})

describe('state saver: the creates of a turn in one write', () => {
  async function saverWithLog(fsync = false) {
    const folder = dir()
    let sessions: Sessions | undefined
    const saver = createStateSaver(join(folder, 'state.json'), { fsync, sessions: () => sessions as Sessions })
    sessions = createSessions({ pets: 0, seed: 1 }, 10)
    await saver.load()
    // The storage of a session, writing each create ahead into the log.
    const data = saver.dataFor?.('default')
    if (!data) throw new Error('a saver with a file gives storage')
    return { saver, data, log: join(folder, 'state.json.log') }
  }

  for (const fsync of [false, true]) {
    it(`writes the creates it queued all at once when flushed${fsync ? ', with --fsync' : ''}`, async () => {
      const { saver, data, log } = await saverWithLog(fsync)
      for (const name of ['Rex', 'Fido', 'Tom']) data.repository.add(pet(name))
      expect(lines(log)).toEqual([])
      saver.flush()
      expect(lines(log).map((line) => [line.seq, (line as unknown as { create: { name: string } }).create.name])).toEqual([
        [1, 'Rex'],
        [2, 'Fido'],
        [3, 'Tom'],
      ])
      await saver.close()
    })
  }

  it('writes the queued creates soon after the turn when no answer flushes them (an answer held by a latency)', async () => {
    const { saver, data, log } = await saverWithLog()
    data.repository.add(pet('Rex'))
    expect(lines(log)).toEqual([])
    // A loop after the turn's end, so the flush before the turn's answers (which decides them) comes first.
    await turn()
    await turn()
    expect(lines(log)).toHaveLength(1)
    await saver.close()
  })
})

describe('the snapshot written in steps', () => {
  /** A world's stepped snapshot whose pets go stale after `checks` looks. */
  function staleAfter(checks: number): SteppedSnapshot {
    const stepped = createWorld({ seed: 2, pets: 5_000 }).snapshotInSteps()
    let looks = 0
    return { ...stepped, pets: { ...stepped.pets, current: () => ++looks <= checks } }
  }

  it('gives up when the pets change while it is written, leaving the old file in place with no temporary file beside it', async () => {
    const folder = dir()
    const file = join(folder, 'state.json')
    writeFileSync(file, '{"the old":"file"}')
    // 5,000 pets: five pieces of a thousand, with writes of 64 KiB (awaited) between them.
    const write = writeStateFile(file, { version: 1, logSeq: 4, sessions: new Map([['default', staleAfter(3)]]) })
    await expect(write).rejects.toThrow(StaleSnapshotError)
    expect(readFileSync(file, 'utf8')).toBe('{"the old":"file"}')
    expect(readdirSync(folder)).toEqual(['state.json'])
  })

  it('writes the last snapshot at shutdown as a copy when the pets change during the stepped one, then drops the log', async () => {
    const folder = dir()
    const file = join(folder, 'state.json')
    let sessions: Sessions | undefined
    const saver = createStateSaver(file, { fsync: false, sessions: () => sessions as Sessions })
    sessions = createSessions({ pets: 1_500, seed: 1 }, 10, saver.dataFor)
    await saver.load()
    const world = sessions.main
    const created = world.handle({
      method: 'POST',
      path: '/v1/pets',
      query: '',
      headers: { authorization: 'Bearer test-pro', 'content-type': 'application/json' },
      body: '{"name":"Kept 🐕","categoryId":2}',
    })
    expect(created instanceof Promise ? undefined : created.status).toBe(201)
    saver.flush()
    world.snapshotInSteps = () => staleAfter(0)
    await saver.close()
    const content = await readStateFile(file)
    const pets = content?.sessions.get('default')?.pets ?? []
    expect(pets).toHaveLength(1_501)
    expect(pets.at(-1)?.name).toBe('Kept 🐕')
    expect(existsSync(`${file}.log`)).toBe(false)
    expect(parseJson(readFileSync(file, 'utf8')).ok).toBe(true)
  })
})

describe('the log that continues a snapshot, and the digest of the snapshot', () => {
  /** A server's saver started on `file`, with three seeded pets. */
  async function started(file: string) {
    let sessions: Sessions | undefined
    const saver = createStateSaver(file, { fsync: false, sessions: () => sessions as Sessions })
    sessions = createSessions({ pets: 3, seed: 1 }, 10, saver.dataFor)
    await saver.load()
    return { saver, world: sessions.main }
  }
  const create = (world: Sessions['main'], name: string): void => {
    const answer = world.handle({
      method: 'POST',
      path: '/v1/pets',
      query: '',
      headers: { authorization: 'Bearer test-pro', 'content-type': 'application/json' },
      body: JSON.stringify({ name, categoryId: 2 }),
    })
    expect(answer instanceof Promise ? undefined : answer.status).toBe(201)
  }
  /** A server that wrote a snapshot naming its log, then acknowledged one more create and was killed (never closed). */
  async function killedAfterACreate() {
    const file = join(dir(), 'state.json')
    const { saver, world } = await started(file)
    const id = idOf(`${file}.log`)
    // A state file that does not name the log is rewritten soon after the start, naming it.
    await vi.waitFor(async () => expect((await readStateFile(file))?.log).toBe(id), { timeout: 20_000, interval: 50 })
    create(world, 'Acknowledged')
    expect(saver.flush()).toBe(true)
    return { file, saver }
  }
  const pets = async (file: string) => (await readStateFile(file))?.sessions.get('default')?.pets.map((pet) => pet.name)

  it('begins a fresh log with a line naming it, and a new log after each snapshot with a new id', () => {
    const file = join(dir(), 'state.json.log')
    const log = openStateLog(file, { fsync: false, seq: 7, wholeBytes: 0 })
    const first = log.id
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ seq: 7, log: first })
    log.append('default', 'create', '{"id":1}')
    expect(log.mark()).toEqual({ seq: 8, id: log.id })
    expect(log.id).not.toBe(first)
    expect(idOf(`${file}.8`)).toBe(first)
    expect(idOf(file)).toBe(log.id)
    // No change since the last mark: the log stays where it is, with its id.
    expect(log.mark()).toEqual({ seq: 8, id: log.id })
    log.close(false)
  })

  it('starts again after a kill with the acknowledged create, from the snapshot and its log', async () => {
    const { file } = await killedAfterACreate()
    const again = await started(file)
    expect(again.world.snapshot().pets.map((pet) => pet.name)).toContain('Acknowledged')
    await again.saver.close()
    expect(await pets(file)).toContain('Acknowledged')
  })

  it('starts again when the log holds no change since the snapshot (only its first line)', async () => {
    const file = join(dir(), 'state.json')
    await started(file) // then killed: never closed
    await vi.waitFor(async () => expect((await readStateFile(file))?.log).toBe(idOf(`${file}.log`)), { timeout: 20_000, interval: 50 })
    expect(lines(`${file}.log`)).toEqual([])
    const again = await started(file)
    await again.saver.close()
  })

  it('refuses to start when the log was emptied after it acknowledged a create, naming the log and the fix', async () => {
    const { file } = await killedAfterACreate()
    writeFileSync(`${file}.log`, '')
    await expect(started(file)).rejects.toThrow(
      `but no file of ${file}.log begins with it: the log was emptied or replaced, so the changes acknowledged after the snapshot would be lost. Restore ${file} and its log from a backup`,
    )
  })

  it('refuses to start when the log was deleted after it acknowledged a create', async () => {
    const { file } = await killedAfterACreate()
    rmSync(`${file}.log`)
    await expect(started(file)).rejects.toThrow(`but ${file}.log is missing, so the changes acknowledged after the snapshot would be lost.`)
  })

  it('names no log in the snapshot of a clean stop, whose log it removes: the next start begins a new one', async () => {
    const file = join(dir(), 'state.json')
    const { saver, world } = await started(file)
    create(world, 'Kept')
    await saver.close()
    expect(existsSync(`${file}.log`)).toBe(false)
    expect((await readStateFile(file))?.log).toBeUndefined()
    const again = await started(file)
    expect(again.world.snapshot().pets.map((pet) => pet.name)).toContain('Kept')
    await again.saver.close()
  })

  it('refuses a snapshot edited after it was written (a pet removed by hand), and reads it once its digest is deleted', async () => {
    const file = join(dir(), 'state.json')
    const { saver, world } = await started(file)
    create(world, 'Removed by hand')
    await saver.close()
    const text = readFileSync(file, 'utf8')
    expect(text).toMatch(/,"digest":"sha256:[0-9a-f]{64}"\}\n$/)
    const edited = text.replace(/,\{[^{}]*"name":"Removed by hand"[^{}]*\}/, '')
    expect(edited).not.toBe(text)
    writeFileSync(file, edited)
    await expect(readStateFile(file)).rejects.toThrow(
      `State file ${file} was changed after petstore-mock wrote it: its "digest" is not the one of its content, so what it acknowledged may be missing. Restore it from a backup; or, if the change was yours, delete its "digest" field and start again.`,
    )
    writeFileSync(file, edited.replace(/,"digest":"sha256:[0-9a-f]{64}"/, ''))
    expect(await pets(file)).not.toContain('Removed by hand')
    expect(await pets(file)).toHaveLength(3)
  })
})
