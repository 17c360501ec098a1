/**
 * The page of test/browser/panel-in-page.test.ts: an app that starts the mock with the control panel
 * (`panel: true`) and calls the API with `fetch` from the page, as an app does. `window.panelPage`
 * lets the test make those calls; the app's button does the same for a person.
 */
import { startPetStoreWorker } from '../../../src/browser.js'

export interface PanelPage {
  /** `fetch(path)` from the page with the key (none when empty); resolves to the status. */
  fetchApi(key: string, path?: string, init?: { method?: string; body?: unknown }): Promise<number>
}

declare global {
  interface Window {
    panelPage?: PanelPage
  }
}

await startPetStoreWorker({ seed: 1, panel: true, exposeOnWindow: false })

const fetchApi: PanelPage['fetchApi'] = async (key, path = '/v1/pets', init = {}) => {
  const headers: Record<string, string> = {}
  if (key) headers['Authorization'] = `Bearer ${key}`
  if (init.body !== undefined) headers['Content-Type'] = 'application/json'
  const response = await fetch(path, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? null : JSON.stringify(init.body),
  })
  await response.arrayBuffer()
  return response.status
}

window.panelPage = { fetchApi }
const status = document.getElementById('load-status') as HTMLOutputElement
document.getElementById('load-pets')?.addEventListener('click', async () => {
  status.value = String(await fetchApi('test-free', '/v1/pets?limit=5'))
})
document.body.dataset['ready'] = 'true'
