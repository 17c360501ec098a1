/**
 * The command runner of `petstore-mock check-client -- COMMAND...`: each task is one run of the command, told what to
 * do by its environment; exit status 0 means the SDK returned a result, anything else that it surfaced an error.
 */
import { spawn } from 'node:child_process'
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

/**
 * Runs `command` once per task, in its own process group, stopped (the whole group) at the limit.
 *
 * @example
 * const runner = commandRunner(['node', 'examples/clients/correct.mjs'])
 */
export function commandRunner(command: readonly string[], options: { cwd?: string } = {}): TaskRunner {
  const [file, ...args] = command
  if (!file) throw new RangeError('check-client needs a command after "--", e.g. -- node my-client.mjs.')
  return (task, input, limitMs) =>
    new Promise<TaskOutcome>((done) => {
      const started = performance.now()
      const ms = () => Math.round(performance.now() - started)
      let stderr = ''
      let stopped = false
      const child = spawn(file, args, {
        cwd: options.cwd,
        env: { ...process.env, ...taskEnvironment(task, input) },
        stdio: ['ignore', 'ignore', 'pipe'],
        detached: true,
      })
      child.stderr?.setEncoding('utf8').on('data', (text: string) => {
        stderr = (stderr + text).slice(-STDERR_TAIL)
      })
      const timer = setTimeout(() => {
        stopped = true
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL')
        } catch {
          // The group ended on its own just now (ESRCH): 'close' comes next.
        }
      }, limitMs)
      child.once('error', (error) => {
        clearTimeout(timer)
        done({ ended: 'error', ms: ms(), message: `the command did not start: ${error.message}` })
      })
      let endedMs: number | undefined
      child.once('exit', () => {
        // The task ended when its process did; what it left running in the background (a build daemon) may hold its
        // stderr open, so the rest of its group is stopped once the last of its output had a moment to arrive.
        endedMs = ms()
        clearTimeout(timer)
        setTimeout(() => {
          try {
            if (child.pid) process.kill(-child.pid, 'SIGKILL')
          } catch {
            // Nothing of the group is left (ESRCH).
          }
        }, EXIT_GRACE_MS).unref()
      })
      child.once('close', (code) => {
        clearTimeout(timer)
        const took = endedMs ?? ms()
        if (stopped) return done({ ended: 'limit', ms: took })
        if (code === 0) return done({ ended: 'result', ms: took })
        done({ ended: 'error', ms: took, message: errorLine(stderr) ?? `exit ${code}` })
      })
    })
}
