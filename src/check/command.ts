/**
 * The command runner of `petstore-mock check-client -- COMMAND...`: each task is one run of the command, told what to
 * do by its environment; exit status 0 means the SDK returned a result, anything else that it surfaced an error. When
 * a task ends (or is stopped), nothing it started is left running (stop-processes.ts).
 */
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { accessSync, constants, statSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { RUN_ID_VARIABLE, stopProcesses } from './stop-processes.js'
import type { TaskInput, TaskName, TaskOutcome, TaskRunner } from './types.js'

/** The environment a task's command gets (docs/check-client.md). */
export function taskEnvironment(task: TaskName, input: TaskInput): Record<string, string> {
  return {
    PETSTORE_MOCK_URL: input.baseUrl,
    PETSTORE_MOCK_KEY: input.key,
    PETSTORE_MOCK_TASK: task,
    ...(input.petId === undefined ? {} : { PETSTORE_MOCK_PET_ID: input.petId }),
  }
}

/** Keeps the last this many characters of a command's error output, for the evidence. */
const STDERR_TAIL = 300
/** After the task exited, how long its output may still arrive before what it left running is stopped. */
const EXIT_GRACE_MS = 100
/**
 * After everything of the task was stopped, how long its error output may take to close. Something that still holds
 * it (a process out of reach: docs/check-client.md) is not waited for: the task's result stands once its process exited.
 */
const CLOSE_WAIT_MS = 500

/**
 * The line of a task's error output that says what went wrong: the last `SomethingError: …` line (a stack's head), else
 * the last line but node's closing `Node.js v…` (test/cli/check-client.test.ts).
 */
export function errorLine(stderr: string): string | undefined {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^Node\.js v\d/.test(line))
  return lines.findLast((line) => /^\w*(Error|Exception)\b.*:/.test(line)) ?? lines.at(-1)
}

/** A command runner, and the way to stop every task it is running (on SIGINT, SIGTERM or SIGHUP of the card). */
/** Whether `path` is a file this process may run. */
function runnable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return statSync(path).isFile()
  } catch {
    return false
  }
}

/**
 * Why `file` cannot start, before any check runs it: a path that is no runnable file, or a name found in no folder of
 * PATH (where `spawn` looks). `undefined` when it may start. Said once, first, instead of every check's failure.
 *
 * @example
 * commandProblem('node') // undefined
 */
export function commandProblem(file: string, path = process.env['PATH'] ?? ''): string | undefined {
  const found = file.includes('/') ? runnable(file) : path.split(delimiter).some((folder) => folder !== '' && runnable(join(folder, file)))
  return found
    ? undefined
    : `the command ${file} was not found (not a file, nor on PATH): give the client after --, as in -- node my-client.mjs.`
}

export interface CommandRunner extends TaskRunner {
  /** Stops every running task and what each started, and starts no new one; resolves when they are gone. */
  stopAll(): Promise<void>
}

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms).unref())

/**
 * Runs `command` once per task, in its own process group and with a run id of its own in PETSTORE_MOCK_RUN_ID; stopped
 * at the limit, and once it exited, whatever it left running is stopped too (the group and every process with its id).
 *
 * @example
 * const runner = commandRunner(['node', 'examples/clients/correct.mjs'])
 */
export function commandRunner(command: readonly string[], options: { cwd?: string } = {}): CommandRunner {
  const [file, ...args] = command
  if (!file) throw new RangeError('check-client needs a command after "--", e.g. -- node my-client.mjs.')
  const running = new Set<() => Promise<void>>()
  let stopping = false

  const runTask = async (task: TaskName, input: TaskInput, limitMs: number): Promise<TaskOutcome> => {
    const began = performance.now()
    const ms = () => Math.round(performance.now() - began)
    if (stopping) return { ended: 'error', ms: 0, message: 'the card was stopped' }
    const runId = randomUUID()
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: { ...process.env, ...taskEnvironment(task, input), [RUN_ID_VARIABLE]: runId },
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    })
    const stop = () => stopProcesses(child.pid, runId)
    running.add(stop)
    let stderr = ''
    child.stderr?.setEncoding('utf8').on('data', (text: string) => {
      stderr = (stderr + text).slice(-STDERR_TAIL)
    })
    const closed = new Promise<void>((done) => child.once('close', () => done()))
    const ended = new Promise<{ code: number | null } | { failed: Error }>((done) => {
      child.once('exit', (code) => done({ code }))
      child.once('error', (error) => done({ failed: error }))
    })
    let timer: NodeJS.Timeout | undefined
    const limit = new Promise<'limit'>((done) => {
      timer = setTimeout(() => done('limit'), limitMs)
    })
    try {
      const end = await Promise.race([ended, limit])
      const took = ms()
      clearTimeout(timer)
      if (end !== 'limit' && 'failed' in end)
        return { ended: 'error', ms: took, message: `the command did not start: ${end.failed.message}` }
      // The task ended when its process did (or was stopped at the limit). What it left in the background (a build
      // daemon, a child in a session of its own) may hold its stderr open: the last of its output has a moment to
      // arrive, then all of it is stopped, and its output is not waited for past CLOSE_WAIT_MS.
      if (end !== 'limit') await Promise.race([closed, sleep(EXIT_GRACE_MS)])
      await stop()
      await Promise.race([closed, sleep(CLOSE_WAIT_MS)])
      if (end === 'limit') return { ended: 'limit', ms: took }
      if (end.code === 0) return { ended: 'result', ms: took }
      return { ended: 'error', ms: took, message: errorLine(stderr) ?? `exit ${end.code ?? 'by a signal'}` }
    } finally {
      clearTimeout(timer)
      child.stderr?.destroy()
      running.delete(stop)
    }
  }

  return Object.assign(runTask, {
    stopAll: async () => {
      stopping = true
      await Promise.all([...running].map((stop) => stop()))
    },
  })
}
