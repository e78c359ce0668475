/*
 * arbiter-jail-init: PID 1 of every jail's pid namespace, so that the program is not. The kernel
 * drops the signals a namespace's init raises against itself (abort()'s SIGABRT, RLIMIT_FSIZE's
 * SIGXFSZ), which would turn real runtime errors into hangs or wrong verdicts.
 *
 * Usage (inside the jail): /.arbiter/init PROGRAM [ARGS...]
 * fd 3, when open, receives one line saying how the program ended: "exit N" or "signal N".
 * It is close-on-exec, so the program never holds it. When init exits, the kernel kills every
 * process left in the namespace (a fork bomb's children included).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv) {
	if (argc < 2) {
		fprintf(stderr, "usage: %s PROGRAM [ARGS...]\n", argv[0]);
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
