// Unit tests of the provisioner's pure parts: reading the host's apt sources, the sources written
// into a root, grouping languages into toolchain plans, what a run installs into a provisioned
// root, version extraction and language selection (scripts/provision-rerun.test.ts re-runs the real
// provisioner on the provisioned machine).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadLanguages, type Language, type Stamp } from '../src/languages.ts'
import {
  extractVersion,
  installMarker,
  interruptedByRestart,
  formatElapsed,
  mirrorFromEntries,
  missingPackages,
  mountsUnder,
  parseDeb822,
  parseOneLine,
  planRootRun,
  planToolchains,
  prepareKey,
  type ToolchainPlan,
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
      ['trixie', 'python', ['PYTHON3'], ['pylint', 'python3']],
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

describe('what a run installs', () => {
  const langs = loadLanguages()
  const plansOf = (codes: string[]) => planToolchains(codes.map((c) => langs.get(c)!))
  const key = (p: ToolchainPlan) => `key-${p.toolchain}`
  /** The stamps a finished run over these codes leaves in their root. */
  const provisioned = (codes: string[]): Stamp[] =>
    plansOf(codes).map((p) => ({
      toolchain: p.toolchain,
      root: p.root,
      packages: p.packages,
      prepareKey: key(p),
      provisionedAt: '2025-01-01T00:00:00.000Z',
    }))
  const BASE = ['C', 'CPP17', 'PYTHON3', 'JAVA']

  it('missingPackages: all without a stamp, the new ones with one, none when complete', () => {
    const [gcc] = plansOf(['C'])
    expect(missingPackages(undefined, gcc)).toEqual(gcc.packages)
    const partial = { ...provisioned(['C'])[0], packages: ['gcc', 'libc6-dev'] }
    expect(missingPackages(partial, gcc)).toEqual(['binutils-gold', 'g++'])
    expect(missingPackages(provisioned(['C'])[0], gcc)).toEqual([])
  })

  it('re-running a provisioned set installs nothing and redoes no toolchain', () => {
    expect(planRootRun(plansOf(BASE), provisioned(BASE), key)).toEqual({ pending: [], install: [] })
    // a subset of what is provisioned, e.g. --langs PYTHON3
    expect(planRootRun(plansOf(['PYTHON3']), provisioned(BASE), key)).toEqual({
      pending: [],
      install: [],
    })
  })

  it('adding one language installs only its packages', () => {
    const run = planRootRun(plansOf([...BASE, 'JAVASCRIPT']), provisioned(BASE), key)
    expect(run.pending.map((p) => p.toolchain)).toEqual(['node'])
    expect(run.install).toEqual(['nodejs'])
    // a language joining a toolchain that is there: only the package it adds
    const more = planRootRun(
      plansOf([...BASE, 'JAVASCRIPT', 'TYPESCRIPT']),
      provisioned([...BASE, 'JAVASCRIPT']),
      key
    )
    expect(more.pending.map((p) => p.toolchain)).toEqual(['node'])
    expect(more.install).toEqual(['node-typescript'])
  })

  it('does not install again a package another toolchain of the root already has', () => {
    // kotlin needs the JDK java installed; rust needs the gcc and libc6-dev gcc installed
    const run = planRootRun(plansOf([...BASE, 'KOTLIN', 'RUST']), provisioned(BASE), key)
    expect(run.pending.map((p) => p.toolchain)).toEqual(['kotlin', 'rust'])
    expect(run.install).toEqual(['kotlin', 'rustc'])
  })

  it('lists a package two new toolchains share once', () => {
    const run = planRootRun(plansOf(['PYTHON3', 'KOTLIN', 'SCALA']), provisioned(['PYTHON3']), key)
    expect(run.install).toEqual(['kotlin', 'openjdk-21-jdk-headless', 'scala'])
  })

  it('redoes a toolchain whose prepare steps changed without installing anything', () => {
    const stamps = provisioned(BASE).map((s) =>
      s.toolchain === 'java' ? { ...s, prepareKey: 'older' } : s
    )
    const run = planRootRun(plansOf(BASE), stamps, key)
    expect(run.pending.map((p) => p.toolchain)).toEqual(['java'])
    expect(run.install).toEqual([])
  })

  it('installs everything into an empty root', () => {
    const plans = plansOf(BASE)
    const run = planRootRun(plans, [], key)
    expect(run.pending).toEqual(plans)
    expect(run.install).toEqual([...new Set(plans.flatMap((p) => p.packages))].sort())
  })

  it('compares against the real prepare key by default', () => {
    const plans = plansOf(['JAVA'])
    const stamps = plans.map((p) => ({
      ...provisioned(['JAVA'])[0],
      prepareKey: prepareKey(p.prepare),
    }))
    expect(planRootRun(plans, stamps).pending).toEqual([])
    expect(planRootRun(plans, provisioned(['JAVA'])).pending).toEqual(plans)
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

  it('changes when a helper file a step names as an argument changes (a source it compiles), not for other paths', () => {
    const dir = mkdtempSync(join(tmpdir(), 'arbiter-helpers-'))
    try {
      writeFileSync(join(dir, 'python-precompile'), 'a')
      writeFileSync(join(dir, 'driver.py'), 'x')
      writeFileSync(join(dir, 'clojure.jsa'), 'j')
      const steps = [['/usr/local/lib/arbiter/python-precompile', '/usr/local/lib/arbiter/driver.py', '/usr/local/lib/arbiter/driver.code']]
      const before = prepareKey(steps, dir)
      writeFileSync(join(dir, 'driver.py'), 'y')
      expect(prepareKey(steps, dir)).not.toBe(before)
      // a path below the helpers' folder (jvm-cds's archives) is what a step writes, not a helper
      const cds = [['/usr/local/lib/arbiter/python-precompile', '/usr/local/lib/arbiter/cds/clojure.jsa']]
      const cdsBefore = prepareKey(cds, dir)
      writeFileSync(join(dir, 'clojure.jsa'), 'k')
      expect(prepareKey(cds, dir)).toBe(cdsBefore)
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
    expect(() => selectLanguages(langs, 'C,INTERCAL')).toThrow(/unknown language INTERCAL/)
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

describe('an install cut short', () => {
  const dir = mkdtempSync(join(tmpdir(), 'provision-marker-'))
  const marker = installMarker(dir, 'trixie')
  const thisBoot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()
  const mark = (bootId: string) => {
    mkdirSync(dirname(marker), { recursive: true })
    writeFileSync(marker, JSON.stringify({ bootId, packages: ['gcc'] }))
  }
  it('by a restart of the machine rebuilds the root (dpkg synced nothing it unpacked)', () => {
    mark('00000000-0000-0000-0000-000000000000')
    expect(interruptedByRestart(dir, 'trixie')).toBe(true)
  })
  it('in this boot is finished by dpkg --configure -a, as before (the page cache has the files)', () => {
    mark(thisBoot)
    expect(interruptedByRestart(dir, 'trixie')).toBe(false)
  })
  it('never began, or ended: nothing to redo', () => {
    rmSync(marker)
    expect(interruptedByRestart(dir, 'trixie')).toBe(false)
    expect(interruptedByRestart(dir, 'bullseye')).toBe(false)
    rmSync(dir, { recursive: true, force: true })
  })
})
