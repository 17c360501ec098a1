/**
 * Stops every process a task started, whatever it forked: its process group, and on Linux every process whose
 * environment holds the task's run id. A child that called `setsid` (a new session, so out of the task's group) or
 * daemonised keeps the environment it was started with, and /proc/PID/environ shows it (proc(5)): that is how the
 * card finds what no process group holds. A process that cleared its environment (`env -i`) and left the group is out
 * of reach: docs/check-client.md says so.
 */
import { readdir, readFile } from 'node:fs/promises'

/** The variable each task's command gets, with an id of its own (docs/check-client.md). */
export const RUN_ID_VARIABLE = 'PETSTORE_MOCK_RUN_ID'

/** A process that forks while it is being stopped is found again: scans repeat until one finds nothing, at most this often. */
const MAX_SCANS = 10
/** Between two scans, the processes just killed have a moment to go (a zombie's environ reads empty). */
const SCAN_PAUSE_MS = 20
/** /proc files read at once: well under any limit of open files. */
const READ_BATCH = 64

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms))

/** The processes (other than this one) whose environment holds `NAME=runId`. */
async function marked(runId: string): Promise<number[]> {
  const needle = Buffer.from(`${RUN_ID_VARIABLE}=${runId}`)
  const pids = (await readdir('/proc').catch(() => [] as string[])).filter((name) => /^\d+$/.test(name)).map(Number)
  const found: number[] = []
  for (let start = 0; start < pids.length; start += READ_BATCH) {
    const batch = pids.slice(start, start + READ_BATCH).filter((pid) => pid !== process.pid)
    // A process that ended meanwhile, or belongs to another user, cannot be read: it is none of the task's.
    const environs = await Promise.all(batch.map((pid) => readFile(`/proc/${pid}/environ`).catch(() => undefined)))
    batch.forEach((pid, i) => {
      if (environs[i]?.includes(needle)) found.push(pid)
    })
  }
  return found
}

const kill = (pid: number) => {
  try {
    process.kill(pid, 'SIGKILL')
  } catch {
    // It ended on its own just now (ESRCH), or is not ours to stop (EPERM).
  }
}

/**
 * SIGKILLs the process group `group` (the task was started as its leader) and, on Linux, every process marked with
 * `runId`; resolves when a scan finds none left (or after `MAX_SCANS` scans).
 *
 * @example
 * await stopProcesses(child.pid, runId)
 */
export async function stopProcesses(group: number | undefined, runId: string): Promise<void> {
  if (group !== undefined) kill(-group)
  if (process.platform !== 'linux') return
  for (let scan = 0; scan < MAX_SCANS; scan++) {
    const pids = await marked(runId)
    if (pids.length === 0) return
    for (const pid of pids) kill(pid)
    await sleep(SCAN_PAUSE_MS)
  }
}
