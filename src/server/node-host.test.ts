/**
 * The standalone server holds the answers of an event-loop turn and writes them together at its end, after
 * `beforeAnswers` (decisions/015-answers-of-a-turn-together.md); the express middleware answers at once.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { describe, expect, it } from 'vitest'
import { createNodeDelivery, type Exchange } from './node-host.js'

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

describe('node delivery, holding the answers of a turn', () => {
  function fakeExchange(events: string[], name: string) {
    const res = {
      writeHead: (status: number) => events.push(`${name} ${status}`),
      end: () => undefined,
      on: () => res,
      headersSent: false,
      destroyed: false,
    }
    const exchange: Exchange = {
      req: {} as IncomingMessage,
      res: res as unknown as ServerResponse,
      world: {
        markDelivered: () => {
          if (name === 'b') throw new Error('b fails')
        },
      },
      headers: {},
      closeAfter: false,
    }
    return exchange
  }
  const answer = (status: number) => ({ status, headers: {}, body: '{}' })

  /** Two answers given to a batching delivery during one turn; `events` records what it writes. */
  function deliverTwo() {
    const events: string[] = []
    const delivery = createNodeDelivery({ batch: true, beforeAnswers: () => events.push('log written') > 0 })
    delivery.deliver(fakeExchange(events, 'a'), answer(201))
    delivery.deliver(fakeExchange(events, 'c'), answer(200))
    return events
  }

  it('writes no answer during the turn', () => {
    const events = deliverTwo()
    expect(events).toEqual([])
  })

  it('runs beforeAnswers, then writes the answers of the turn in order, at its end', async () => {
    const events = deliverTwo()
    await turn()
    expect(events).toEqual(['log written', 'a 201', 'c 200'])
  })

  it('writes the other answers of the turn when one of them fails', async () => {
    const events: string[] = []
    const failed: unknown[] = []
    const delivery = createNodeDelivery({ batch: true, onFailed: (_exchange, error) => failed.push(error) })
    for (const name of ['a', 'b', 'c']) delivery.deliver(fakeExchange(events, name), answer(200))
    await turn()
    expect(events.filter((event) => event.endsWith(' 200'))).toEqual(['a 200', 'b 200', 'c 200'])
    expect(failed).toHaveLength(1)
  })

  it('writes at once without batch (the express middleware)', () => {
    const events: string[] = []
    const delivery = createNodeDelivery({})
    delivery.deliver(fakeExchange(events, 'a'), answer(200))
    expect(events).toEqual(['a 200'])
  })

  it('writes each answer its own Content-Length in bytes, when bodies repeat, change or have the same length', () => {
    const lengths: (string | undefined)[] = []
    const res = {
      writeHead: (_status: number, headers: Record<string, string>) => lengths.push(headers['content-length']),
      end: () => undefined,
      on: () => res,
    }
    const exchange: Exchange = {
      req: {} as IncomingMessage,
      res: res as unknown as ServerResponse,
      world: { markDelivered: () => {} },
      headers: {},
      closeAfter: false,
    }
    const delivery = createNodeDelivery({})
    const list = '[{"id":1}]'
    for (const body of [list, list, '[{"id":2}]', '{"n":"é"}', '{"n":"e"}', '{"n":"🐕"}', '', list]) {
      delivery.deliver(exchange, { status: 200, headers: {}, body })
    }
    expect(lengths).toEqual(['10', '10', '10', '10', '9', '12', '0', '10'])
  })
})
