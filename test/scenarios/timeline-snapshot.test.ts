/**
 * A running timeline survives its state coming back (docs/scenarios.md, "Timelines"; docs/snapshot.md): a snapshot
 * says where the timeline is (when it started on the world's clock, the furthest stage entered), so restoring it, a
 * `PUT /__mock/state` and a restart with `--state-file` go on with the incident instead of starting it again.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createPetStore } from '../../src/index.js'
import { auth, closeServers, startServer } from '../http/support.js'

/** Folders of state files, removed once their servers closed. */
const dirs: string[] = []

afterEach(async () => {
  await closeServers()
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

const LIST = { method: 'GET', path: '/v1/pets', query: 'limit=1', headers: { authorization: 'Bearer test-free' }, body: undefined }

/** outage-incident (scenarios/outage-incident.json): slowing from 5 min, 503 from 10 to 20, recovered from 20. */
const INCIDENT = 'outage-incident'

describe('a timeline across snapshots', () => {
  it('goes on where it was when its snapshot is restored: the stage, the elapsed time and the next answers', async () => {
    const petStore = createPetStore({ scenario: INCIDENT })
    petStore.clock.advance(12 * 60_000)
    expect((await petStore.handle(LIST)).status).toBe(503)
    const snapshot = petStore.snapshot()
    expect(snapshot.timeline).toEqual({ startedAt: Date.parse('2026-06-01T12:00:00Z'), entered: 1 })
    await petStore.restore(snapshot)
    expect(petStore.timeline()).toMatchObject({ startedAt: '2026-06-01T12:00:00.000Z', current: 'outage', elapsedMs: 12 * 60_000 })
    expect((await petStore.handle(LIST)).status).toBe(503)
    petStore.clock.advance(8 * 60_000)
    expect((await petStore.handle(LIST)).status).toBe(200)
    expect(petStore.timeline()?.current).toBe('recovered')
  })

  it('keeps a stage’s key counters as the snapshot has them: the stage is not entered again', async () => {
    const scenario = {
      name: 'ban-at-1m',
      description: 'the free key banned for 120 s from the second minute',
      clock: { start: '2026-06-01T12:00:00Z', frozen: true },
      timeline: [{ name: 'banned', after: '1m', keys: { start: { 'test-free': { bannedForSeconds: 120 } } } }],
    }
    const petStore = createPetStore({ scenario: 'ban-at-1m', scenarios: [scenario] })
    petStore.clock.advance(60_000)
    expect((await petStore.handle(LIST)).status).toBe(429)
    petStore.clock.advance(121_000)
    expect((await petStore.handle(LIST)).status).toBe(200)
    // Entering the stage again would ban the key for another 120 s.
    await petStore.restore(petStore.snapshot())
    expect((await petStore.handle(LIST)).status).toBe(200)
  })

  it("judges only this scenario's answers since its timeline started: another scenario's left in the journal by a restore are not counted", async () => {
    const petStore = createPetStore({ scenario: INCIDENT })
    petStore.clock.advance(12 * 60_000)
    for (let i = 0; i < 3; i++) expect((await petStore.handle(LIST)).status).toBe(503)
    // slow-day (scenarios/slow-day.json) expects no answer other than 2xx; its clients have sent nothing yet.
    await petStore.restore(createPetStore({ scenario: 'slow-day' }).snapshot())
    expect(petStore.scenario).toBe('slow-day')
    expect(petStore.journal.all().map((entry) => entry.scenario)).toEqual([INCIDENT, INCIDENT, INCIDENT])
    const view = petStore.timeline()
    expect(view?.stages.map((stage) => stage.requests)).toEqual([0, 0, 0])
    expect(view?.verdict).toMatchObject({ ok: true, errorRate: 0, longestFailureRun: {} })
    expect((await petStore.handle(LIST)).status).toBe(200)
    expect(petStore.timeline()?.stages.map((stage) => stage.requests)).toEqual([1, 0, 0])
  })

  it('starts the timeline at the restored moment when the snapshot does not place it (a state written before it did)', async () => {
    const written = createPetStore({ scenario: INCIDENT })
    written.clock.advance(12 * 60_000)
    const { timeline: _place, ...older } = written.snapshot()
    // A fresh world of the scenario, its clock at 12:00 until the snapshot's 12:12 comes in.
    const petStore = createPetStore({ scenario: INCIDENT })
    await petStore.restore(older)
    expect(petStore.timeline()).toMatchObject({ startedAt: '2026-06-01T12:12:00.000Z', current: null, elapsedMs: 0 })
  })

  it('refuses a timeline place that is not one', async () => {
    const petStore = createPetStore({ scenario: INCIDENT })
    const snapshot = { ...petStore.snapshot(), timeline: { startedAt: 'noon', entered: -2 } }
    await expect(petStore.restore(snapshot)).rejects.toThrow(/timeline\.startedAt: .*; timeline\.entered: must be -1 or a stage index/)
  })

  it('goes on over HTTP through GET then PUT /__mock/state', async () => {
    const { url } = await startServer({ scenario: INCIDENT })
    await fetch(`${url}/__mock/clock`, { method: 'POST', body: JSON.stringify({ advanceSeconds: 12 * 60 }) })
    const state = await (await fetch(`${url}/__mock/state`)).text()
    const put = await fetch(`${url}/__mock/state`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: state })
    expect(put.status).toBe(204)
    expect(await (await fetch(`${url}/__mock/timeline`)).json()).toMatchObject({ current: 'outage', elapsedMs: 12 * 60_000 })
    expect((await fetch(`${url}/v1/pets?limit=1`, { headers: auth('test-free') })).status).toBe(503)
  })

  it('goes on after a restart with the same --state-file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-timeline-'))
    dirs.push(dir)
    const stateFile = join(dir, 'state.json')
    const first = await startServer({ scenario: INCIDENT, stateFile })
    await fetch(`${first.url}/__mock/clock`, { method: 'POST', body: JSON.stringify({ advanceSeconds: 12 * 60 }) })
    await first.server.close()
    // Started on the default scenario and real time: the state file brings the incident, its clock and its place.
    const second = await startServer({ stateFile })
    expect(await (await fetch(`${second.url}/__mock/timeline`)).json()).toMatchObject({ current: 'outage', elapsedMs: 12 * 60_000 })
    expect((await fetch(`${second.url}/v1/pets?limit=1`, { headers: auth('test-free') })).status).toBe(503)
  })
})
