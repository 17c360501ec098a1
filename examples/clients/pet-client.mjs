/**
 * A small Pet Store SDK, written the way the spec asks ("Exceeding the limit": honour Retry-After, back off
 * exponentially), with switches that each put one common defect back in. The report card
 * (`petstore-mock check-client`) must flag exactly the defect each client in this folder turns on.
 */

/** @typedef {{ ignoreRetryAfter?: boolean, secondsOnly?: boolean, retryPost?: boolean, noJitter?: boolean, retry401?: boolean }} Defects */

export class PetStoreError extends Error {
  constructor(status, body) {
    super(`${status} ${body?.code ?? ''}: ${body?.message ?? 'no message'}`.trim())
    this.status = status
    this.body = body
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * @param {{ baseUrl: string, key: string, timeoutMs?: number, maxRetries?: number, maxWaitMs?: number, baseDelayMs?: number, defects?: Defects }} options
 */
export function createPetClient({
  baseUrl,
  key,
  baseDelayMs = 250,
  timeoutMs = 6 * baseDelayMs,
  maxRetries = 3,
  maxWaitMs = 5_000,
  defects = {},
}) {
  /** Exponential back-off, capped at 8 times the first wait (2 s), with "equal jitter": half fixed, half random. */
  const backoff = (attempt) => {
    const full = Math.min(baseDelayMs * 2 ** attempt, 8 * baseDelayMs)
    return defects.noJitter ? full : full / 2 + Math.random() * (full / 2)
  }
  /** Retry-After is seconds or an HTTP-date (RFC 9110 section 10.2.3). */
  const retryAfterMs = (value) => {
    if (value === null) return baseDelayMs
    if (/^\d+$/.test(value.trim())) return Number(value) * 1000
    if (defects.secondsOnly) return (Number.parseInt(value, 10) || 0) * 1000
    return Math.max(0, Date.parse(value) - Date.now())
  }

  async function send(method, path, body) {
    // POST is not idempotent and the API has no idempotency key: never send it twice (RFC 9110 section 9.2.2).
    const retriable = method === 'GET' || defects.retryPost
    // A request that timed out is tried once more at most: each costs a whole timeout.
    let timedOut = 0
    for (let attempt = 0; ; attempt++) {
      let response
      try {
        response = await fetch(`${baseUrl}${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
          body: body ? JSON.stringify(body) : undefined,
          signal: AbortSignal.timeout(timeoutMs),
        })
      } catch (error) {
        if (error?.name === 'TimeoutError' && ++timedOut > 1) throw error
        if (!retriable || attempt >= maxRetries) throw error
        await sleep(backoff(attempt))
        continue
      }
      if (response.ok) return response.json()
      const error = new PetStoreError(response.status, await response.json().catch(() => undefined))
      if (attempt >= maxRetries) throw error
      if (response.status === 429) {
        const wait = defects.ignoreRetryAfter ? backoff(attempt) : retryAfterMs(response.headers.get('retry-after'))
        if (wait > maxWaitMs) throw error
        await sleep(wait)
      } else if (response.status === 401 && defects.retry401) {
        await sleep(backoff(attempt))
      } else if (response.status >= 500 && retriable) {
        await sleep(backoff(attempt))
      } else {
        throw error
      }
    }
  }

  return {
    listPets: () => send('GET', '/pets'),
    getPet: (petId) => send('GET', `/pets/${encodeURIComponent(petId)}`),
    createPet: (pet) => send('POST', '/pets', pet),
  }
}

/** The three tasks of the report card, for `checkClient` in-process. */
export function cardTasks(options = {}) {
  const client = (input) => createPetClient({ baseUrl: input.baseUrl, key: input.key, ...options })
  return {
    listPets: (input) => client(input).listPets(),
    getPet: (input) => client(input).getPet(input.petId),
    createPet: (input) => client(input).createPet({ name: 'Rex', categoryId: 1 }),
  }
}

/**
 * One task from the environment `petstore-mock check-client` sets, then exit 0 (a result) or 1 (an error).
 * @param {{ defects?: Defects }} options
 */
export async function runTaskFromEnvironment(options = {}) {
  const { PETSTORE_MOCK_URL: baseUrl, PETSTORE_MOCK_KEY: key, PETSTORE_MOCK_TASK: task, PETSTORE_MOCK_PET_ID: petId } = process.env
  // PET_CLIENT_BASE_DELAY_MS: a longer first back-off wait (default 250 ms); the cap of a wait (8 times it) and a
  // request's timeout (6 times it, 1.5 s by default) scale with it. The project's own suite uses 1,000 on a machine
  // loaded past its cores, where late timers stretch a 250 ms wait by as much again and a first answer can take more
  // than 1.5 s (test/cli/check-client.test.ts).
  const baseDelayMs = Number(process.env.PET_CLIENT_BASE_DELAY_MS) || undefined
  const tasks = cardTasks(baseDelayMs === undefined ? options : { ...options, baseDelayMs })
  const run = { 'list-pets': tasks.listPets, 'get-pet': tasks.getPet, 'create-pet': tasks.createPet }[task]
  if (!run) {
    process.stderr.write(`Unknown PETSTORE_MOCK_TASK ${task}\n`)
    process.exit(2)
  }
  try {
    await run({ baseUrl, key, petId })
    process.exit(0)
  } catch (error) {
    process.stderr.write(`${error.message}\n`)
    process.exit(1)
  }
}
