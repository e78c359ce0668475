// Programs of an interactive problem for tests: an output validator and submissions in C, friendly and
// hostile, shared by the jail tests of interactive problems (src/packages/interactive*.test.ts) and
// their end-to-end test through a sandbox host, so every mode judges the very same programs.

/**
 * The validator: its input file holds a mode and a number n. "play": it sends n, expects 2n back, then
 * says "bye" and accepts; "crash" aborts; "hang" sleeps, whatever happens; "early" rejects at once;
 * "exit7" exits 7 at once; "flood": 256 KiB of n's (four pipe buffers), then it closes its output and expects 2n; "spew":
 * writes n's for ever and reads nothing.
 */
export const VALIDATOR = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static void say(const char *dir, const char *name, const char *text) {
  char p[512]; snprintf(p, sizeof p, "%s/%s", dir, name);
  FILE *f = fopen(p, "w"); if (f) { fputs(text, f); fclose(f); }
}
int main(int argc, char **argv) {
  char mode[16] = ""; int n = 0;
  FILE *in = fopen(argv[1], "r");
  if (!in || fscanf(in, "%15s %d", mode, &n) != 2) return 1;
  if (!strcmp(mode, "crash")) abort();
  if (!strcmp(mode, "hang")) for (;;) pause();
  if (!strcmp(mode, "early")) { say(argv[3], "judgemessage.txt", "rejected at once"); return 43; }
  if (!strcmp(mode, "exit7")) return 7;
  if (!strcmp(mode, "spew")) for (;;) printf("%d\\n", n);
  if (!strcmp(mode, "flood")) {
    for (long sent = 0; sent < (256L << 10); sent += 2) printf("%d\\n", n);
    fclose(stdout);
  } else {
    printf("%d\\n", n);
    fflush(stdout);
  }
  int r;
  /* the end of file is the submission's end: rejected 50 ms later, so the two ends are further apart
     than two inits' wake-ups can misorder (docs/api/problem-packages.md: a known limit) */
  if (scanf("%d", &r) != 1) { usleep(50000); say(argv[3], "judgemessage.txt", "no answer"); return 43; }
  if (r != 2 * n) { char m[64]; snprintf(m, sizeof m, "got %d, not %d", r, 2 * n); say(argv[3], "judgemessage.txt", m); return 43; }
  if (strcmp(mode, "flood")) { printf("bye\\n"); fflush(stdout); }
  say(argv[3], "teammessage.txt", "well played");
  return 42;
}
`

/**
 * A submission that looks for anything other than its peer: TCP on loopback (the given ports and some
 * usual ones), an abstract unix socket, files of the validator's or of the host (the given paths), the
 * validator among its processes, a descriptor beyond its own three, a stdin that is not a pipe. If it
 * finds any it exits 1 (RTE), else it answers as the good one (AC).
 */
export function prober(ports: number[] = [], paths: string[] = []): string {
  const allPorts = [22, 80, 443, 6379, 8080, ...ports]
  const allPaths = ['judge_answer', 'feedback', '/work/feedback', '/var/lib/arbiter', ...paths]
  return `#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>
int main(void) {
  int found = 0;
  int ports[] = {${allPorts.join(', ')}};
  for (unsigned i = 0; i < sizeof ports / sizeof ports[0]; i++) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0}; a.sin_family = AF_INET; a.sin_port = htons(ports[i]); a.sin_addr.s_addr = htonl(0x7f000001);
    if (s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a) == 0) found |= 1;
    if (s >= 0) close(s);
  }
  int u = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un ua = {0}; ua.sun_family = AF_UNIX; strcpy(ua.sun_path + 1, "arbiter");
  if (u >= 0 && connect(u, (struct sockaddr *)&ua, sizeof ua) == 0) found |= 2;
  if (u >= 0) close(u);
  const char *paths[] = {${allPaths.map((p) => JSON.stringify(p)).join(', ')}};
  struct stat st;
  for (unsigned i = 0; i < sizeof paths / sizeof paths[0]; i++) if (stat(paths[i], &st) == 0) found |= 4;
  DIR *d = opendir("/proc"); struct dirent *e; char p[300], buf[4096];
  while (d && (e = readdir(d))) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    snprintf(p, sizeof p, "/proc/%s/cmdline", e->d_name);
    FILE *f = fopen(p, "r"); if (!f) continue;
    size_t n = fread(buf, 1, sizeof buf - 1, f); fclose(f);
    for (size_t i = 0; i < n; i++) if (!buf[i]) buf[i] = ' ';
    buf[n] = 0;
    if (strstr(buf, "judge_answer")) found |= 8;
  }
  if (d) closedir(d);
  if (fstat(0, &st) || !S_ISFIFO(st.st_mode) || fstat(1, &st) || !S_ISFIFO(st.st_mode)) found |= 16;
  for (int fd = 3; fd < 1024; fd++) if (fcntl(fd, F_GETFD) != -1) found |= 32;
  if (found) { fprintf(stderr, "found %d\\n", found); return 1; }
  int n; char b[8];
  if (scanf("%d", &n) != 1) return 1;
  printf("%d\\n", 2 * n); fflush(stdout); scanf("%7s", b);
  return 0;
}
`
}

/** Submissions, each a whole C program. */
export const SUB = {
  // reads n, answers 2n, reads the goodbye
  // (an end of file before n, the validator gone: it fails 50 ms later, an order the inits' wake-ups keep)
  good: '#include <stdio.h>\n#include <unistd.h>\nint main(void){int n;char b[8];if(scanf("%d",&n)!=1){usleep(50000);return 1;}printf("%d\\n",2*n);fflush(stdout);scanf("%7s",b);return 0;}\n',
  wrong: '#include <stdio.h>\nint main(void){int n;scanf("%d",&n);printf("%d\\n",2*n+1);return 0;}\n',
  // ends before reading anything: the validator then reads end of file and rejects, after it
  leaves: 'int main(void){return 0;}\n',
  // closes both ends of its wire at once, then sleeps: the validator reads end of file and rejects before it ends
  closes: '#include <unistd.h>\nint main(void){close(0);close(1);for(;;)pause();}\n',
  crashes: '#include <stdlib.h>\nint main(void){exit(3);}\n',
  // reads n and then waits for more input that never comes (the validator waits too): the wall limit
  hangs: '#include <stdio.h>\nint main(void){int n,m;scanf("%d",&n);scanf("%d",&m);return 0;}\n',
  spins: 'int main(void){volatile unsigned long x=0;for(;;)x++;}\n',
  // floods its stdout with wrong answers: the validator rejects the first and ends, the flood then ends by SIGPIPE
  floods: '#include <stdio.h>\nint main(void){for(;;)fputs("1 1 1 1 1 1 1 1\\n",stdout);}\n',
  // reads every number up to end of file (the validator's flood), then answers twice the first
  drains: '#include <stdio.h>\nint main(void){int first,n;if(scanf("%d",&first)!=1)return 1;while(scanf("%d",&n)==1);printf("%d\\n",2*first);return 0;}\n',
  prober: prober(),
}

/**
 * A multi-pass validator: pass 1 (no state in feedback/) expects 2n and writes nextpass.in with n+1 and
 * its state; pass 2 expects 2(n+1). With "always" in its input it asks for another pass every time.
 */
export const MULTI = `#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
  char mode[16] = "", p[512]; int n = 0, r;
  FILE *in = fopen(argv[1], "r");
  if (!in || fscanf(in, "%15s %d", mode, &n) != 2) return 1;
  snprintf(p, sizeof p, "%s/state", argv[3]);
  FILE *s = fopen(p, "r");
  int pass = 1;
  if (s) { fscanf(s, "%d", &pass); fclose(s); pass++; }
  if (scanf("%d", &r) != 1 || r != 2 * n) return 43;
  s = fopen(p, "w"); fprintf(s, "%d", pass); fclose(s);
  snprintf(p, sizeof p, "%s/judgemessage.txt", argv[3]);
  FILE *j = fopen(p, "a"); fprintf(j, "pass %d ok;", pass); fclose(j);
  if (pass == 1 || !strcmp(mode, "always")) {
    snprintf(p, sizeof p, "%s/nextpass.in", argv[3]);
    FILE *next = fopen(p, "w"); fprintf(next, "%s %d\\n", mode, n + 1); fclose(next);
  }
  return 42;
}
`

/** Answers a multi-pass test: reads the mode and n from its input, prints 2n. */
export const DOUBLER = '#include <stdio.h>\nint main(void){char m[16];int n;scanf("%15s %d",m,&n);printf("%d\\n",2*n);return 0;}\n'

/** The interactive validator, which also asks for passes up to n = 6 (play 4 → play 5 → play 6). */
export const INTERACTIVE_MULTI = VALIDATOR.replace(
  'say(argv[3], "teammessage.txt", "well played");',
  'say(argv[3], "teammessage.txt", "well played"); if (n < 6) say(argv[3], "nextpass.in", n == 4 ? "play 5\\n" : "play 6\\n");'
)
