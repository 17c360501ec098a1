import type { Preview } from '@storybook/react-vite'
import { petStoreLoader } from 'petstore-mock/storybook'

const preview: Preview = {
  // No msw-storybook-addon: this loader starts msw's worker and gives each story a new world from `parameters.petStore`.
  loaders: [petStoreLoader()],
}

export default preview
