import type { PetList } from '@/lib/pet-store'

// What both components show: the pets, or the status, the Error's code and Retry-After when the API said no.
export function PetListView({ id, list }: { id: string; list: PetList }) {
  if (list.status !== 200)
    return (
      <p id={id} role="alert">
        {list.status} {list.code}
        {list.retryAfter ? `, retry after ${list.retryAfter} s` : ''}
      </p>
    )
  return (
    <ul id={id}>
      {list.pets.map((pet) => (
        <li key={pet.id}>{pet.name}</li>
      ))}
    </ul>
  )
}
