/**
 * The script of the server's page `GET /__mock/ui?session=NAME`: the panel on the admin API. When the
 * server wants an admin token, the page asks for it once per tab (kept in sessionStorage, sent as a header).
 */
import { field, h } from './dom.js'
import { adminFailure, createHttpSource } from './http-source.js'
import { mountPanel } from './panel.js'
import { PANEL_CSS } from './styles.js'

const TOKEN_KEY = 'petstore-mock:admin-token'

function tokenForm(root: ShadowRoot, message: string): void {
  const input = h('input', { type: 'password', autocomplete: 'off', size: 32 })
  const form = h(
    'form',
    {
      class: 'panel',
      onsubmit: (event: Event) => {
        event.preventDefault()
        sessionStorage.setItem(TOKEN_KEY, input.value)
        location.reload()
      },
    },
    h(
      'section',
      {},
      h('h1', {}, 'petstore-mock'),
      h('p', { role: 'alert' }, message),
      field('Admin token', input, 'admin-token'),
      h('div', { class: 'buttons' }, h('button', { type: 'submit', class: 'primary' }, 'Open the panel')),
    ),
  )
  root.replaceChildren(h('style', {}, PANEL_CSS), form)
  input.focus()
}

async function start(): Promise<void> {
  const host = document.getElementById('petstore-mock-panel') ?? document.body
  const root = host.shadowRoot ?? host.attachShadow({ mode: 'open' })
  const params = new URLSearchParams(location.search)
  const session = params.get('session') || 'default'
  const token = sessionStorage.getItem(TOKEN_KEY) ?? undefined
  const source = createHttpSource({ session, token })
  try {
    await source.clock()
  } catch (error) {
    if (adminFailure(error)?.code === 'admin_unauthorized') {
      sessionStorage.removeItem(TOKEN_KEY)
      return tokenForm(
        root,
        token
          ? 'That admin token was refused. Enter the --admin-token value.'
          : 'This server has an admin token. Enter the --admin-token value.',
      )
    }
    // Other failures show in the panel's status line.
  }
  document.title = `petstore-mock · ${session}`
  mountPanel(root, source, {
    onSession(name) {
      const next = new URL(location.href)
      next.searchParams.set('session', name)
      location.assign(next)
    },
  })
}

void start()
