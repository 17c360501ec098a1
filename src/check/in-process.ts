/**
 * `checkClient`: the card with the client's tasks as async functions in this process, each given where the API is
 * and the key. A task that resolves returned a result; one that rejects surfaced an error.
 */
import { type CardOptions, runCard } from './run.js'
import type { CardReport, TaskInput, TaskName, TaskOutcome, TaskRunner } from './types.js'

/** The calls of the SDK under test, one per task: each makes that one call and resolves or rejects as the SDK does. */
export interface ClientTasks {
  listPets(input: TaskInput): Promise<unknown>
  getPet(input: TaskInput & { petId: string }): Promise<unknown>
  createPet(input: TaskInput): Promise<unknown>
}

const METHOD = { 'list-pets': 'listPets', 'get-pet': 'getPet', 'create-pet': 'createPet' } as const

/** Runs a task, waiting at most `limitMs` for it (a promise cannot be stopped: it is left behind). */
export function inProcessRunner(tasks: ClientTasks): TaskRunner {
  return (task: TaskName, input: TaskInput, limitMs: number): Promise<TaskOutcome> => {
    const started = performance.now()
    const ms = () => Math.round(performance.now() - started)
    let timer: ReturnType<typeof setTimeout> | undefined
    const limit = new Promise<TaskOutcome>((done) => {
      timer = setTimeout(() => done({ ended: 'limit', ms: ms() }), limitMs)
    })
    const call = (async () => tasks[METHOD[task]]({ ...input, petId: input.petId ?? '' }))().then(
      (): TaskOutcome => ({ ended: 'result', ms: ms() }),
      (error: unknown): TaskOutcome => ({ ended: 'error', ms: ms(), message: error instanceof Error ? error.message : String(error) }),
    )
    return Promise.race([call, limit]).finally(() => clearTimeout(timer))
  }
}

/**
 * Grades an SDK in this process against `petstore-client-checks/2`.
 *
 * @example
 * const report = await checkClient({
 *   listPets: ({ baseUrl, key }) => new PetClient({ baseUrl, key }).listPets(),
 *   getPet: ({ baseUrl, key, petId }) => new PetClient({ baseUrl, key }).getPet(petId),
 *   createPet: ({ baseUrl, key }) => new PetClient({ baseUrl, key }).createPet({ name: 'Rex', categoryId: 1 }),
 * })
 * expect(report).toPassClientChecks()
 */
export function checkClient(tasks: ClientTasks, options: CardOptions = {}): Promise<CardReport> {
  // In one process the tasks share no CPU with a child: every check at once.
  return runCard(inProcessRunner(tasks), { concurrency: 16, ...options })
}
