import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  auth,
  closeServers,
  ensureBuilt,
  eventually,
  INT64_MAX,
  killClis,
  postPet,
  runCli,
  sleep,
  startCli,
  startServer,
} from '../http/support.js'

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
    })
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

  /** Freezes the clock and sends three requests of test-free, then restarts the server; returns its address. */
  async function restartedAfterUse(): Promise<string> {
    const first = await startServer({ stateFile: file })
    const clock = await fetch(`${first.url}/__mock/clock`, { method: 'POST', body: '{"set":"2026-06-01T12:00:30Z"}' })
    expect(clock.status).toBe(200)
    for (let i = 0; i < 3; i++) await fetch(`${first.url}/v1/pets`, { headers: auth('test-free') })
    await first.server.close()
    const { url } = await startServer({ stateFile: file })
    return url
  }

  it('keeps the frozen clock across a restart', async () => {
    const url = await restartedAfterUse()
    expect(await (await fetch(`${url}/__mock/clock`)).json()).toMatchObject({ now: '2026-06-01T12:00:30.000Z', frozen: true })
  })

  it('keeps the rate counters across a restart', async () => {
    const url = await restartedAfterUse()
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
    const { createPetStoreServer } = await import('../../src/server/http-server.js')
    const server = createPetStoreServer({ host: '127.0.0.1', port: 0, log: 'silent', stateFile: file })
    await expect(server.listen()).rejects.toThrow(file)
    expect(server.server.listening).toBe(false)
  })

  it('refuses a lock that is a link, leaving the file it points to as it was; takes over a stale plain lock', async () => {
    const victim = join(dir, 'victim.txt')
    await writeFile(victim, 'not yours\n')
    await symlink(victim, `${file}.lock`)
    const { createPetStoreServer } = await import('../../src/server/http-server.js')
    const linked = createPetStoreServer({ host: '127.0.0.1', port: 0, log: 'silent', stateFile: file })
    await expect(linked.listen()).rejects.toThrow(`The lock ${file}.lock of the state file is not a plain file`)
    expect(linked.server.listening).toBe(false)
    expect(await readFile(victim, 'utf8')).toBe('not yours\n')
    expect((await lstat(`${file}.lock`)).isSymbolicLink()).toBe(true)
    // A crash's lock (a pid no process has) is a plain file: taken over, now holding this process's pid.
    await rm(`${file}.lock`)
    await writeFile(`${file}.lock`, '2147483646\n')
    const { server } = await startServer({ stateFile: file })
    expect(server.server.listening).toBe(true)
    expect((await readFile(`${file}.lock`, 'utf8')).trim()).toBe(String(process.pid))
  })
})

describe('state file of the CLI', () => {
  beforeAll(ensureBuilt)

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
  })

  // With --fsync the creates of a turn are written together and their answers wait for that write
  // (decisions/015-answers-of-a-turn-together.md).
  for (const extra of [[], ['--fsync']]) {
    it(`keeps every create it answered 201 across kill -9, over 4 rounds under load${extra.length ? `, with ${extra.join(' ')}` : ''}`, async () => {
      const acknowledged: string[] = []
      for (let round = 1; round <= 4; round++) {
        const cli = await startCli(['--port', '0', '--log', 'silent', '--state-file', file, ...extra])
        const loaded = (await (await fetch(`${cli.url}/__mock/state`)).json()) as { pets: { id: number; name: string }[] }
        const names = new Set(loaded.pets.map((pet) => pet.name))
        const missing = acknowledged.filter((name) => !names.has(name))
        expect(missing, `round ${round}: answered 201 before the kill, missing after the restart`).toEqual([])
        expect(new Set(loaded.pets.map((pet) => pet.id)).size, `round ${round}: ids are unique`).toBe(loaded.pets.length)

        let stop = false
        const drive = async (worker: number) => {
          for (let i = 0; !stop; i++) {
            const name = `r${round}-w${worker}-${i}`
            try {
              const response = await postPet(cli.url, { name, categoryId: i }, auth('test-enterprise'))
              if (response.status === 201) acknowledged.push(name)
            } catch {
              return // the process is gone
            }
          }
        }
        const before = acknowledged.length
        const drivers = [0, 1, 2, 3].map(drive)
        // Some creates answered first, however slow the machine (a busy one answered 65 in four rounds of a fixed
        // time), then a random moment: before the first snapshot (1 s after the first change) or while snapshots follow
        // one another.
        await eventually(async () => (acknowledged.length - before >= 30 ? true : undefined))
        await sleep(Math.floor(Math.random() * 1_500))
        cli.child.kill('SIGKILL')
        expect((await cli.exited).signal).toBe('SIGKILL')
        stop = true
        await Promise.all(drivers)
      }
      expect(acknowledged.length).toBeGreaterThan(100)
      const last = await startCli(['--port', '0', '--log', 'silent', '--state-file', file])
      const final = (await (await fetch(`${last.url}/__mock/state`)).json()) as { pets: { name: string }[] }
      const names = new Set(final.pets.map((pet) => pet.name))
      expect(acknowledged.filter((name) => !names.has(name))).toEqual([])
    })
  }

  it('answers 503 state_file_unavailable for creates it cannot write, and keeps every create it answered 201 across kill -9', async () => {
    // A file size limit (`ulimit -f`, in blocks of at most 1 KiB) the log reaches within a few of these creates: its
    // writes then fail (EFBIG), as on a full disk (docs/spec-decisions.md row 65).
    const limited = ['sh', '-c', 'ulimit -f 48 && exec "$0" "$@"', process.execPath]
    const cli = await startCli(['--port', '0', '--log', 'silent', '--state-file', file], {}, limited)
    const name = (i: number) => `${'n'.repeat(900)}-${i}`
    const statuses: number[] = []
    const acknowledged: string[] = []
    for (let i = 0; i < 120 && !statuses.includes(503); i += 8) {
      const batch = Array.from({ length: 8 }, (_, k) => i + k)
      for (const [k, response] of (
        await Promise.all(batch.map((n) => postPet(cli.url, { name: name(n), categoryId: 1 }, auth('test-enterprise'))))
      ).entries()) {
        statuses.push(response.status)
        const body = (await response.json()) as { code?: string }
        if (response.status === 201) acknowledged.push(name(batch[k] as number))
        else expect(body).toMatchObject({ code: 'state_file_unavailable', status: 503 })
      }
    }
    expect(statuses).toContain(503)
    expect(acknowledged.length).toBeGreaterThan(0)
    const health = (await (await fetch(`${cli.url}/__mock/health`)).json()) as { status: string }
    expect(health.status).toBe('degraded')
    // An admin change is refused the same way: its state line (the whole world) cannot be written either.
    const clock = await fetch(`${cli.url}/__mock/clock`, { method: 'POST', body: '{"advanceSeconds":60}' })
    expect([clock.status, ((await clock.json()) as { code: string }).code]).toEqual([503, 'state_file_unavailable'])
    cli.child.kill('SIGKILL')
    await cli.exited
    const again = await startCli(['--port', '0', '--log', 'silent', '--state-file', file])
    const loaded = (await (await fetch(`${again.url}/__mock/state`)).json()) as { pets: { name: string }[] }
    const names = new Set(loaded.pets.map((pet) => pet.name))
    expect(acknowledged.filter((each) => !names.has(each))).toEqual([])
  })

  it('keeps across kill -9 the sessions that were live when --max-sessions evicted another (the eviction is logged)', async () => {
    const args = ['--port', '0', '--log', 'silent', '--state-file', file, '--max-sessions', '2']
    const first = await startCli(args)
    const inSession = (name: string) => ({ ...auth('test-pro'), ...session(name) })
    const create = async (name: string): Promise<number> => {
      const created = await postPet(first.url, { name: `pet-of-${name}`, categoryId: 1 }, inSession(name))
      expect(created.status).toBe(201)
      return ((await created.json()) as { id: number }).id
    }
    const a = await create('A')
    await create('B')
    // A read makes A the session used last: creating C evicts B, not A.
    expect((await fetch(`${first.url}/v1/pets/${a}`, { headers: inSession('A') })).status).toBe(200)
    const c = await create('C')
    expect(await (await fetch(`${first.url}/__mock/sessions`)).json()).toEqual(['default', 'A', 'C'])
    first.child.kill('SIGKILL')
    await first.exited
    const again = await startCli(args)
    expect(await (await fetch(`${again.url}/__mock/sessions`)).json()).toEqual(['default', 'A', 'C'])
    expect((await fetch(`${again.url}/v1/pets/${a}`, { headers: inSession('A') })).status).toBe(200)
    expect((await fetch(`${again.url}/v1/pets/${c}`, { headers: inSession('C') })).status).toBe(200)
  })

  it('stops at start (exit 2, naming the pid) on a state file another running server uses, and takes over what a kill -9 left', async () => {
    const args = ['--port', '0', '--log', 'silent', '--state-file', file]
    const first = await startCli(args)
    const second = await runCli(args)
    expect(second.code).toBe(2)
    expect(second.stderr).toContain(`Another process (pid ${first.child.pid}) is using the state file`)
    first.child.kill('SIGKILL')
    await first.exited
    const third = await startCli(args)
    expect((await fetch(`${third.url}/v1/pets`, { headers: auth('test-pro') })).status).toBe(200)
  })

  /** Switches the qa session to sold-out and freezes its clock, kills the CLI with -9 and starts it again. */
  async function adminChangesThenKill9() {
    const first = await startCli(['--port', '0', '--log', 'silent', '--state-file', file])
    const switched = await fetch(`${first.url}/__mock/scenario`, { method: 'PUT', body: '{"name":"sold-out"}', headers: session('qa') })
    expect(switched.status).toBe(200)
    const frozen = await fetch(`${first.url}/__mock/clock`, {
      method: 'POST',
      body: '{"set":"2030-12-05T00:00:00Z"}',
      headers: session('qa'),
    })
    expect(frozen.status).toBe(200)
    first.child.kill('SIGKILL')
    await first.exited
    return startCli(['--port', '0', '--log', 'silent', '--state-file', file])
  }

  it('keeps a scenario switch it answered across kill -9', async () => {
    const second = await adminChangesThenKill9()
    const pets = (await (await fetch(`${second.url}/v1/pets?limit=100`, { headers: auth('test-pro', session('qa')) })).json()) as {
      status: string
    }[]
    expect(pets.length).toBeGreaterThan(0)
    expect(pets.every((pet) => pet.status === 'sold')).toBe(true)
  })

  it('keeps a frozen clock it answered across kill -9', async () => {
    const second = await adminChangesThenKill9()
    expect(await (await fetch(`${second.url}/__mock/clock`, { headers: session('qa') })).json()).toMatchObject({
      now: '2030-12-05T00:00:00.000Z',
    })
  })

  it('creates the folder of the state file when it is missing (test/cli/state-folder.test.ts)', async () => {
    const cli = await startCli(['--port', '0', '--log', 'silent', '--state-file', join(dir, 'no-such-folder', 'state.json')])
    expect(cli.stderr()).toContain(`created ${join(dir, 'no-such-folder')} for the state file`)
  })

  it('refuses to start with exit code 2 when the folder of the state file is a file', async () => {
    await writeFile(join(dir, 'plain-file'), 'x')
    const result = await runCli(['--port', '0', '--state-file', join(dir, 'plain-file', 'state.json')])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('plain-file')
  })

  /** Starts the CLI, removes the state file's folder, creates a pet and waits for the health to say degraded. */
  async function savingFails() {
    const folder = join(dir, 'vanishing')
    await mkdir(folder)
    const cli = await startCli(['--port', '0', '--log', 'silent', '--state-file', join(folder, 'state.json')])
    await rm(folder, { recursive: true, force: true })
    expect((await postPet(cli.url, { name: 'Unsaved', categoryId: 1 })).status).toBe(201)
    const health = await eventually(async () => {
      const body = (await (await fetch(`${cli.url}/__mock/health`)).json()) as { status: string; reason?: string }
      return body.status === 'degraded' ? body : undefined
    })
    return { cli, health }
  }

  it('reports degraded health when saving fails while running', async () => {
    const { cli, health } = await savingFails()
    expect(health.reason).toContain('state.json')
    expect(cli.stderr()).toContain('Could not write the state file')
  })

  it('exits non-zero when the final save fails', async () => {
    const { cli } = await savingFails()
    cli.child.kill('SIGTERM')
    expect((await cli.exited).code).toBe(1)
    expect(cli.stderr()).toContain('could not save the state at shutdown')
  })
})

describe('state file details', () => {
  it('writes through a symlink to its target, keeping the link', async () => {
    const target = join(dir, 'real-state.json')
    await writeFile(target, '{"version":1,"sessions":{}}')
    await symlink(target, file)
    const { server, url } = await startServer({ stateFile: file })
    await postPet(url, { name: 'Linked', categoryId: 1 })
    await server.close()
    expect((await lstat(file)).isSymbolicLink()).toBe(true)
    expect(await readFile(target, 'utf8')).toContain('Linked')
  })

  /** Creates a pet in a session named __proto__ and stops the server, saving the state. */
  async function savedProto(): Promise<void> {
    const first = await startServer({ stateFile: file })
    await postPet(first.url, { name: 'Proto', categoryId: 1 }, session('__proto__'))
    await first.server.close()
  }

  it('saves a session named __proto__ like any other', async () => {
    await savedProto()
    expect(Object.keys((await readState()).sessions)).toContain('__proto__')
  })

  it('restores a session named __proto__ like any other', async () => {
    await savedProto()
    const { url } = await startServer({ stateFile: file })
    const pet = await fetch(`${url}/v1/pets/51`, { headers: auth('test-pro', session('__proto__')) })
    expect(await pet.json()).toEqual({ id: 51, name: 'Proto', categoryId: 1 })
  })

  it('replays the change log over the snapshot at start, ignoring a torn last line', async () => {
    const first = await startServer({ stateFile: file })
    await first.server.close()
    const logSeq = ((await readState()) as StateFile & { logSeq: number }).logSeq
    const line = (seq: number, name: string, id: number) =>
      `{"seq":${seq},"session":"default","create":{"id":${id},"name":"${name}","categoryId":${INT64_MAX}}}\n`
    await writeFile(`${file}.log`, `${line(logSeq + 1, 'Logged', 51)}${line(logSeq + 2, 'Torn', 52).slice(0, 30)}`)
    const { url } = await startServer({ stateFile: file })
    expect(await (await fetch(`${url}/v1/pets/51`, { headers: auth('test-pro') })).text()).toBe(
      `{"id":51,"name":"Logged","categoryId":${INT64_MAX}}`,
    )
    expect((await fetch(`${url}/v1/pets/52`, { headers: auth('test-pro') })).status).toBe(404)
    expect(((await (await postPet(url, { name: 'After', categoryId: 1 })).json()) as { id: number }).id).toBe(52)
  })

  it('keeps a create answered after starting over a torn line, across the next kill -9', async () => {
    const first = await startServer({ stateFile: file })
    await first.server.close()
    const logSeq = ((await readState()) as StateFile & { logSeq: number }).logSeq
    const torn = `{"seq":${logSeq + 1},"session":"default","create":{"id":51,"na`
    await writeFile(`${file}.log`, torn)
    const cli = await startCli(['--port', '0', '--log', 'silent', '--state-file', file])
    expect((await postPet(cli.url, { name: 'After the tear', categoryId: 2 })).status).toBe(201)
    cli.child.kill('SIGKILL')
    await cli.exited
    const again = await startCli(['--port', '0', '--log', 'silent', '--state-file', file])
    expect(await (await fetch(`${again.url}/v1/pets/51`, { headers: auth('test-pro') })).json()).toEqual({
      id: 51,
      name: 'After the tear',
      categoryId: 2,
    })
  })

  it('replays the log segments a snapshot left behind, oldest first, then the log', async () => {
    const first = await startServer({ stateFile: file })
    await first.server.close()
    const logSeq = ((await readState()) as StateFile & { logSeq: number }).logSeq
    const line = (seq: number, name: string, id: number) =>
      `{"seq":${seq},"session":"default","create":{"id":${id},"name":"${name}","categoryId":1}}\n`
    // A snapshot that started after line +2 and never finished: its segment stays, and so does the one before.
    await writeFile(`${file}.log.${logSeq + 1}`, line(logSeq + 1, 'One', 51))
    await writeFile(`${file}.log.${logSeq + 2}`, line(logSeq + 2, 'Two', 52))
    await writeFile(`${file}.log`, line(logSeq + 3, 'Three', 53))
    const second = await startServer({ stateFile: file })
    const names = await Promise.all(
      [51, 52, 53].map(
        async (id) => ((await (await fetch(`${second.url}/v1/pets/${id}`, { headers: auth('test-pro') })).json()) as { name: string }).name,
      ),
    )
    expect(names).toEqual(['One', 'Two', 'Three'])
    expect(((await (await postPet(second.url, { name: 'Four', categoryId: 1 })).json()) as { id: number }).id).toBe(54)
    await second.server.close()
    // The final snapshot holds every line: no segment is left.
    expect((await readdir(dir)).sort()).toEqual(['state.json'])
    expect(petNames(await readState())).toEqual(expect.arrayContaining(['One', 'Two', 'Three', 'Four']))
  })

  it('refuses to start from a state with duplicate pet ids, naming the field', async () => {
    await writeFile(
      file,
      '{"version":1,"sessions":{"default":{"version":1,"pets":[{"id":1,"name":"A","categoryId":1},{"id":1,"name":"B","categoryId":1}],"nextId":2,"rateLimits":{},"clock":{"frozenAt":null,"offset":0}}}}',
    )
    const result = await runCli(['--port', '0', '--state-file', file])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('pets[1].id')
  })
})
