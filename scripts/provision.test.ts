// Unit tests of the provisioner's pure parts: reading the host's apt sources, the sources written
// into a root, grouping languages into toolchain plans, version extraction and language selection.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadLanguages, type Language } from '../src/languages.ts'
import {
  extractVersion,
  formatElapsed,
  mirrorFromEntries,
  mountsUnder,
  parseDeb822,
  parseOneLine,
  planToolchains,
  prepareKey,
  rootSourcesList,
  selectLanguages,
} from './provision.ts'

const DEB822 = `Types: deb
# a comment
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://mirror.example/debian-security
Suites: bookworm-security
Components: main

Types: deb-src
URIs: http://src.example/debian
Suites: bookworm
Enabled: yes
`

describe('host apt sources', () => {
  it('reads deb822 stanzas', () => {
    expect(parseDeb822(DEB822)).toEqual([
      {
        types: ['deb'],
        uris: ['http://mirror.example/debian'],
        suites: ['bookworm', 'bookworm-updates'],
      },
      {
        types: ['deb'],
        uris: ['http://mirror.example/debian-security'],
        suites: ['bookworm-security'],
      },
      { types: ['deb-src'], uris: ['http://src.example/debian'], suites: ['bookworm'] },
    ])
  })

  it('skips disabled deb822 stanzas', () => {
    expect(parseDeb822('Types: deb\nURIs: http://x/debian\nSuites: sid\nEnabled: no\n')).toEqual([])
  })

  it('reads one-line sources with options and comments', () => {
    expect(
      parseOneLine(
        '# c\ndeb [arch=amd64 signed-by=/k.gpg] http://m.example/debian bookworm main\n\n'
      )
    ).toEqual([{ types: ['deb'], uris: ['http://m.example/debian'], suites: ['bookworm'] }])
  })

  it.each([
    [
      'deb822 with updates and security',
      parseDeb822(DEB822),
      {
        archive: 'http://mirror.example/debian',
        security: 'http://mirror.example/debian-security',
        updates: true,
      },
    ],
    [
      'one line, archive only',
      parseOneLine('deb http://m.example/debian/ bookworm main'),
      { archive: 'http://m.example/debian', updates: false },
    ],
  ])('finds the mirror in %s', (_, entries, want) => {
    expect(mirrorFromEntries(entries)).toEqual(want)
  })

  it('fails plainly when no Debian archive is configured', () => {
    expect(() => mirrorFromEntries(parseOneLine('deb-src http://x/debian bookworm main'))).toThrow(
      /no Debian archive/
    )
  })

  it.each([
    [{ archive: 'http://m/debian', updates: false }, 'deb http://m/debian trixie main\n'],
    [
      { archive: 'http://m/debian', security: 'http://m/debian-security', updates: true },
      'deb http://m/debian trixie main\ndeb http://m/debian trixie-updates main\ndeb http://m/debian-security trixie-security main\n',
    ],
  ])('writes the root sources for %j', (mirror, want) => {
    expect(rootSourcesList(mirror, 'trixie')).toBe(want)
  })
})

describe('mountsUnder', () => {
  const table = [
    'proc /proc proc rw 0 0',
    'proc /srv/tc/.trixie.partial/proc proc rw 0 0',
    'udev /srv/tc/.trixie.partial/dev devtmpfs rw 0 0',
    'devpts /srv/tc/.trixie.partial/dev/pts devpts rw 0 0',
    'tmpfs /srv/tc/.trixie.partialX/tmp tmpfs rw 0 0',
    'tmpfs /srv/tc/with\\040space/tmp tmpfs rw 0 0',
  ].join('\n')

  it.each([
    [
      '/srv/tc/.trixie.partial',
      [
        '/srv/tc/.trixie.partial/dev/pts',
        '/srv/tc/.trixie.partial/proc',
        '/srv/tc/.trixie.partial/dev',
      ],
    ],
    ['/srv/tc/with space', ['/srv/tc/with space/tmp']],
    ['/srv/tc/bullseye', []],
  ])('%s → %j (deepest first, no prefix look-alikes)', (dir, want) => {
    expect(mountsUnder(dir, table)).toEqual(want)
  })
})

describe('planToolchains', () => {
  const langs = loadLanguages()

  it('groups codes by root and toolchain with the union of their packages', () => {
    const plans = planToolchains(
      ['PYTHON', 'PYTHON3', 'PYTHON3_8', 'TYPESCRIPT', 'JAVASCRIPT'].map((c) => langs.get(c)!)
    )
    expect(plans.map((p) => [p.root, p.toolchain, p.codes.sort(), p.packages])).toEqual([
      ['bullseye', 'python', ['PYTHON', 'PYTHON3_8'], ['python2.7', 'python3.9']],
      ['trixie', 'node', ['JAVASCRIPT', 'TYPESCRIPT'], ['node-typescript', 'nodejs']],
      ['trixie', 'python', ['PYTHON3'], ['python3']],
    ])
  })

  it('lists a shared prepare step once', () => {
    const go = langs.get('GO')!
    const twin = { ...go, code: 'GO2' } as Language
    expect(planToolchains([go, twin])[0].prepare).toEqual(go.prepare)
  })

  it('plans every language of the manifest into two roots', () => {
    expect(new Set(planToolchains([...langs.values()]).map((p) => p.root))).toEqual(
      new Set(['trixie', 'bullseye'])
    )
  })
})

describe('prepareKey', () => {
  it('changes when a helper named by a prepare step changes, and only then', () => {
    const dir = mkdtempSync(join(tmpdir(), 'arbiter-helpers-'))
    try {
      writeFileSync(join(dir, 'go-prepare'), 'a')
      writeFileSync(join(dir, 'other'), 'x')
      const steps = [['/usr/local/lib/arbiter/go-prepare']]
      const before = prepareKey(steps, dir)
      writeFileSync(join(dir, 'other'), 'y')
      expect(prepareKey(steps, dir)).toBe(before)
      writeFileSync(join(dir, 'go-prepare'), 'b')
      expect(prepareKey(steps, dir)).not.toBe(before)
      expect(prepareKey([], dir)).not.toBe(before)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('extractVersion', () => {
  it.each([
    ['openjdk version "21.0.13" 2025-10-21', 'version "([^"]+)"', '21.0.13'],
    ['go version go1.24.4 linux/amd64', 'go version go(\\S+)', '1.24.4'],
    ['Python 2.7.18', 'Python (\\S+)', '2.7.18'],
    ['14.2.0', '(\\d+(?:\\.\\d+)+)', '14.2.0'],
    ['no digits here', '(\\d+(?:\\.\\d+)+)', undefined],
  ])('%j with /%s/ → %s', (output, pattern, want) => {
    expect(extractVersion(output, pattern)).toBe(want)
  })
})

describe('selectLanguages', () => {
  const langs = loadLanguages()
  it.each([
    [undefined, langs.size],
    ['all', langs.size],
    ['ALL', langs.size],
    ['C,c++, python2', 3],
    ['CPP,C++', 1],
  ])('%j selects %i', (spec, n) => {
    expect(selectLanguages(langs, spec)).toHaveLength(n)
  })

  it('names an unknown code', () => {
    expect(() => selectLanguages(langs, 'C,COBOL')).toThrow(/unknown language COBOL/)
  })
})

describe('formatElapsed', () => {
  it.each([
    [0, '0s'],
    [59_999, '59s'],
    [60_000, '1m00s'],
    [754_000, '12m34s'],
  ])('%i ms → %s', (ms, want) => {
    expect(formatElapsed(ms)).toBe(want)
  })
})
