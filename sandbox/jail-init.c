/*
 * arbiter-jail-init: PID 1 of every jail's pid namespace, so that the program is not. The kernel
 * drops the signals a namespace's init raises against itself (abort()'s SIGABRT, RLIMIT_FSIZE's
 * SIGXFSZ), which would turn real runtime errors into hangs or wrong verdicts.
 *
 * Usage (inside the jail): /.arbiter/init PROGRAM [ARGS...]
 * fd 3, when open, receives one line saying how the program ended: "exit N" or "signal N", then
 * "ended US": when this init saw it end (CLOCK_MONOTONIC, µs; no jail has a time namespace of its own),
 * which orders the ends of two runs wired to each other (sandbox/wire.c) better than their supervisors can.
 * It is close-on-exec, so the program never holds it. When init exits, the kernel kills every
 * process left in the namespace (a fork bomb's children included).
 *
 * The program runs as the same uid as this init, so the init makes itself unreachable (see
 * shield_self): otherwise pidfd_getfd(), /proc/1/fd/3 or /proc/1/mem would hand the program the
 * report descriptor, and a forged "exit 0" would be judged AC. The supervisor checks the report
 * against nsjail's exit status anyway (src/sandbox/outcome.ts), in case a new way in is found.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "jail-init.h"

/* The work directory: the job's box, which holds what the compile step left (or root copied in) */
#define WORK "/work"
#define CHUNK (256 * 1024)
#define PAGE 4096
/* Queued signals and POSIX timers one jail may hold: see share_host_quotas */
#define JAIL_SIGPENDING 1024

/*
 * The kernel counts a jail's queued signals and POSIX timers against this jail's limit and also,
 * together with every other jail's, against the limit its user namespace recorded from its creator
 * (nsjail, as root). The supervisor gives nsjail room for many jails (JAIL_SIGPENDING in
 * supervisor.c); the jail's own share is set here, before the program exists, so a job that
 * queues all it may leaves every other job its own share.
 */
int share_host_quotas(void) {
	struct rlimit sig = {JAIL_SIGPENDING, JAIL_SIGPENDING};
	return setrlimit(RLIMIT_SIGPENDING, &sig);
}

/*
 * Re-charges one file's pages to this run's memory group. The box is a tmpfs: its pages are memory,
 * charged to whoever wrote them (the compile step, or root copying the compiled program in), not to
 * the run that maps and uses them. Each stretch of data is copied aside, its pages freed (a hole
 * punched) and written back from here, inside the run's group, so they count against the run's limit:
 * a program image of 52 MB under a 16 MB limit is an out-of-memory kill (MLE) before it even starts.
 * The writes go through a shared mapping, which RLIMIT_FSIZE (the output cap, often far smaller than
 * the program) does not govern: nothing grows. The file keeps its inode, size, links, owner and
 * mode; holes stay holes. Returns -1 on a failure.
 */
static int recharge_fd(int fd, off_t size) {
	static char buf[CHUNK];
	off_t data = 0;
	while (data < size && (data = lseek(fd, data, SEEK_DATA)) >= 0) {
		off_t hole = lseek(fd, data, SEEK_HOLE);
		if (hole < 0 || hole > size) hole = size;
		data = data / PAGE * PAGE; /* whole pages: a partial one would stay where it was charged */
		while (data < hole) {
			size_t len = hole - data < (off_t)CHUNK ? (size_t)(hole - data) : (size_t)CHUNK;
			char* map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, data);
			if (map == MAP_FAILED) return -1;
			memcpy(buf, map, len);
			/* the last page of the file whole, though only part of it is the file's */
			off_t punch = data + (off_t)len == size ? (off_t)((len + PAGE - 1) / PAGE * PAGE) : (off_t)len;
			int rc = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, data, punch);
			if (rc == 0) memcpy(map, buf, len);
			munmap(map, len);
			if (rc != 0) return -1;
			data += len;
		}
	}
	return data < 0 && errno != ENXIO ? -1 : 0;
}

/* Inodes with several links done already (each is re-charged once) */
static ino_t linked[4096];
static size_t nlinked;

/*
 * One entry of the box: a regular file the jail's user owns is re-charged; others are left. Inside
 * the jail a file of a host user that is not mapped (root's: the source, a checker's test files, not
 * the program's doing) shows the same overflow uid as the jail's own user, so ownership is proven by
 * what the owner alone may do: chmod it (when it is not already readable and writable) and open it
 * for writing.
 */
static int recharge_entry(int dir, const char* name) {
	int path = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (path < 0) return -1;
	struct stat st;
	int rc = 0;
	if (fstat(path, &st) != 0) rc = -1;
	else if (S_ISREG(st.st_mode) && st.st_blocks > 0) {
		int seen = 0;
		for (size_t i = 0; st.st_nlink > 1 && i < nlinked; i++) seen |= linked[i] == st.st_ino;
		char self[64];
		snprintf(self, sizeof self, "/proc/self/fd/%d", path);
		mode_t mode = st.st_mode & 07777;
		/* a read-only file of its own: writable for the moment */
		int changed = !seen && (mode & 0600) != 0600 && chmod(self, mode | 0600) == 0;
		/* through the descriptor's own link: the very inode fstat saw, never a path to resolve again */
		int fd = seen || ((mode & 0600) != 0600 && !changed) ? -1 : open(self, O_RDWR | O_CLOEXEC);
		if (fd >= 0) {
			if (st.st_nlink > 1 && nlinked < sizeof linked / sizeof *linked) linked[nlinked++] = st.st_ino;
			if (recharge_fd(fd, st.st_size) != 0) rc = -1;
			close(fd);
		}
		if (changed) chmod(self, mode);
	}
	close(path);
	return rc;
}

/*
 * Opens a directory of the box to walk it. One of the jail's own that it may not enter (a compile step
 * can chmod its folders, /work included, to 000, and the program chmod them back) is opened for the
 * moment with u+rwx; *saved is then its mode to put back (-1 when nothing changed).
 */
static int enter(int at, const char* name, int* saved) {
	*saved = -1;
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 || errno != EACCES) return fd;
	int path = openat(at, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	char self[64];
	snprintf(self, sizeof self, "/proc/self/fd/%d", path);
	if (path >= 0 && fstat(path, &st) == 0 && chmod(self, (st.st_mode & 07777) | 0700) == 0) {
		*saved = st.st_mode & 07777;
		fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) chmod(self, *saved);
	}
	if (path >= 0) close(path);
	return fd;
}

/*
 * Walks the whole box, however deep, holding one directory open at a time: it goes down with
 * openat(name) and back up with openat(".."), and resumes each directory at the offset it left it
 * (kept per depth; nothing renames or removes entries meanwhile, this is the only process).
 */
int recharge_work(void) {
	int saved_root;
	int dir = enter(AT_FDCWD, WORK, &saved_root);
	if (dir < 0) return errno == ENOENT ? 0 : -1;
	size_t depth = 0, cap = 64;
	off_t* resume = calloc(cap, sizeof *resume);
	int* saved = calloc(cap, sizeof *saved);
	char buf[8192];
	int rc = 0;
	if (!resume || !saved) return -1;
	saved[0] = saved_root;
	while (rc == 0) {
		if (lseek(dir, resume[depth], SEEK_SET) < 0) { rc = -1; break; }
		long n = syscall(SYS_getdents64, dir, buf, sizeof buf);
		if (n < 0) { rc = -1; break; }
		if (n == 0) { /* this directory is done: back up, and put its mode back */
			if (depth == 0) break;
			int up = openat(dir, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (saved[depth] >= 0) fchmod(dir, saved[depth]);
			close(dir);
			dir = up;
			depth--;
			if (dir < 0) rc = -1;
			continue;
		}
		for (long at = 0; at < n && rc == 0;) {
			struct dirent64* e = (struct dirent64*)(buf + at);
			at += e->d_reclen;
			resume[depth] = e->d_off;
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
			if (e->d_type == DT_DIR) {
				int mode;
				int sub = enter(dir, e->d_name, &mode);
				if (sub < 0) continue; /* not the jail's own: root's, and nothing of the program's is in it */
				if (depth + 1 == cap) {
					off_t* more = realloc(resume, 2 * cap * sizeof *resume);
					int* more_saved = more ? realloc(saved, 2 * cap * sizeof *saved) : NULL;
					if (more) resume = more;
					if (!more_saved) { close(sub); rc = -1; break; }
					saved = more_saved;
					cap *= 2;
				}
				close(dir);
				dir = sub;
				resume[++depth] = 0;
				saved[depth] = mode;
				break; /* read the new directory from its start */
			}
			if (e->d_type == DT_REG && recharge_entry(dir, e->d_name) != 0) rc = -1;
		}
	}
	/* a failure deep down: the modes above it stay opened up, which only the jail's own run sees */
	if (dir >= 0 && depth == 0 && saved[0] >= 0) fchmod(dir, saved[0]);
	if (dir >= 0) close(dir);
	free(resume);
	free(saved);
	return rc;
}

/*
 * Not dumpable: its /proc/1 entries belong to root, and ptrace-mode access to it (pidfd_getfd,
 * /proc/1/fd, /proc/1/mem, process_vm_*, ptrace) needs CAP_SYS_PTRACE, which the program never
 * has. The flag is reset by execve, so the program itself stays an ordinary process.
 */
int shield_self(void) {
	return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

/* After the fork, the init needs only the report: the program's stdio is none of its business. */
static void close_stdio(void) {
	for (int fd = 0; fd <= 2; fd++) close(fd);
}

/*
 * The rest of an init's life once the program is started: reap whatever ends (orphans of the program
 * included) until the program itself ends, report how it ended on the report descriptor, and return
 * the status to exit with (the program's code, or 128 + its signal).
 */
int reap_and_report(pid_t child, int report) {
	int status = 0;
	for (;;) {
		pid_t w = wait(&status);
		if (w == child) break;
		if (w < 0 && errno != EINTR) return 127;
	}
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	unsigned long long ended = (unsigned long long)t.tv_sec * 1000000u + (unsigned long long)t.tv_nsec / 1000u;
	if (report >= 0) {
		if (WIFSIGNALED(status)) dprintf(report, "signal %d\nended %llu\n", WTERMSIG(status), ended);
		else dprintf(report, "exit %d\nended %llu\n", WEXITSTATUS(status), ended);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * A run wired to another (sandbox/wire.c) through one nsjail start: its supervisor hands the two pipe
 * ends over the socket at WIRE_HAND_FD (nsjail --pass_fd) rather than as nsjail's stdin and stdout,
 * which nsjail would hold until the jail is gone. They become the program's stdin and stdout here, and
 * the socket is closed: the program holds exactly its two ends, as a prepared jail's run does. No
 * socket there (every other run): nothing to do.
 */
static int take_wire(void) {
	struct stat st;
	if (fstat(WIRE_HAND_FD, &st) != 0) return 0;
	if (!S_ISSOCK(st.st_mode)) return -1;
	int got[2] = {-1, -1};
	char cbuf[CMSG_SPACE(sizeof got)], byte;
	struct iovec iov = {&byte, 1};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
	ssize_t n = recvmsg(WIRE_HAND_FD, &mh, MSG_CMSG_CLOEXEC);
	close(WIRE_HAND_FD);
	struct cmsghdr* cm = n == 1 ? CMSG_FIRSTHDR(&mh) : NULL;
	if (!cm || cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len != CMSG_LEN(sizeof got)) return -1;
	memcpy(got, CMSG_DATA(cm), sizeof got);
	/* dup2 clears close-on-exec on 0 and 1: the program gets them */
	int ok = dup2(got[0], 0) == 0 && dup2(got[1], 1) == 1;
	close(got[0]);
	close(got[1]);
	return ok ? 0 : -1;
}

int main(int argc, char** argv) {
	/* the resident init of a prepared jail (jail-prepared.c): forks each run into fresh namespaces */
	if (argc == 2 && !strcmp(argv[1], "--serve")) return serve_prepared_runs(3);
	if (argc < 2) {
		fprintf(stderr, "usage: %s PROGRAM [ARGS...] | --serve\n", argv[0]);
		return 127;
	}
	if (take_wire() != 0) {
		perror("arbiter-jail-init: cannot take the wired pipes");
		return 127;
	}
	/* before the program exists: nothing else runs in the jail while the box is walked */
	if (recharge_work() != 0) {
		perror("arbiter-jail-init: cannot charge the work directory to this run");
		return 127;
	}
	if (share_host_quotas() != 0) {
		perror("arbiter-jail-init: setrlimit(RLIMIT_SIGPENDING)");
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
	return reap_and_report(child, report);
}
