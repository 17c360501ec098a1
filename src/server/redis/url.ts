/** `redis://user:secret@host:6379/0` as it may be shown or logged: without the password. Imports nothing. */
export function safeUrl(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password) parsed.password = '***'
    return parsed.toString()
  } catch {
    return '(an invalid URL)'
  }
}
