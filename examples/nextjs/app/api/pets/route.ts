// The client component's way to the pets: this handler answers from the app's server, as the page does.
import { listPets } from '@/lib/pet-store'

export async function GET() {
  const list = await listPets()
  return Response.json(list, { status: list.status })
}
