import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { auth, closeServers, ensureBuilt, eventually, INT64_MAX, killClis, postPet, sleep, startCli, startServer } from './support.js'

let dir = ''
let file = ''

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'petstore-state-'))
  file = join(dir, 'state.json')
})

afterEach(async () => {
  await closeServers()
  await killClis()
  await rm(dir, { recursive: true, force: true })
})

interface StateFile {
  version: number
  sessions: Record<string, { pets: Array<{ id: number; name: string }>; nextId: number }>
}

const readState = async (): Promise<StateFile> => JSON.parse(await readFile(file, 'utf8')) as StateFile
const petNames = (state: StateFile, session = 'default') => state.sessions[session]?.pets.map((pet) => pet.name) ?? []
const session = (name: string) => ({ 'x-mock-session': name })

describe('state file of the server', () => {
  it('saves the state shortly after a change, before shutdown', async () => {
    const { url } = await startServer({ stateFile: file })
    expect((await postPet(url, { name: 'Saved-early', categoryId: 1 })).status).toBe(201)
    const state = await eventually(async () => {
      const text = await readFile(file, 'utf8').catch(() => undefined)
      return text?.includes('Saved-early') ? (JSON.parse(text) as StateFile) : undefined
    }, 2_000)
    expect(state.version).toBe(1)
    expect(petNames(state)).toContain('Saved-early')
  })

  it('saves the state at shutdown, even within the save delay', async () => {
    const { server, url } = await startServer({ stateFile: file })
    expect((await postPet(url, { name: 'Saved-at-close', categoryId: 1 })).status).toBe(201)
    await server.close()
    expect(petNames(await readState())).toContain('Saved-at-close')
  })

  it('loads the pets of every session at start', async () => {
    const first = await startServer({ stateFile: file })
    await postPet(first.url, { name: 'Rex', categoryId: 1 })
    await postPet(first.url, { name: 'Alice-cat', categoryId: 2 }, session('alice'))
    await first.server.close()

    const { url } = await startServer({ stateFile: file })
    const rex = await fetch(`${url}/v1/pets/51`, { headers: auth('test-pro') })
    expect(await rex.json()).toEqual({ id: 51, name: 'Rex', categoryId: 1 })
    const alice = await fetch(`${url}/v1/pets/51`, { headers: auth('test-pro', session('alice')) })
    expect(await alice.json()).toEqual({ id: 51, name: 'Alice-cat', categoryId: 2 })
    expect((await fetch(`${url}/v1/pets/51`, { headers: auth('test-pro', session('bob')) })).status).toBe(404)
    expect(((await (await postPet(url, { name: 'Next', categoryId: 1 })).json()) as { id: number }).id).toBe(52)
  })

  it(`keeps categoryId ${INT64_MAX} byte-exact across a restart`, async () => {
    const first = await startServer({ stateFile: file })
    await postPet(first.url, `{"name":"Big","categoryId":${INT64_MAX}}`)
    await first.server.close()
    expect(await readFile(file, 'utf8')).toContain(`"categoryId":${INT64_MAX}`)
    const { url } = await startServer({ stateFile: file })
    expect(await (await fetch(`${url}/v1/pets/51`, { headers: auth('test-pro') })).text()).toMatch(
      new RegExp(`"categoryId":${INT64_MAX}[,}]`),
    )
  })

  it('keeps the rate counters and the frozen clock across a restart', async () => {
    const first = await startServer({ stateFile: file })
    await fetch(`${first.url}/__mock/clock`, { method: 'POST', body: '{"set":"2026-06-01T12:00:30Z"}' })
    for (let i = 0; i < 3; i++) await fetch(`${first.url}/v1/pets`, { headers: auth('test-free') })
    await first.server.close()
    const { url } = await startServer({ stateFile: file })
    expect(await (await fetch(`${url}/__mock/clock`)).json()).toMatchObject({ now: '2026-06-01T12:00:30.000Z', frozen: true })
    const response = await fetch(`${url}/v1/pets`, { headers: auth('test-free') })
    expect(response.headers.get('x-ratelimit-remaining')).toBe('56')
  })

  it('leaves no temporary file behind', async () => {
    const { server, url } = await startServer({ stateFile: file })
    for (let i = 0; i < 5; i++) await postPet(url, { name: `Pet ${i}`, categoryId: 1 })
    await sleep(300)
    await postPet(url, { name: 'Last', categoryId: 1 })
    await server.close()
    expect(await readdir(dir)).toEqual(['state.json'])
  })

  it('refuses to start from a file that is not a state, naming the file', async () => {
    await writeFile(file, '{"version":1,"sessions":')
    const { createPetStoreServer } = await import('../../src/hosts/http-server.js')
    const server = createPetStoreServer({ host: '127.0.0.1', port: 0, log: 'silent', stateFile: file })
    await expect(server.listen()).rejects.toThrow(file)
    expect(server.server.listening).toBe(false)
  })
})

describe('state file of the CLI', () => {
  beforeAll(ensureBuilt, 90_000)

  it('loads the state a SIGTERM saved', async () => {
    const first = await startCli(['--port', '0', '--log', 'silent', '--state-file', file])
    expect((await postPet(first.url, { name: 'Survivor', categoryId: 4 })).status).toBe(201)
    first.child.kill('SIGTERM')
    expect((await first.exited).code).toBe(0)
    const second = await startCli(['--port', '0', '--log', 'silent'], { PETSTORE_STATE_FILE: file })
    expect(second.stdout()).toContain(`state file ${file}`)
    expect(await (await fetch(`${second.url}/v1/pets/51`, { headers: auth('test-pro') })).json()).toEqual({
      id: 51,
      name: 'Survivor',
      categoryId: 4,
    })
  }, 10_000)

  it('never leaves a torn state file when killed with SIGKILL while writing, over 4 rounds', async () => {
    let saved: StateFile | undefined
    for (let round = 1; round <= 4; round++) {
      const cli = await startCli(['--port', '0', '--log', 'silent', '--state-file', file])
      // The restart serves the state the previous round left.
      const loaded = (await (await fetch(`${cli.url}/__mock/state`)).json()) as { pets: unknown[]; nextId: number }
      if (saved) expect(loaded.pets.length, `round ${round}: pets loaded`).toBe(saved.sessions['default']?.pets.length)

      let stop = false
      const drive = async (worker: number) => {
        for (let i = 0; !stop; i++) {
          try {
            await postPet(cli.url, { name: `r${round}-w${worker}-${i}`, categoryId: i }, auth('test-enterprise'))
          } catch {
            return // the process is gone
          }
        }
      }
      const drivers = [0, 1, 2, 3].map(drive)
      // A random moment: before the first save (250 ms after the first change) or while saves follow one another.
      await sleep(100 + Math.floor(Math.random() * 500))
      cli.child.kill('SIGKILL')
      expect((await cli.exited).signal).toBe('SIGKILL')
      stop = true
      await Promise.all(drivers)

      const text = await readFile(file, 'utf8').catch(() => undefined)
      if (text === undefined) {
        expect(saved, `round ${round}: the state file disappeared`).toBeUndefined()
        continue
      }
      const state = JSON.parse(text) as StateFile
      const pets = state.sessions['default']?.pets.length ?? -1
      expect(pets, `round ${round}: pets saved`).toBeGreaterThanOrEqual(saved?.sessions['default']?.pets.length ?? 50)
      saved = state
    }
    const last = await startCli(['--port', '0', '--log', 'silent', '--state-file', file])
    expect((await fetch(`${last.url}/v1/pets`, { headers: auth('test-business') })).status).toBe(200)
  }, 20_000)
})
