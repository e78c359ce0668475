// A language entry of the manifest (languages.ts loads and checks them), types only: deps.ts names it
// without loading the manifest's reader.
export interface Language {
  /** canonical spec code, e.g. 'CPP17' */
  code: string
  /** other codes accepted for it, e.g. ['C++'] (case-insensitive lookup) */
  aliases: string[]
  /** display name, e.g. 'C++17 (g++ 14)' */
  name: string
  /** manifest file stem, e.g. 'gcc' */
  toolchain: string
  /** rootfs name, which is also its Debian suite: 'trixie' | 'bullseye' */
  root: string
  packages: string[]
  /** e.g. 'main.cpp' */
  sourceFile: string
  /** argv; absent for interpreted languages */
  compile?: string[]
  run: string[]
  version: string[]
  /** regex whose first group is the version in the version command's stdout + stderr */
  versionPattern: string
  env: Record<string, string>
  /** The manifest's own compile limits; a missing one is the config's limits.compile_* default. */
  compileLimits: { timeSec?: number; memoryKb?: number; processes?: number }
  /** added to the cgroup limit (JVM etc.), 0 by default */
  runMemoryHeadroomKb: number
  /** override of the default process limit if a runtime needs more threads */
  runProcesses?: number
  /** override of the default open-files limit (R refuses to start below ~170) */
  runOpenFiles?: number
  /** argv run once inside the root, as root, after its packages are installed (caches etc.) */
  prepare: string[][]
  /** files from the npm and Maven registries, pinned by version and sha256, laid into the root before prepare */
  artifacts: Artifact[]
  /** regex on stderr that means the runtime ran out of the memory it was given (JVM heap) */
  memoryErrorPattern?: string
  /** program that echoes one line of stdin (sourceIsOutput: any text, which the run prints as it is) */
  selftest: string
  /** program that must fail to compile (or, interpreted, fail to parse); '' when sourceIsOutput */
  selftestError: string
  /**
   * The program's output is its source (Plain Text): nothing can fail to parse and nothing can loop, so
   * the entry has no selftest_error nor endless_loop, and its self-test prints itself.
   */
  sourceIsOutput?: boolean
  /**
   * The source is the program itself (Judge0's Executable: an ELF binary, or a script with `#!`):
   * written with mode 0755 and run as it is; its size cap is limits.executable_max_bytes.
   */
  sourceExecutable?: boolean
  /** A form only Judge0 has (its Executable, its multi-file program): offered through Judge0 and nowhere else. */
  judge0Only?: boolean
  /** regex the compiler's (interpreter's) message for selftestError must match: a syntax error in its own words */
  selftestErrorMessage?: string
  /** a program that never ends, written so no optimiser removes the loop (the TLE test of every language) */
  endlessLoop?: string
  /** the room editor's syntax mode for this code (src/room/editor/modes.ts) */
  editorMode?: string
  note?: string
  /** Judge0's ids for it and its name under each (several ids may run one code); [] = not offered through Judge0 */
  judge0: Judge0Name[]
  /** Piston's language name and aliases for it; absent = not offered through Piston */
  piston?: PistonName
  /** Jobe's language_id for it (lowercase); the code in lowercase unless the entry names another */
  jobe: string
  /** the Dolos parser similarity reports compare it with; absent = not comparable */
  similarity?: string
}

/** One Judge0 id of a language: the name Judge0 lists, `{version}` standing for the provisioned version. */
export interface Judge0Name {
  id: number
  name: string
  /** the version `{version}` shows when provisioning recorded none (an API host whose languages run on sandbox hosts) */
  version?: string
}

/** Piston's name for a language, the other names a client may send, and Piston's `runtime` (the package providing several languages). */
export interface PistonName {
  name: string
  aliases: string[]
  runtime?: string
}

/**
 * One pinned file from a language registry (what Debian does not ship: Kotlin 2, Scala 3, TypeScript 5).
 * Fetched on the host with that registry's own client as configured there (mvn, npm), checked against
 * `sha256`, and laid into the root under `to`: a Maven jar as `<to>/<artifactId>.jar`, an npm package's
 * tarball unpacked into `<to>` (its `package/` folder stripped). See scripts/artifacts.ts.
 */
export type Artifact =
  | { maven: string; sha256: string; to: string }
  | { npm: string; sha256: string; to: string }
