import { useEffect, useState } from 'react'

/** What the page got back: the body of a 2xx, or the API's Error body with the status and `Retry-After`. */
export type Answer<T> =
  | { state: 'loading' }
  | { state: 'ok'; data: T }
  | { state: 'error'; status: number; code: string; message: string; retryAfter: string | null }

/** Calls the Pet Store API with the app's key, as the real front end does; the mock answers in the page. */
export function useApi<T>(path: string): Answer<T> {
  const [answer, setAnswer] = useState<Answer<T>>({ state: 'loading' })
  useEffect(() => {
    let current = true
    fetch(path, { headers: { Authorization: 'Bearer test-free' } }).then(async (response) => {
      const body = await response.json()
      if (!current) return
      if (response.ok) setAnswer({ state: 'ok', data: body })
      else {
        const { code, message } = body
        setAnswer({ state: 'error', status: response.status, code, message, retryAfter: response.headers.get('Retry-After') })
      }
    })
    return () => {
      current = false
    }
  }, [path])
  return answer
}

export function ApiError({ error }: { error: Extract<Answer<unknown>, { state: 'error' }> }) {
  return (
    <div role="alert">
      <strong>{error.status}</strong> <code>{error.code}</code>: {error.message}
      {error.retryAfter !== null && <p>Retry after {error.retryAfter} s</p>}
    </div>
  )
}
