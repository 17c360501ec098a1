/**
 * "Did you mean …?": the one rule for every name a person may mistype (an option, a command, a config file's key, a
 * scenario's name). Whoever writes such a message asks here, so the same typo gets the same answer everywhere.
 */

/** Letters one word needs changed, added or removed to become the other (Levenshtein distance). */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const next = [i]
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min((row[j] as number) + 1, (next[j - 1] as number) + 1, (row[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1))
    row = next
  }
  return row[b.length] as number
}

/**
 * The known name an unknown word is likely a typo of: the closest name one or two letters off (one for a word of up to
 * five letters), else the same letters in another order, else one a part of the other (both of three letters or more):
 * the nearest by edit distance first, so `outage-incidet` means `outage-incident`, not the `outage` it contains. None
 * for a word under three letters.
 *
 * @example
 * likelyMeant('verfy', ['verify', 'snapshot', 'config']) // 'verify'
 * likelyMeant('sold-out-store', ['sold-out', 'flaky']) // 'sold-out'
 */
export function likelyMeant(word: string, names: readonly string[]): string | undefined {
  if (word.length < 3) return undefined
  const letters = (text: string) => [...text].sort().join('')
  const partOf = (known: string) => known.length >= 3 && (known.includes(word) || word.includes(known))
  const near = word.length <= 5 ? 1 : 2
  let closest: { name: string; off: number } | undefined
  for (const known of names) {
    const off = distance(known, word)
    if (off <= near && (!closest || off < closest.off)) closest = { name: known, off }
  }
  return closest?.name ?? names.find((known) => letters(known) === letters(word)) ?? names.find(partOf)
}
