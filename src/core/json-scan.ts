/**
 * A reader of JSON text's structure that does not parse values: where a value ends, skipping strings (with their
 * escapes) and nested objects and arrays. `parseSnapshotInSlices` (src/snapshot.ts) uses it to cut a state's pets into
 * groups that are parsed and checked one at a time, with the event loop given back between them. It checks only what
 * it walks over (commas, colons, brackets, quotes): each value it cuts out is then parsed, which checks the rest.
 */

const QUOTE = 34
const BACKSLASH = 92

/** A cursor over `text`; each method returns `false` (or -1) where the text is not what it expects. */
export class JsonScanner {
  position = 0

  constructor(readonly text: string) {}

  /** Skips spaces, tabs and line ends (JSON's whitespace). */
  skipSpace(): void {
    const { text } = this
    let at = this.position
    for (;;) {
      const code = text.charCodeAt(at)
      if (code !== 32 && code !== 10 && code !== 13 && code !== 9) break
      at += 1
    }
    this.position = at
  }

  /** Takes `char` (after whitespace); `false` when the next character is another. */
  take(char: string): boolean {
    this.skipSpace()
    if (this.text[this.position] !== char) return false
    this.position += 1
    return true
  }

  /** The next character after whitespace, not taken. */
  peek(): string | undefined {
    this.skipSpace()
    return this.text[this.position]
  }

  /** Skips one value (after whitespace); its end, or -1 when the text ends first or nothing is there. */
  skipValue(): number {
    this.skipSpace()
    const { text } = this
    const first = text[this.position]
    if (first === '"') return this.#skipString()
    if (first === '{' || first === '[') return this.#skipNested()
    let at = this.position
    while (at < text.length && !',}] \t\r\n'.includes(text[at] as string)) at += 1
    if (at === this.position) return -1
    this.position = at
    return at
  }

  /** A string's end (after its closing quote), or -1. */
  #skipString(): number {
    const { text } = this
    let at = this.position + 1
    while (at < text.length) {
      const code = text.charCodeAt(at)
      if (code === QUOTE) {
        this.position = at + 1
        return this.position
      }
      at += code === BACKSLASH ? 2 : 1
    }
    return -1
  }

  /** An object's or array's end (after its closing bracket), strings inside skipped whole; or -1. */
  #skipNested(): number {
    const { text } = this
    let depth = 0
    let at = this.position
    while (at < text.length) {
      const char = text[at]
      if (char === '"') {
        this.position = at
        if (this.#skipString() === -1) return -1
        at = this.position
        continue
      }
      if (char === '{' || char === '[') depth += 1
      else if (char === '}' || char === ']') {
        depth -= 1
        if (depth === 0) {
          this.position = at + 1
          return this.position
        }
      }
      at += 1
    }
    return -1
  }
}
