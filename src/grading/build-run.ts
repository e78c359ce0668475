// A Kattis/ICPC program given as a folder with `build` and `run` scripts (problemtools' BuildRun):
// `build` runs once, in the jail, in (a copy of) the folder, and must leave a file `run`; `run` is
// then the program's command. The two commands below are bash in the jail (never a host shell), each
// one line (the supervisor's requests are line-based). A script that starts with `#!` runs with the
// interpreter that line names, as the kernel would (its one optional argument kept whole), so that the
// package's modes need not survive a zip; one without `#!` runs with bash; a `run` that is not a
// script (a binary the build made) is executed as it is.

/** The interpreter of a script file $1 from its `#!` line, else bash, then the script and the rest of argv. */
const RUN_SCRIPT =
  'f=$1; shift; h=; IFS= read -r -n 2 h < "$f"; if [ "$h" = \'#!\' ]; then IFS= read -r l < "$f"; read -r i a <<< "${l#??}"; exec "$i" ${a:+"$a"} "./$f" "$@"; elif [ -x "$f" ] && [ "$f" = run ]; then exec "./$f" "$@"; else exec bash "./$f" "$@"; fi'

/**
 * The build step: `build` run as above (its output is the compile message), then the file `run` must
 * be there, a regular file (problemtools: 'build script did not produce an executable called "run"').
 */
const BUILD_SCRIPT =
  `( set -- build; ${RUN_SCRIPT} ); s=$?; if [ $s -ne 0 ]; then echo "build exited with code $s" >&2; exit 1; fi; if [ -L run ] || [ ! -f run ]; then echo 'build script did not produce a file called "run"' >&2; exit 1; fi`

/** The compile step of a build/run program (the box holds the folder's files, `build` among them). */
export const BUILD_ARGV = ['bash', '-c', BUILD_SCRIPT, 'build-run']

/** The run step: `run` with the program's arguments after it. */
export const RUN_ARGV = ['bash', '-c', RUN_SCRIPT, 'build-run', 'run']

/** The language a build/run program's scripts run in: bash in the root where every provisioned compiler is on PATH. */
export const BUILD_RUN_LANG = 'MULTIFILE'

/** The file name a build/run program's `build` script is written under (the checker's source). */
export const BUILD_FILE = 'build'
export const RUN_FILE = 'run'
