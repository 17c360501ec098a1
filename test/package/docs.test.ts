/**
 * The documentation a user reads first: README.md stays short enough to read in a minute (the guides in docs/ hold
 * the rest), and every relative link in README.md, CONTRIBUTING.md and docs/*.md reaches a file, and a heading when
 * it names one (`file.md#anchor`, GitHub's slug of the heading).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
]

/** The text outside fenced code blocks and inline code spans: a `[x](y)` there is code, not a link. */
const prose = (text: string): string => text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '')

/** GitHub's anchor of a heading: lower-case, punctuation dropped but `-` and `_`, each space a `-`. */
const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')

/** The anchors of a markdown file: its headings' (a repeated one gets `-1`, `-2`, … as on GitHub) and its `<a id>`s. */
const anchors = (text: string): Set<string> => {
  const seen = new Map<string, number>()
  const found = new Set<string>()
  for (const [, heading] of text.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(heading as string)
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    found.add(count === 0 ? base : `${base}-${count}`)
  }
  for (const [, id] of text.matchAll(/<a (?:id|name)="([^"]+)"/g)) found.add(id as string)
  return found
}

/** Each relative link of a markdown file, as `[file, target]`; web addresses and mail are left out. */
const links = (file: string): [string, string][] => {
  const text = prose(readFileSync(join(ROOT, file), 'utf8'))
  return [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((match) => match[1] as string)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
    .map((target) => [file, target])
}

/** Why a link does not resolve, or undefined when it does. */
const broken = (file: string, target: string): string | undefined => {
  const [path = '', anchor] = target.split('#')
  const resolved = path === '' ? join(ROOT, file) : join(ROOT, dirname(file), decodeURI(path))
  if (!existsSync(resolved)) return `${file}: ${target}: no file ${relative(ROOT, resolved)}`
  if (anchor === undefined || !resolved.endsWith('.md')) return undefined
  if (anchors(readFileSync(resolved, 'utf8')).has(anchor)) return undefined
  return `${file}: ${target}: no heading with the anchor #${anchor} in ${relative(ROOT, resolved)}`
}

it('keeps README.md at most 12 KiB: the guides in docs/ hold the rest', () => {
  expect(readFileSync(join(ROOT, 'README.md')).byteLength).toBeLessThanOrEqual(12_288)
})

describe('relative links', () => {
  it.each(DOCS)('in %s reach a file, and a heading when they name one', (file) => {
    expect(
      links(file)
        .map(([from, target]) => broken(from, target))
        .filter(Boolean),
    ).toEqual([])
  })

  it('are found, so the check above checks something', () => {
    expect(links('README.md').map(([, target]) => target)).toContain('docs/server.md#optional-tools')
  })

  it("are refused when the file or the heading is missing (GitHub's slugs)", () => {
    expect(slug('Admin API (`/__mock`, never under `/v1`)')).toBe('admin-api-__mock-never-under-v1')
    expect(broken('README.md', 'docs/no-such-guide.md')).toContain('no file docs/no-such-guide.md')
    expect(broken('README.md', 'docs/server.md#no-such-heading')).toContain('no heading')
    expect(broken('README.md', 'docs/server.md#control-panel')).toBeUndefined()
  })
})

/**
 * The blocks a page shows as a file of a project the ecosystem lane runs (docs/storybook.md, docs/nextjs.md): each is
 * tagged `<!-- test: skip: PATH is this block, byte for byte … -->`, so what a user copies is what the lane ran.
 */
const fileBlocks = (file: string): { path: string; block: string }[] =>
  [
    ...readFileSync(join(ROOT, file), 'utf8').matchAll(
      /<!-- test: skip: (\S+) is this block, byte for byte[^\n]*-->\n```\w*\n([\s\S]*?)^```/gm,
    ),
  ].map((match) => ({ path: match[1] as string, block: match[2] as string }))

describe('blocks that are files of a tested project', () => {
  it.each(DOCS)('in %s match their file byte for byte', (file) => {
    for (const { path, block } of fileBlocks(file)) {
      expect(existsSync(join(ROOT, path)), `${file}: ${path}`).toBe(true)
      expect(block, `${file}: ${path}`).toBe(readFileSync(join(ROOT, path), 'utf8'))
    }
  })

  it('are found, so the check above checks something', () => {
    expect(fileBlocks('docs/storybook.md').map((found) => found.path)).toContain('examples/storybook/.storybook/preview.ts')
    expect(fileBlocks('docs/nextjs.md').length).toBeGreaterThan(2)
  })
})
