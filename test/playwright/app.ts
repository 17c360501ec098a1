/**
 * The front-end app of the fixture's tests: a page on its own origin (https://app.test) that lists pets from the API on
 * another (https://api.petstore.test/v1), as a Vite app calling its backend does. Served by routing: nothing listens.
 */
import type { Page } from '@playwright/test'

export const APP = 'https://app.test/'

const PAGE = `<!doctype html>
<title>Pets</title>
<p id="status">loading</p>
<ul id="pets"></ul>
<script>
  const params = new URLSearchParams(location.search)
  const key = params.get('key') ?? 'test-free'
  window.load = async () => {
    try {
      const response = await fetch('https://api.petstore.test/v1/pets?limit=5', { headers: { Authorization: 'Bearer ' + key } })
      const retry = response.headers.get('Retry-After')
      document.querySelector('#status').textContent = response.status + (retry === null ? '' : ' retry ' + retry)
      const pets = response.ok ? await response.json() : []
      document.querySelector('#pets').replaceChildren(...pets.map((pet) => Object.assign(document.createElement('li'), { textContent: pet.name })))
      return response.status
    } catch (error) {
      document.querySelector('#status').textContent = 'failed'
      return 0
    }
  }
  window.load()
</script>`

/** Serves the app's page at APP. */
export async function serveApp(page: Page): Promise<void> {
  await page.route(`${APP}**`, (route) => route.fulfill({ contentType: 'text/html', body: PAGE }))
}
