'use client'
import { useEffect, useState } from 'react'
import type { PetList } from '@/lib/pet-store'
import { PetListView } from './pet-list'

// Fetched in the browser, through the app's route handler: the page needs no API key, and the browser's
// X-Mock-Session (set by the Playwright fixture) goes to the app's own origin, which forwards it.
export function ClientPets() {
  const [list, setList] = useState<PetList>()
  useEffect(() => {
    fetch('/api/pets')
      .then((response) => response.json())
      .then(setList)
  }, [])
  return list ? <PetListView id="client-pets" list={list} /> : <p>Loading…</p>
}
