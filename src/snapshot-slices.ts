/**
 * A state's JSON text read a slice of pets at a time, the event loop given back between slices: `PUT /__mock/state`
 * and the MCP `import_state` of a large state never hold the API's thread for long (the bound written beside
 * `importState` in src/admin/operations.ts; bench/admin-state.ts measures it). The result is `parseSnapshot`'s, with
 * the same checks; text it cannot cut (not one object with one `pets` array, or broken where it walks) is read whole by
 * `parseSnapshot`, which names the problem.
 */
import { z } from 'zod'
import { issuePath, issueText } from './core/issues.js'
import { parseJson } from './core/json.js'
import { JsonScanner } from './core/json-scan.js'
import { type PetRecord, PetRecordSchema } from './schemas.js'
import { parseSnapshot, type SnapshotResult } from './snapshot.js'

/** Pets parsed and checked between two pauses: about 130 KB of text, a few milliseconds. */
const PETS_PER_SLICE = 2_000
const PetListSchema = z.array(PetRecordSchema)

/** Why a slice was refused: a message, or `whole` (not JSON as the scanner expects: `parseSnapshot` names why). */
type Refusal = { ok: false; message: string } | 'whole'

/** The pets read so far, and what the snapshot's refinement checks across them (src/snapshot.ts). */
interface Pets {
  readonly list: PetRecord[]
  readonly seen: Set<bigint>
  largest: bigint
}

/**
 * @example
 * const result = await parseSnapshotInSlices(text, () => new Promise((resolve) => setImmediate(resolve)))
 */
export async function parseSnapshotInSlices(text: string, pause: () => Promise<void>): Promise<SnapshotResult> {
  const pets: Pets = { list: [], seen: new Set(), largest: 0n }
  const cut = await cutPets(new JsonScanner(text), pets, pause)
  if (cut === 'whole') return parseSnapshot(text)
  if (typeof cut !== 'string') return cut
  const rest = parseSnapshot(cut)
  if (!rest.ok) return rest
  const { nextId } = rest.snapshot
  if (nextId <= pets.largest)
    return { ok: false, message: `Invalid state: nextId: must be above the largest pet id (${pets.largest}), got ${nextId}.` }
  return { ok: true, snapshot: { ...rest.snapshot, pets: pets.list } }
}

/** Reads the top-level object: its `pets` slice by slice into `pets`; the text with `"pets": []` in their place. */
async function cutPets(scan: JsonScanner, pets: Pets, pause: () => Promise<void>): Promise<string | Refusal> {
  const { text } = scan
  if (!scan.take('{')) return 'whole'
  let array: [number, number] | undefined
  if (!scan.take('}')) {
    for (;;) {
      if (scan.peek() !== '"') return 'whole'
      const keyStart = scan.position
      if (scan.skipValue() === -1) return 'whole'
      const key = text.slice(keyStart, scan.position)
      // A key written with escapes could be "pets" too: only plain keys are compared here.
      if (key.includes('\\') || !scan.take(':')) return 'whole'
      if (key === '"pets"') {
        if (array || scan.peek() !== '[') return 'whole'
        const start = scan.position
        const read = await readPets(scan, pets, pause)
        if (read !== undefined) return read
        array = [start, scan.position]
      } else if (scan.skipValue() === -1) return 'whole'
      if (scan.take(',')) continue
      if (scan.take('}')) break
      return 'whole'
    }
  }
  scan.skipSpace()
  if (!array || scan.position !== text.length) return 'whole'
  return `${text.slice(0, array[0])}[]${text.slice(array[1])}`
}

/** Reads the `pets` array (the scanner at its `[`), a slice at a time; a refusal, or `undefined` once read. */
async function readPets(scan: JsonScanner, pets: Pets, pause: () => Promise<void>): Promise<Refusal | undefined> {
  scan.take('[')
  if (scan.take(']')) return undefined
  let sliceStart = scan.position
  let count = 0
  for (;;) {
    if (scan.skipValue() === -1) return 'whole'
    count += 1
    const more = scan.take(',')
    if (!more && !scan.take(']')) return 'whole'
    if (count === PETS_PER_SLICE || !more) {
      // The slice ends before the comma or bracket just taken.
      const refused = addSlice(scan.text.slice(sliceStart, scan.position - 1), pets)
      if (refused) return refused
      await pause()
      sliceStart = scan.position
      count = 0
    }
    if (!more) return undefined
  }
}

/** Parses and checks one slice of pets, as the snapshot's schema and refinement check each one. */
function addSlice(slice: string, pets: Pets): Refusal | undefined {
  const parsed = parseJson(`[${slice}]`)
  if (!parsed.ok) return 'whole'
  const result = PetListSchema.safeParse(parsed.value)
  const offset = pets.list.length
  if (!result.success) {
    const issues = result.error.issues
      .slice(0, 5)
      .map((issue) => issueText({ ...issue, path: ['pets', offset + Number(issue.path[0]), ...issue.path.slice(1)] }))
    return { ok: false, message: `Invalid state: ${issues.join('; ')}.` }
  }
  for (const [index, pet] of result.data.entries()) {
    if (pets.seen.has(pet.id))
      return {
        ok: false,
        message: `Invalid state: ${issuePath(['pets', offset + index, 'id'])}: is ${pet.id}, which an earlier pet has too.`,
      }
    pets.seen.add(pet.id)
    if (pet.id > pets.largest) pets.largest = pet.id
    pets.list.push(pet)
  }
  return undefined
}
