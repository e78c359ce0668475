/*
 * The resident init of a prepared jail: `/.arbiter/init --serve`, run by nsjail once per slot and
 * toolchain root (the supervisor's prepared_jail, sandbox/supervisor.c) with the jail's namespaces,
 * root image, /dev and uid map already made, and its capabilities kept inside the jail's user
 * namespace only. Each run it is sent costs one clone() instead of a whole nsjail start:
 *
 *   this init --clone(NEWPID|NEWNS|NEWIPC)--> run init: fresh /proc (and its masks), /tmp, /dev/shm,
 *             the socket filter, all before the request (cloned ahead, once the last run has ended)
 *   supervisor --(request + the run's descriptors)--> this init --(forwarded)--> run init
 *   run init: the job's box at /work; "ready" -> the
 *             supervisor moves it into the run's own cgroups -> "go"; a cgroup namespace of its own,
 *             the run's rlimits, every capability dropped, the seccomp filter, the box re-charged,
 *             then the program is forked and exec'd, and reaped as by jail-init.c.
 *
 * Nothing of a run outlives it: its processes die with its PID namespace (the run init is PID 1);
 * /proc, /tmp, /dev/shm and the mounts go with its mount namespace, System V IPC with its IPC
 * namespace; the program never has a capability, a descriptor of this init's, or a way to name it
 * (another PID namespace, /proc of its own, ptrace-class calls outside the filter).
 *
 * Network: no run is cloned into a network namespace a run that made a socket was in. Without a
 * socket a program can change nothing of a network namespace (every counter, socket, abstract name
 * and interface figure moves through one; /proc/sys/net is read-only to it, a mount read-only and no
 * capability; the policy refuses netlink, packet and raw sockets, io_uring, bpf and pidfd_getfd, and
 * kills other ABIs), and whether it made one is not its to say: each run init installs, besides the
 * policy, a filter that hands every socket() and socketpair() to this init (seccomp user
 * notification, its listener sent over `notes`) before the kernel runs the call. At the first one
 * this init moves itself into a new namespace (unshare(CLONE_NEWNET): about 1.4 ms of wall time,
 * ~0.3 ms of CPU, while the run goes on; the run keeps the one it was cloned in), so the next run is
 * cloned into a namespace nothing has touched. A run that made none leaves the one it had, as it
 * found it, to the next: most runs (a C hello, python, a compiler) never pay for a namespace.
 *
 * Protocol on `ctl` (SOCK_SEQPACKET, descriptor 3): "ready" once; then per run a request (struct
 * prepared_run + filter + strings, descriptors: stdin, stdout, stderr, report, box, run socket) and,
 * when the run init has been reaped, "end STATUS MAXRSS_KB FRESH_NET" (STATUS: the wait status;
 * FRESH_NET: 1 when the run made a socket and the next run's network namespace is made, 0 when it made
 * none and the next run gets the same untouched one, -1 when one was needed and could not be made:
 * the jail goes). On `notes` (a socket pair of this init's, made before any run's namespace): one
 * message per run from its run init, the seccomp listener of its socket filter.
 * On the run socket (the supervisor's other end has SO_PASSCRED, so it learns the run init's host
 * pid from "ready"): "ready" / "error TEXT" from the run init, "go" from the supervisor.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/mount.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "jail-init.h"
#include "prepared-run.h"

/* What jail.cfg masks in /proc: bound again over each run's own /proc (mandatory: false ones may be absent) */
static const char* const masked[] = {"/proc/cmdline", "/proc/sys/kernel/random/boot_id", "/proc/diskstats",
    "/proc/partitions", "/proc/swaps"};
#define NMASKED (sizeof masked / sizeof *masked)

/* A run init's set-up failed: the supervisor hears why on the run socket (the jail is then rebuilt). */
static int fail(int sock, const char* what) {
	char msg[256];
	int n = snprintf(msg, sizeof msg, "error %s: %s", what, strerror(errno));
	send(sock, msg, n < (int)sizeof msg ? (size_t)n : sizeof msg - 1, MSG_NOSIGNAL);
	return 127;
}

/* The jail init's end [0] and the run inits' [1] of the pair each run init sends its listener on. */
static int notes[2] = {-1, -1};

/*
 * Every socket() and socketpair() (the only calls that make a socket: accept needs one) goes to the
 * listener first, so the jail's init learns of it before it exists. x32's numbers are masked in;
 * another ABI notifies too (the policy kills it, and a kill wins over a notification). Whatever the
 * policy refuses (netlink ...) is refused without a notification: an error wins over it too.
 */
static const struct sock_filter socket_watch[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~0x40000000u),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 2, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socketpair, 1, 0),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
};

/* The run's socket filter, installed on the run init (the program inherits it), its listener sent to the jail's init. */
static int watch_sockets(int sock) {
	struct sock_fprog prog = {sizeof socket_watch / sizeof *socket_watch, (struct sock_filter*)socket_watch};
	int listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (listener < 0) return fail(sock, "seccomp(socket listener)");
	char cbuf[CMSG_SPACE(sizeof(int))];
	memset(cbuf, 0, sizeof cbuf);
	struct iovec iov = {"l", 1};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
	struct cmsghdr* c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &listener, sizeof(int));
	/* without it nothing would answer the program's socket calls: they would wait until the wall limit */
	if (sendmsg(notes[1], &mh, MSG_NOSIGNAL) != 1) return fail(sock, "sending the socket listener");
	close(listener);
	close(notes[1]);
	return 0;
}

/* A listener sent on notes, or -1 (none waiting, with MSG_DONTWAIT; a message without one). */
static int receive_listener(int flags) {
	char byte, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {&byte, 1};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
	if (recvmsg(notes[0], &mh, MSG_CMSG_CLOEXEC | flags) <= 0) return -1;
	struct cmsghdr* c = CMSG_FIRSTHDR(&mh);
	if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int))) return -1;
	int fd;
	memcpy(&fd, CMSG_DATA(c), sizeof fd);
	return fd;
}

/* Lets one notified socket call go on (the kernel then runs it as if unfiltered). */
static void let_socket_call(int listener) {
	struct seccomp_notif req;
	memset(&req, 0, sizeof req);
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0) return; /* the caller died meanwhile */
	struct seccomp_notif_resp resp;
	memset(&resp, 0, sizeof resp);
	resp.id = req.id;
	resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}


/* The mounts a run has of its own, over the prepared jail's: /proc, its masks, /tmp, /dev/shm (/work: mount_box). */
static int mount_run(int sock) {
	int mask[NMASKED];
	/* clones of the prepared jail's masks, taken before the new /proc covers them */
	for (size_t i = 0; i < NMASKED; i++) {
		mask[i] = (int)syscall(SYS_open_tree, AT_FDCWD, masked[i], OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
		if (mask[i] < 0 && errno != ENOENT) return fail(sock, "open_tree(mask)");
	}
	/* this PID namespace's own /proc (the prepared jail's shows its init and every run's processes) */
	/* read-only as a mount, not as a file system (as nsjail mounts it): a write open of /proc/1/mem is
	 * then refused for want of permission (EACCES), as in a jail nsjail starts, not for EROFS */
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0 ||
	    mount(NULL, "/proc", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
		return fail(sock, "mount /proc");
	for (size_t i = 0; i < NMASKED; i++) {
		if (mask[i] < 0) continue;
		if (syscall(SYS_move_mount, mask[i], "", AT_FDCWD, masked[i], MOVE_MOUNT_F_EMPTY_PATH) != 0)
			return fail(sock, "mask /proc");
		close(mask[i]);
	}
	if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=67108864,nr_inodes=4096") != 0)
		return fail(sock, "mount /tmp");
	if (mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "size=16777216,nr_inodes=256") != 0)
		return fail(sock, "mount /dev/shm");
	return 0;
}

/* The job's box at /work: a copy of the supervisor's mount of it, made for this run alone. */
static int mount_box(int sock, int box) {
	if (syscall(SYS_move_mount, box, "", AT_FDCWD, "/work", MOVE_MOUNT_F_EMPTY_PATH) != 0)
		return fail(sock, "mount /work");
	close(box);
	if (chdir("/work") != 0) return fail(sock, "chdir /work");
	return 0;
}

static int set_limit(int resource, uint64_t value) {
	struct rlimit rl = {value, value};
	return setrlimit(resource, &rl);
}

/* The run's rlimits, as jail.cfg and nsjail-args.ts give a jail started by nsjail (INF: none). */
static int limit_run(int sock, const struct prepared_run* r) {
	if (set_limit(RLIMIT_CPU, r->cpu_sec) || set_limit(RLIMIT_NOFILE, r->nofile) ||
	    set_limit(RLIMIT_FSIZE, r->fsize) || set_limit(RLIMIT_STACK, r->stack_bytes) ||
	    set_limit(RLIMIT_AS, r->as_bytes ? r->as_bytes : RLIM_INFINITY) || set_limit(RLIMIT_CORE, 0) ||
	    set_limit(RLIMIT_MEMLOCK, 64 * 1024) || set_limit(RLIMIT_MSGQUEUE, 0))
		return fail(sock, "setrlimit");
	if (share_host_quotas() != 0) return fail(sock, "setrlimit(RLIMIT_SIGPENDING)");
	return 0;
}

/* Every capability gone for good: bounding set, ambient set, then the rest (the program gets none). */
static int drop_caps(int sock) {
	for (int cap = 0; cap <= 63; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) return fail(sock, "PR_CAPBSET_DROP");
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0) return fail(sock, "PR_CAP_AMBIENT");
	struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct none[2];
	memset(none, 0, sizeof none);
	if (syscall(SYS_capset, &head, none) != 0) return fail(sock, "capset");
	return 0;
}

/* The child that becomes the program: its stdio, nothing else open, default signals, then exec. */
static void exec_program(int in, int out, int err, char** argv, char** envp) {
	if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(127);
	syscall(SYS_close_range, 3, ~0u, 0);
	for (int sig = 1; sig < 65; sig++) signal(sig, SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execve(argv[0], argv, envp);
	dprintf(2, "cannot execute %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/*
 * What a run init sets up before it knows its request: its own mounts and the socket filter (set-up,
 * not the run's: before its rlimits, the listener being a descriptor, and the policy, which refuses
 * seccomp()). sock: where a failure is told (-1 for a run init cloned ahead, whose request is not here).
 */
static int set_up_run(int sock) {
	if (mount_run(sock) != 0) return 127;
	return watch_sockets(sock);
}

/* PID 1 of the run's namespaces, once set_up_run is done. fds: stdin, stdout, stderr, report, box, run socket. */
static int run_init(const struct prepared_run* r, const int* fds, char** argv, char** envp) {
	int sock = fds[5];
	if (mount_box(sock, fds[4]) != 0) return 127;
	if (send(sock, "ready", 5, MSG_NOSIGNAL) != 5) return 127;
	char go[8];
	/* the supervisor has moved this process into the run's cgroups, or hung up */
	if (recv(sock, go, sizeof go, 0) != 2 || memcmp(go, "go", 2) != 0) return 127;
	/* the program's /proc/self/cgroup shows "/", as in a jail nsjail starts */
	if (unshare(CLONE_NEWCGROUP) != 0) return fail(sock, "unshare(CLONE_NEWCGROUP)");
	if (limit_run(sock, r) != 0 || drop_caps(sock) != 0) return 127;
	struct sock_fprog prog = {(unsigned short)r->filter_len, (struct sock_filter*)(r + 1)};
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) return fail(sock, "seccomp");
	/* from here on as jail-init.c: nothing else runs in the jail while the box is walked */
	if (recharge_work() != 0) return fail(sock, "re-charging /work");
	if (shield_self() != 0) return fail(sock, "PR_SET_DUMPABLE");
	close(sock);
	pid_t child = fork();
	if (child < 0) return 127;
	if (child == 0) exec_program(fds[0], fds[1], fds[2], argv, envp);
	for (int fd = 0; fd <= 2; fd++) close(fd);
	close(fds[0]);
	close(fds[1]);
	close(fds[2]);
	return reap_and_report(child, fds[3]);
}

/* Splits the request's strings into argv and envp (NULL-terminated); -1 if they do not add up. */
static int split_strings(char* s, uint32_t len, uint32_t argc, uint32_t envc, char** argv, char** envp) {
	char* end = s + len;
	for (uint32_t i = 0; i < argc + envc; i++) {
		char* z = memchr(s, 0, (size_t)(end - s));
		if (!z) return -1;
		if (i < argc) argv[i] = s;
		else envp[i - argc] = s;
		s = z + 1;
	}
	argv[argc] = NULL;
	envp[envc] = NULL;
	return s == end && argc > 0 ? 0 : -1;
}

/* The request being served, and its argv and envp (pointing into it). */
static char run_msg[PREPARED_RUN_MAX] __attribute__((aligned(8)));
static char* run_argv[PREPARED_RUN_MAX_STRINGS + 1];
static char* run_envp[PREPARED_RUN_MAX_STRINGS + 1];

/*
 * Receives a run's request and its descriptors on fd into run_msg, checked whole (argv, envp split):
 * its length; 0 when the peer hung up; -1 for EINTR; -2 when malformed (the supervisor's bug, not a
 * program's doing: the jail ends).
 */
static ssize_t receive_run(int fd, int* fds) {
	char cbuf[CMSG_SPACE(PREPARED_RUN_FDS * sizeof(int))];
	struct iovec iov = {run_msg, sizeof run_msg};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
	ssize_t n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
	if (n == 0) return 0;
	if (n < 0) return errno == EINTR ? -1 : -2;
	struct cmsghdr* c = CMSG_FIRSTHDR(&mh);
	const struct prepared_run* r = (const struct prepared_run*)run_msg;
	if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(PREPARED_RUN_FDS * sizeof(int)) || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
		return -2;
	memcpy(fds, CMSG_DATA(c), PREPARED_RUN_FDS * sizeof(int));
	size_t filter_bytes = (size_t)r->filter_len * sizeof(struct sock_filter);
	if ((size_t)n < sizeof *r || r->magic != PREPARED_RUN_MAGIC || r->filter_len == 0 || r->filter_len > PREPARED_RUN_MAX_FILTER ||
	    r->argc == 0 || r->argc > PREPARED_RUN_MAX_STRINGS || r->envc > PREPARED_RUN_MAX_STRINGS ||
	    (size_t)n != sizeof *r + filter_bytes + r->strings_len)
		return -2;
	if (split_strings(run_msg + sizeof *r + filter_bytes, r->strings_len, r->argc, r->envc, run_argv, run_envp) != 0) return -2;
	return n;
}

/* Hands a request and its descriptors on (to the run init cloned ahead); 0 when it went. */
static int forward_run(int to, size_t len, const int* fds) {
	return send_run_message(to, run_msg, len, fds);
}

/*
 * The next run's init, cloned ahead: once a run has ended (and the next network namespace is made, if
 * it must be), the next run init is cloned and sets up its mounts and socket filter while the
 * supervisor replies, then waits for its request, which this init forwards to it on `ahead` (about
 * 0.4 ms of each run's set-up, off its path). Nothing of the last run is left when it is cloned: its
 * init was reaped, and with it every process of its PID namespace.
 */
static pid_t ahead_pid = -1;
static int ahead = -1;

static void clone_ahead(int ctl) {
	int pair[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) return;
	pid_t pid = (pid_t)syscall(SYS_clone, CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | SIGCHLD, 0, 0, 0, 0);
	if (pid == 0) {
		close(ctl);
		close(notes[0]);
		close(pair[0]);
		/* a failure here is told by the run cloned in its place (serve_prepared_runs) */
		if (set_up_run(-1) != 0) _exit(127);
		int fds[PREPARED_RUN_FDS];
		ssize_t n;
		while ((n = receive_run(pair[1], fds)) == -1) {
		}
		if (n <= 0) _exit(127);
		close(pair[1]);
		_exit(run_init((const struct prepared_run*)run_msg, fds, run_argv, run_envp));
	}
	close(pair[1]);
	if (pid < 0) {
		close(pair[0]);
		return;
	}
	ahead_pid = pid;
	ahead = pair[0];
}

/* The run init cloned ahead could not take its request (it failed in its set-up): gone, with whatever it sent. */
static void drop_ahead(void) {
	kill(ahead_pid, SIGKILL);
	while (waitpid(ahead_pid, NULL, __WALL) < 0 && errno == EINTR) {
	}
	for (int l; (l = receive_listener(MSG_DONTWAIT)) >= 0;) close(l);
}

int serve_prepared_runs(int ctl) {
	if (fcntl(ctl, F_SETFD, FD_CLOEXEC) != 0) return 127;
	/* nsjail (our parent) goes when the supervisor does: this init, and every run below it, with it */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (shield_self() != 0) return 127;
	/* made before any run's namespace: these two sockets are in none of them */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, notes) != 0) return 127;
	/* the first run's network namespace: not the one nsjail (or the slot) made, which others entered */
	if (unshare(CLONE_NEWNET) != 0) return 127;
	if (send(ctl, "ready", 5, MSG_NOSIGNAL) != 5) return 127;
	for (;;) {
		if (ahead_pid < 0) clone_ahead(ctl);
		int fds[PREPARED_RUN_FDS];
		ssize_t n = receive_run(ctl, fds);
		if (n == 0) return 0; /* the supervisor is done with this jail (a run init cloned ahead dies with it) */
		if (n == -1) continue;
		if (n < 0) return 127;
		pid_t pid = -1;
		if (ahead_pid > 0) {
			if (forward_run(ahead, (size_t)n, fds) == 0) pid = ahead_pid;
			else drop_ahead();
			close(ahead);
			ahead = -1;
			ahead_pid = -1;
		}
		if (pid < 0) {
			pid = (pid_t)syscall(SYS_clone, CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | SIGCHLD, 0, 0, 0, 0);
			if (pid == 0) {
				close(ctl); /* the run has no business with the jail's requests */
				close(notes[0]);
				if (set_up_run(fds[5]) != 0) _exit(127);
				_exit(run_init((const struct prepared_run*)run_msg, fds, run_argv, run_envp));
			}
		}
		for (int i = 0; i < PREPARED_RUN_FDS; i++) close(fds[i]);
		if (pid < 0) return 127;
		/* wait for the run, unless the supervisor hangs up meanwhile (it sends nothing during a run),
		 * answering its socket calls: at the first, the next run's network namespace is made (this run
		 * keeps the one it was cloned in, and it goes when the run's last socket does) */
		int fresh_net = 0;
		int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
		struct pollfd pf[4] = {{.fd = pfd, .events = POLLIN}, {.fd = ctl, .events = POLLIN}, {.fd = notes[0], .events = POLLIN}, {.fd = -1, .events = POLLIN}};
		while (pfd >= 0) {
			if (poll(pf, 4, -1) < 0) {
				if (errno == EINTR) continue;
				break;
			}
			if (pf[1].revents) {
				kill(pid, SIGKILL);
				return 0;
			}
			if (pf[2].revents & POLLIN) {
				int listener = receive_listener(0);
				if (listener >= 0) {
					if (pf[3].fd >= 0) close(pf[3].fd);
					pf[3].fd = listener;
				}
			}
			if (pf[3].fd >= 0 && (pf[3].revents & POLLIN)) {
				let_socket_call(pf[3].fd);
				if (fresh_net == 0) fresh_net = unshare(CLONE_NEWNET) == 0 ? 1 : -1;
			} else if (pf[3].fd >= 0 && pf[3].revents) { /* every process of the run under the filter is gone */
				close(pf[3].fd);
				pf[3].fd = -1;
			}
			if (pf[0].revents & POLLIN) break;
		}
		/* a pidfd could not be had: the run's socket calls wait unanswered until it is killed, and
		 * whether one went through cannot be told, so the next run gets a new namespace anyway */
		if (pfd < 0) fresh_net = unshare(CLONE_NEWNET) == 0 ? 1 : -1;
		int status = 0;
		struct rusage ru;
		memset(&ru, 0, sizeof ru);
		while (wait4(pid, &status, __WALL, &ru) < 0 && errno == EINTR) {
		}
		if (pfd >= 0) close(pfd);
		if (pf[3].fd >= 0) close(pf[3].fd);
		/* a listener sent but not yet read (the run init has been reaped: nothing can come later) */
		for (int l; (l = receive_listener(MSG_DONTWAIT)) >= 0;) close(l);
		char end[96];
		int len = snprintf(end, sizeof end, "end %d %ld %d", status, ru.ru_maxrss, fresh_net);
		if (send(ctl, end, (size_t)len, MSG_NOSIGNAL) != len) return 127;
		if (fresh_net < 0) return 127; /* the next run would be in a namespace a socket was made in: this jail goes */
	}
}
