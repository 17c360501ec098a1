/**
 * The control panel inside the app's page (browser host, `startPetStoreWorker({ panel: true })`): a
 * small floating button named "petstore-mock" that opens the panel over the page, fed by the world
 * in the page. Everything lives in an open shadow root: the app's styles stay out, the panel's stay
 * in, and test tools still reach it. Loaded only when asked for (a dynamic import of the worker).
 */

import type { World } from '../world/create-world.js'
import { button, h } from './dom.js'
import { type MountedPanel, mountPanel } from './panel.js'
import { createWorldSource, type WorldActions } from './world-source.js'

const LAUNCHER_CSS = `
:host { all: initial; }
.launcher {
  position: fixed; right: 16px; bottom: 16px; z-index: 2147483646; border: 0; border-radius: 22px; padding: 10px 14px;
  font: 600 13px/1 system-ui, sans-serif; color: #fff; background: #1a5fb4; box-shadow: 0 2px 8px rgba(0,0,0,.3); cursor: pointer;
}
.launcher:focus-visible { outline: 3px solid #f5c211; outline-offset: 2px; }
.sheet {
  position: fixed; inset: 24px 24px 72px 24px; z-index: 2147483647; overflow: auto; border-radius: 10px; background: #fff;
  box-shadow: 0 8px 40px rgba(0,0,0,.35);
}
.sheet[hidden] { display: none; }
`

export interface InPagePanel {
  open(): void
  close(): void
  /** Removes the button and the panel from the page. */
  remove(): void
}

/**
 * @example
 * const panel = mountInPagePanel(petStore, { useScenario, reset, changed: save })
 */
export function mountInPagePanel(world: World, actions: WorldActions): InPagePanel {
  const host = h('div', { 'data-petstore-mock': 'panel' })
  const shadow = host.attachShadow({ mode: 'open' })
  const sheetHost = h('div')
  const sheet = h('div', { class: 'sheet', role: 'dialog', 'aria-label': 'petstore-mock control panel', hidden: true }, sheetHost)
  const launcher = h(
    'button',
    { type: 'button', class: 'launcher', 'aria-label': 'petstore-mock', 'aria-expanded': 'false', title: 'petstore-mock control panel' },
    'petstore-mock',
  )
  shadow.append(h('style', {}, LAUNCHER_CSS), launcher, sheet)
  const panelRoot = sheetHost.attachShadow({ mode: 'open' })
  let mounted: MountedPanel | undefined

  const close = () => {
    mounted?.close()
    mounted = undefined
    sheet.hidden = true
    launcher.setAttribute('aria-expanded', 'false')
    launcher.focus()
  }
  const open = () => {
    if (mounted) return
    const closeButton = button('Close', close)
    mounted = mountPanel(panelRoot, createWorldSource(world, actions), { headerExtras: [closeButton] })
    sheet.hidden = false
    launcher.setAttribute('aria-expanded', 'true')
    closeButton.focus()
  }
  launcher.addEventListener('click', () => (mounted ? close() : open()))
  sheet.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') close()
  })
  document.body.append(host)
  return {
    open,
    close,
    remove() {
      mounted?.close()
      host.remove()
    },
  }
}
