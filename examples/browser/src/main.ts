import { enableMocking } from './mocks'

interface Pet {
  id: number
  name: string
  categoryId: number
  status?: string
}

interface ApiError {
  code: string
  message: string
  status: number
}

interface Exchange {
  response: Response
  body: unknown
}

const BURST = 61

function byTestId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.querySelector<T>(`[data-testid="${id}"]`)
  if (!element) throw new Error(`No element with data-testid="${id}".`)
  return element
}

const show = (id: string, text: string, tone?: 'ok' | 'error') => {
  const element = byTestId(id)
  element.textContent = text
  element.className = tone ?? ''
}

const isError = (body: unknown): body is ApiError => typeof body === 'object' && body !== null && 'code' in body && 'message' in body

/** Every request of the app goes through here: the selected key, and the rate-limit panel updated. */
async function api(path: string, init: RequestInit = {}): Promise<Exchange> {
  const headers = new Headers(init.headers)
  const key = byTestId<HTMLSelectElement>('key').value
  if (key !== '') headers.set('Authorization', `Bearer ${key}`)
  const response = await fetch(path, { ...init, headers })
  const body: unknown = await response.json().catch(() => undefined)
  show('ratelimit-limit', response.headers.get('X-RateLimit-Limit') ?? '–')
  show('ratelimit-remaining', response.headers.get('X-RateLimit-Remaining') ?? '–')
  const reset = response.headers.get('X-RateLimit-Reset')
  show('ratelimit-reset', reset === null ? '–' : `${reset} (${new Date(Number(reset) * 1000).toISOString()})`)
  return { response, body }
}

const describeError = ({ response, body }: Exchange) =>
  isError(body) ? `${response.status} ${body.code}: ${body.message}` : `${response.status} ${response.statusText}`

async function loadPets(): Promise<void> {
  const limit = byTestId<HTMLInputElement>('limit').value
  const exchange = await api(`/v1/pets?limit=${encodeURIComponent(limit)}`)
  const list = byTestId<HTMLUListElement>('pets')
  if (!exchange.response.ok) {
    list.replaceChildren()
    show('list-message', describeError(exchange), 'error')
    return
  }
  const pets = exchange.body as Pet[]
  list.replaceChildren(
    ...pets.map((pet) => {
      const item = document.createElement('li')
      item.dataset['id'] = String(pet.id)
      item.textContent = `#${pet.id} ${pet.name}${pet.status ? ` (${pet.status})` : ''}`
      return item
    }),
  )
  show('list-message', pets.length === 0 ? 'No pets.' : `${pets.length} pets`)
}

async function createPet(form: HTMLFormElement): Promise<void> {
  const fields = new FormData(form)
  const pet: Record<string, unknown> = { name: fields.get('name'), categoryId: Number(fields.get('categoryId')) }
  if (fields.get('status')) pet['status'] = fields.get('status')
  const exchange = await api('/v1/pets', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(pet) })
  if (exchange.response.status === 201) {
    const created = exchange.body as Pet
    show('create-result', `Created #${created.id} ${created.name} (Location: ${exchange.response.headers.get('Location')})`, 'ok')
    form.reset()
    await loadPets()
  } else show('create-result', describeError(exchange), 'error')
}

/** Sends 61 requests in a row: on the Free plan the 61st in a minute is answered 429 with Retry-After. */
async function burst(): Promise<void> {
  const counts = new Map<number, number>()
  let last: Exchange | undefined
  for (let i = 0; i < BURST; i++) {
    last = await api('/v1/pets?limit=1')
    counts.set(last.response.status, (counts.get(last.response.status) ?? 0) + 1)
  }
  show('burst-summary', `${BURST} requests: ${[...counts].map(([status, count]) => `${count} × ${status}`).join(', ')}`)
  if (!last) return
  byTestId('burst-last').hidden = false
  show('burst-status', String(last.response.status), last.response.ok ? 'ok' : 'error')
  show('burst-error', last.response.ok ? '–' : describeError(last), last.response.ok ? undefined : 'error')
  show('retry-after', last.response.headers.get('Retry-After') ?? '–')
}

async function getDeprecatedPet(): Promise<void> {
  const { response } = await api('/v1/pets/1')
  show('get-pet-status', String(response.status))
  show('deprecation', response.headers.get('Deprecation') ?? '–')
  show('sunset', response.headers.get('Sunset') ?? '–')
  show('link', response.headers.get('Link') ?? '–')
}

/** Runs an action with the buttons disabled, and shows what went wrong if it throws. */
const action = (run: () => Promise<void>) => async () => {
  const buttons = document.querySelectorAll('button')
  for (const button of buttons) button.disabled = true
  try {
    await run()
  } catch (error) {
    console.error(error)
    show('mock-status', `Request failed: ${String(error)}`, 'error')
  } finally {
    for (const button of buttons) button.disabled = false
  }
}

const mock = await enableMocking()
const persisting = new URLSearchParams(window.location.search).get('persist') === '1'
show('mock-status', 'Mock running: seed 1, answered by the service worker.', 'ok')
show(
  'persist-mode',
  persisting ? 'The data persists across reloads (?persist=1).' : 'The data starts from the seed on every load (?persist=1 keeps it).',
)

byTestId('refresh').addEventListener('click', action(loadPets))
byTestId('burst').addEventListener('click', action(burst))
byTestId('get-pet').addEventListener('click', action(getDeprecatedPet))
byTestId('key').addEventListener('change', action(loadPets))
byTestId('reset').addEventListener(
  'click',
  action(async () => {
    await mock.reset()
    show('create-result', '')
    await loadPets()
  }),
)
const form = byTestId<HTMLFormElement>('create')
form.addEventListener('submit', (event) => {
  event.preventDefault()
  void action(() => createPet(form))()
})

await action(loadPets)()
document.body.dataset['ready'] = 'true'
