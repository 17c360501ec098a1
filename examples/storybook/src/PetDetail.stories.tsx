import type { Meta, StoryObj } from '@storybook/react-vite'
import { PetDetail } from './PetDetail'

const meta = { component: PetDetail, args: { id: 1 } } satisfies Meta<typeof PetDetail>
export default meta
type Story = StoryObj<typeof meta>

export const Default: Story = {}

// Past the Sunset of GET /v1/pets/{petId} (5 December 2030): 410 gone. The list still works.
export const AfterSunset: Story = { parameters: { petStore: { scenario: 'after-sunset' } } }
