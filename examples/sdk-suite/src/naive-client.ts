/** A deliberately naive client: on 429 it retries at once, ignoring Retry-After. Do not ship this. */
export async function naiveListPets(baseUrl: string, apiKey: string, fetchFn: typeof fetch, attempts = 10): Promise<Response> {
  let response: Response | undefined
  for (let i = 0; i < attempts; i++) {
    response = await fetchFn(`${baseUrl}/pets`, { headers: { authorization: `Bearer ${apiKey}` } })
    if (response.status !== 429) return response
  }
  return response as Response
}
