/**
 * Files the standalone server reads at start-up: the user's scenarios (`--scenarios DIR`) and
 * fixtures (`--fixtures DIR`), and the fixture files `npm run fixtures` writes.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parseJson, stringifyJson } from '../core/json.js'
import { DEFAULT_KEYS, type KeyConfig } from '../keys.js'
import type { PetRecord } from '../schemas.js'
import { generatePets } from '../store/seed.js'

async function readJson(file: string, readable = false): Promise<unknown> {
  const text = await readFile(file, 'utf8')
  if (readable) {
    try {
      return JSON.parse(text)
    } catch (error) {
      throw new Error(`[petstore-mock] ${file} is not valid JSON: ${(error as Error).message}.`)
    }
  }
  const parsed = parseJson(text)
  if (!parsed.ok) throw new Error(`[petstore-mock] ${file} is not valid JSON: ${parsed.message}.`)
  return parsed.value
}

/** Every `*.json` scenario file in `dir`, with its path for error messages. */
export async function readScenarioDir(dir: string): Promise<{ scenario: unknown; source: string }[]> {
  let names: string[]
  try {
    names = (await readdir(dir)).filter((name) => name.endsWith('.json') && !name.endsWith('.schema.json')).sort()
  } catch (error) {
    throw new Error(`[petstore-mock] Cannot read the scenarios folder ${dir}: ${(error as Error).message}`)
  }
  if (names.length === 0) throw new Error(`[petstore-mock] The scenarios folder ${dir} has no .json files.`)
  return Promise.all(names.map(async (name) => ({ scenario: await readJson(join(dir, name), true), source: join(dir, name) })))
}

/** `keys.json` and/or `pets.json` from a fixtures folder. */
export async function readFixturesDir(dir: string): Promise<{ keys?: KeyConfig[]; pets?: unknown[] }> {
  const result: { keys?: KeyConfig[]; pets?: unknown[] } = {}
  const load = async (name: string) => {
    try {
      return await readJson(join(dir, name))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw error
    }
  }
  const keys = (await load('keys.json')) as { keys?: unknown } | undefined
  const pets = (await load('pets.json')) as { pets?: unknown } | unknown[] | undefined
  if (keys === undefined && pets === undefined)
    throw new Error(`[petstore-mock] The fixtures folder ${dir} has neither keys.json nor pets.json.`)
  if (keys !== undefined) {
    if (!Array.isArray(keys.keys))
      throw new Error(`[petstore-mock] ${join(dir, 'keys.json')} must be { "keys": [{ "key", "plan", "limits"? }] }.`)
    result.keys = (keys.keys as Record<string, unknown>[]).map((key) => ({
      ...key,
      ...(key.limits ? { limits: Object.fromEntries(Object.entries(key.limits as object).map(([k, v]) => [k, Number(v)])) } : {}),
    })) as unknown as KeyConfig[]
  }
  if (pets !== undefined) {
    const list = Array.isArray(pets) ? pets : pets.pets
    if (!Array.isArray(list)) throw new Error(`[petstore-mock] ${join(dir, 'pets.json')} must be { "pets": [...] } or an array of pets.`)
    result.pets = list
  }
  return result
}

/**
 * Writes a reproducible data set: `pets.json` (seeded pets) and `keys.json` (the default keys).
 * The same options write byte-identical files.
 */
export async function writeFixtures(options: { seed: number; pets: number; categories?: number; out: string }): Promise<string[]> {
  const pets: PetRecord[] = generatePets({ seed: options.seed, count: options.pets, categories: options.categories ?? 10 })
  await mkdir(options.out, { recursive: true })
  const petsFile = join(options.out, 'pets.json')
  const keysFile = join(options.out, 'keys.json')
  await writeFile(petsFile, `${stringifyJson({ seed: options.seed, pets }, 2)}\n`)
  await writeFile(keysFile, `${JSON.stringify({ keys: DEFAULT_KEYS }, null, 2)}\n`)
  return [petsFile, keysFile]
}
