import { listPets } from '@/lib/pet-store'
import { ClientPets } from './client-pets'
import { PetListView } from './pet-list'

// Rendered on every request (listPets reads the request's headers): the pets the app's server fetched.
export default async function Home() {
  const list = await listPets()
  return (
    <main>
      <h1>Pets</h1>
      <h2>From the server component</h2>
      <PetListView id="server-pets" list={list} />
      <h2>From the client component</h2>
      <ClientPets />
    </main>
  )
}
