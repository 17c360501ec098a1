// The app's one way to the Pet Store API, used by the server component (app/page.tsx) and the route handler
// (app/api/pets/route.ts). It forwards the X-Mock-Session header of the request being answered, so a Playwright test's
// session reaches the mock from the app's server too; outside development and tests that header never comes.
import { headers } from 'next/headers'

export interface PetList {
  status: number
  pets: { id: number; name: string }[]
  /** The Error body's `code` when the status is not 200. */
  code?: string
  retryAfter?: string
}

export async function listPets(): Promise<PetList> {
  const session = (await headers()).get('x-mock-session')
  const response = await fetch(`${process.env.PETSTORE_URL}/v1/pets?limit=5`, {
    headers: { Authorization: `Bearer ${process.env.PETSTORE_KEY}`, ...(session ? { 'X-Mock-Session': session } : {}) },
    cache: 'no-store',
  })
  if (response.ok) return { status: response.status, pets: await response.json() }
  const error = await response.json().catch(() => ({}))
  return { status: response.status, pets: [], code: error.code, retryAfter: response.headers.get('Retry-After') ?? undefined }
}
