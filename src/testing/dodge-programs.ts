// C programs that try to dodge a run's figures and limits or to reach the host, shared by the tests that
// run them in the worker directly (src/sandbox/dodges.test.ts) and through the privilege boundaries (the
// jail daemon's socket and a sandbox host: src/e2e/dodges-boundaries.e2e.test.ts).

/** A program image of `mb` MB of initialised data, every page of which the program reads; `before` runs first. */
export const imageProgram = (mb: number, before = '') => `#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
static char big[${mb} << 20] = {1};
int main(int argc, char **argv) {
  (void)argc; ${before}
  long sum = 0;
  for (long i = 0; i < (${mb}L << 20); i += 4096) sum += ((volatile char *)big)[i];
  printf("%ld\\n", sum);
  return 0;
}`

/** The same image as constant data (read-only pages of the binary: counted only if the image is). */
export const constImageProgram = (mb: number) => imageProgram(mb).replace('static char', 'static const char')

/** A child touches 300 MB and is killed for it while its parent prints "42" and exits 0. */
export const childOomProgram = `#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
int main(void) {
  pid_t p = fork();
  if (p == 0) { size_t n = 300u << 20; volatile char *q = malloc(n); for (size_t i = 0; i < n; i += 4096) q[i] = 1; _exit(0); }
  int st; waitpid(p, &st, 0);
  printf("42\\n");
  return 0;
}`

/**
 * Two threads burn CPU until the process has used 0.494 s of it: the run ends within a few ms of wall
 * time around a 0.5 s limit, often between two of the supervisor's looks at its CPU time.
 */
export const cpuEdgeProgram = `#include <pthread.h>
#include <time.h>
static void *spin(void *arg) {
  struct timespec t;
  do clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); while (t.tv_sec * 1000000000L + t.tv_nsec < 494000000L);
  return arg;
}
int main(void) { pthread_t other; pthread_create(&other, 0, spin, 0); spin(0); pthread_join(other, 0); return 0; }`

/** Calls that reach every job on the host (sync, fadvise DONTNEED) and their harmless neighbours. */
export const hostEffectsProgram = `#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
static const char *r(long rc) { return rc == 0 ? "OK" : strerror(errno); }
static const char *a(int rc) { return rc == 0 ? "OK" : strerror(rc); }
int main(void) {
  int fd = open("/usr/bin/env", O_RDONLY), w = open("/work/f", O_WRONLY | O_CREAT, 0644);
  write(w, "x", 1);
  printf("sync %s\\n", r(syscall(SYS_sync)));
  printf("syncfs %s\\n", r(syncfs(w)));
  printf("fsync %s\\n", r(fsync(w)));
  printf("dontneed %s\\n", a(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)));
  printf("sequential %s\\n", a(posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL)));
  printf("willneed %s\\n", a(posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED)));
  return 0;
}`
export const hostEffectsExpected = 'sync Operation not permitted\nsyncfs OK\nfsync OK\ndontneed Operation not permitted\nsequential OK\nwillneed OK\n'

/**
 * Prints the jail's user namespace map ("65534 <host uid> 1": the host uid its processes run as, which
 * per-user kernel quotas are counted against), then stays `holdMs` so that jobs sent together overlap.
 */
export const hostUidProgram = (holdMs: number) => `#include <stdio.h>
#include <time.h>
int main(void) {
  FILE *f = fopen("/proc/self/uid_map", "r");
  unsigned inside, outside, count;
  if (!f || fscanf(f, "%u %u %u", &inside, &outside, &count) != 3) return 1;
  printf("%u %u %u\\n", inside, outside, count);
  fflush(stdout);
  struct timespec t = { ${Math.floor(holdMs / 1000)}, ${(holdMs % 1000) * 1_000_000} };
  nanosleep(&t, 0);
  return 0;
}`
