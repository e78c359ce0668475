/*
 * arbiter-jail-init: PID 1 of every jail's pid namespace, so that the program is not. The kernel
 * drops the signals a namespace's init raises against itself (abort()'s SIGABRT, RLIMIT_FSIZE's
 * SIGXFSZ), which would turn real runtime errors into hangs or wrong verdicts.
 *
 * Usage (inside the jail): /.arbiter/init PROGRAM [ARGS...]
 * fd 3, when open, receives one line saying how the program ended: "exit N" or "signal N".
 * It is close-on-exec, so the program never holds it. When init exits, the kernel kills every
 * process left in the namespace (a fork bomb's children included).
 *
 * The program runs as the same uid as this init, so the init makes itself unreachable (see
 * shield_self): otherwise pidfd_getfd(), /proc/1/fd/3 or /proc/1/mem would hand the program the
 * report descriptor, and a forged "exit 0" would be judged AC. The supervisor checks the report
 * against nsjail's exit status anyway (src/sandbox/outcome.ts), in case a new way in is found.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * Not dumpable: its /proc/1 entries belong to root, and ptrace-mode access to it (pidfd_getfd,
 * /proc/1/fd, /proc/1/mem, process_vm_*, ptrace) needs CAP_SYS_PTRACE, which the program never
 * has. The flag is reset by execve, so the program itself stays an ordinary process.
 */
static int shield_self(void) {
	return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

/* After the fork, the init needs only the report: the program's stdio is none of its business. */
static void close_stdio(void) {
	for (int fd = 0; fd <= 2; fd++) close(fd);
}

int main(int argc, char** argv) {
	if (argc < 2) {
		fprintf(stderr, "usage: %s PROGRAM [ARGS...]\n", argv[0]);
		return 127;
	}
	if (shield_self() != 0) {
		perror("prctl(PR_SET_DUMPABLE)");
		return 127;
	}
	int report = fcntl(3, F_SETFD, FD_CLOEXEC) == 0 ? 3 : -1;
	pid_t child = fork();
	if (child < 0) {
		perror("fork");
		return 127;
	}
	if (child == 0) {
		execv(argv[1], argv + 1);
		fprintf(stderr, "cannot execute %s: %s\n", argv[1], strerror(errno));
		_exit(127);
	}
	close_stdio();
	int status = 0;
	for (;;) {
		/* as init, also reap orphans the program leaves behind */
		pid_t w = wait(&status);
		if (w == child) break;
		if (w < 0 && errno != EINTR) return 127;
	}
	if (report >= 0) {
		if (WIFSIGNALED(status)) dprintf(report, "signal %d\n", WTERMSIG(status));
		else dprintf(report, "exit %d\n", WEXITSTATUS(status));
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
