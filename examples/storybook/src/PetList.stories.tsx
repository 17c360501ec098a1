import type { Meta, StoryObj } from '@storybook/react-vite'
import { PetList } from './PetList'

const meta = { component: PetList } satisfies Meta<typeof PetList>
export default meta
type Story = StoryObj<typeof meta>

export const Default: Story = {}

// Every key starts with its day used up: 429 until midnight UTC.
export const QuotaExhausted: Story = { parameters: { petStore: { scenario: 'daily-quota-exhausted' } } }

// Every key starts banned for 15 minutes.
export const Banned: Story = { parameters: { petStore: { scenario: 'key-banned' } } }

// Minute 15 of slow-day, inside its peak (10 to 20 min): answers take 300 ms at the median, up to 3 s.
export const SlowDayPeak: Story = {
  parameters: { petStore: { scenario: 'slow-day', advance: '15m' } },
  // A story reads its world from the loader: here, the stage of the scenario's timeline.
  render: (_args, { loaded }) => (
    <>
      <p>Stage: {loaded.petStore.timeline()?.current}</p>
      <PetList />
    </>
  ),
}
