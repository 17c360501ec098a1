/**
 * `--state-file --fsync` writes the creates of one event-loop turn together (issue #18): their lines are queued, one
 * write and one fsync take them all at the end of the turn, and no answer waiting on that write goes out before it.
 * Without `--fsync`, each create is written at once.
 */
import { mkdtempSync, readFileSync } from 'node:fs'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createNodeDelivery, type Exchange, type WriteAhead } from './node-delivery.js'
import { createSessions, type Sessions } from './sessions.js'
import { openStateLog } from './state-log.js'
import { createStateSaver } from './state-saver.js'

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))
const dir = (): string => mkdtempSync(join(tmpdir(), 'petstore-state-saver-'))
const lines = (file: string): { seq: bigint | number; session: string }[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line))
const pet = (name: string) => ({ name, categoryId: 1n })
/** Does an answer waiting on `saver` go at once? */
const runsAtOnce = (saver: { afterWrite(then: () => void): void }): boolean => {
  let now = false
  saver.afterWrite(() => {
    now = true
  })
  return now
}

describe('state log: queued lines', () => {
  it('writes nothing until flushed, then every queued line in order with its own number', () => {
    const file = join(dir(), 'state.json.log')
    const log = openStateLog(file, { fsync: false, seq: 7, wholeBytes: 0 })
    log.queue('default', 'create', '{"id":1}')
    log.queue('qa', 'create', '{"id":2}')
    expect(log.pending).toBe(true)
    expect(readFileSync(file, 'utf8')).toBe('')
    log.flush()
    expect(log.pending).toBe(false)
    expect(lines(file)).toEqual([
      { seq: 8, session: 'default', create: { id: 1 } },
      { seq: 9, session: 'qa', create: { id: 2 } },
    ])
    log.close(false)
  })

  it('writes the queued lines ahead of an appended one, and before a snapshot marks the log', () => {
    const file = join(dir(), 'state.json.log')
    const log = openStateLog(file, { fsync: true, seq: 0, wholeBytes: 0 })
    log.queue('default', 'create', '{"id":1}')
    log.append('default', 'state', '{"pets":[]}')
    expect(lines(file).map((line) => [line.seq, 'create' in line])).toEqual([
      [1, true],
      [2, false],
    ])
    log.queue('default', 'create', '{"id":2}')
    expect(log.mark().seq).toBe(3)
    // The marked segment holds the queued line: the snapshot taken at the mark may drop it.
    expect(lines(`${file}.3`).map((line) => line.seq)).toEqual([1, 2, 3])
    log.queue('default', 'create', '{"id":3}')
    log.close(false)
    expect(lines(file).map((line) => line.seq)).toEqual([4])
  })
})

describe('state saver: with --fsync, one write per turn, answers after it', () => {
  async function saverWithLog(fsync = true) {
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

  it('holds the answers of a turn until its creates are written, then releases them in order', async () => {
    const { saver, data, log } = await saverWithLog()
    const released: string[] = []
    for (const name of ['Rex', 'Fido', 'Tom']) {
      data.repository.add(pet(name))
      saver.afterWrite(() => {
        released.push(name)
        // Each answer goes out only once its line (and every line before it) is in the log.
        expect(lines(log).length).toBe(3)
      })
    }
    expect(saver.pending).toBe(true)
    expect(released).toEqual([])
    expect(readFileSync(log, 'utf8')).toBe('')
    await turn()
    expect(released).toEqual(['Rex', 'Fido', 'Tom'])
    expect(saver.pending).toBe(false)
    // Nothing queued: an answer goes at once.
    expect(runsAtOnce(saver)).toBe(true)
    await saver.close()
  })

  it('without --fsync, writes each create at once and holds no answer', async () => {
    const { saver, data, log } = await saverWithLog(false)
    data.repository.add(pet('Rex'))
    expect(lines(log)).toHaveLength(1)
    expect(saver.pending).toBe(false)
    expect(runsAtOnce(saver)).toBe(true)
    await saver.close()
  })

  it('writes the queued creates at close, and releases what waits on them', async () => {
    const { saver, data } = await saverWithLog()
    data.repository.add(pet('Rex'))
    let released = false
    saver.afterWrite(() => {
      released = true
    })
    await saver.close()
    expect(released).toBe(true)
  })
})

describe('node delivery with a write-ahead', () => {
  function fakeExchange() {
    const written: number[] = []
    const res = { writeHead: (status: number) => written.push(status), end: () => undefined, on: () => res }
    const exchange: Exchange = {
      req: {} as IncomingMessage,
      res: res as unknown as ServerResponse,
      world: { markDelivered: () => undefined },
      headers: {},
      closeAfter: false,
    }
    return { exchange, written }
  }

  it('writes no answer while changes are queued, and writes it once they are written', () => {
    const waiting: (() => void)[] = []
    const writeAhead: WriteAhead = {
      get pending() {
        return true
      },
      afterWrite: (then) => waiting.push(then),
    }
    const delivery = createNodeDelivery({ writeAhead })
    const { exchange, written } = fakeExchange()
    delivery.deliver(exchange, { status: 201, headers: {}, body: '{}' })
    expect(written).toEqual([])
    for (const then of waiting) then()
    expect(written).toEqual([201])
  })

  it('writes at once when nothing is queued', () => {
    const writeAhead: WriteAhead = { pending: false, afterWrite: () => expect.unreachable('nothing waits') }
    const delivery = createNodeDelivery({ writeAhead })
    const { exchange, written } = fakeExchange()
    delivery.deliver(exchange, { status: 200, headers: {}, body: '[]' })
    expect(written).toEqual([200])
  })
})
