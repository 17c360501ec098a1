import { ApiError, useApi } from './api'

export function PetDetail({ id }: { id: number }) {
  const answer = useApi<{ name: string; status?: string }>(`/v1/pets/${id}`)
  if (answer.state === 'loading') return <p>Loading…</p>
  if (answer.state === 'error') return <ApiError error={answer} />
  return (
    <article>
      <h2>{answer.data.name}</h2>
      <p>{answer.data.status ?? 'no status'}</p>
    </article>
  )
}
