import { ApiError, useApi } from './api'

interface Pet {
  id: number
  name: string
}

export function PetList() {
  const answer = useApi<Pet[]>('/v1/pets?limit=5')
  if (answer.state === 'loading') return <p>Loading…</p>
  if (answer.state === 'error') return <ApiError error={answer} />
  return (
    <ul>
      {answer.data.map((pet) => (
        <li key={pet.id}>{pet.name}</li>
      ))}
    </ul>
  )
}
