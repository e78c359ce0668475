/*
 * Prepared jails: the supervisor's pool of jails built ahead, one per toolchain root of the slot.
 * nsjail builds each one once (user, mount, PID, IPC, UTS and cgroup namespaces, the root image,
 * /proc with its masks, /dev, the uid map, the slot's empty network namespace) around a resident
 * init (`/.arbiter/init --serve`, jail-prepared.c) that keeps its capabilities inside the jail's user
 * namespace only. A run is then one request to it: the init clones the run into fresh PID, mount and
 * IPC namespaces with its own /proc, /tmp, /dev/shm and box, the run reports "ready" on a socket of
 * its own, this supervisor moves it into the run's cgroups (fresh memory group, reset CPU and pids
 * groups) and says "go"; only then do the run's rlimits, capability drop, seccomp filter (jail.cfg's
 * policy, compiled here once with kafel) and the program start. Set-up before "go" is charged
 * neither to the run's CPU time nor to its memory.
 *
 * Doubt ends a jail: a run init that fails its set-up, a malformed or missing reply, a process left in
 * the run's groups after the run, a run that does not end within 5 s of being killed or whose init goes
 * away during it, an nsjail found exited before a run (killed from outside). The next run
 * builds a new one (and is retried once when the doubt came before the program started).
 *
 * Requests (see supervisor.c's usage):
 *   prepare ID | path KEY | exec NSJAIL | arg S... (nsjail's argv) | policy LINE... | log FILE | end
 *     -> "prepared ID": the jail is being built (a run waits for it to be ready)
 *   run ID | jail KEY | arg S... (the program's argv) | env K=V... | box PATH | stdin/stdout/stderr/status |
 *     (or wire_serve/wire_join PATH for stdin and stdout: wire.c) |
 *     cpu_ms | wall_ms | fsize | mem_bytes | nofile | stack_kb | as_kb | pids | cpu_backstop_sec | end
 *     -> "done ..." as for a run through nsjail
 *   pool ID | end -> "pool ID jail=KEY,pid=N,ready=0|1,runs=N,builds=N,build_us=N ..."
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/mount.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "kafel.h"
#include "prepared-run.h"
#include "supervisor.h"

#define MAX_JAILS 8
/* How long a jail may take to come up, and a run to report "ready" */
#define READY_MS 15000
/* How long a killed run may take to be reaped, counted from the kill: a killed process ends only after
 * what it waits on uninterruptibly (a page being read in), and a supervisor starved past the wall limit
 * kills late. 2 s counted from the wall limit was once not enough on a loaded machine (Octave's endless
 * loop, a CI run of 2026-12-03). */
#define KILLED_GRACE_US 5000000u

struct prepared_jail {
	char key[512];
	char exec[512];
	char* argv[MAX_ARGS + 1];
	int argc;
	char log[512];
	char* policy;
	struct sock_fprog filter;
	pid_t nsjail; /* 0: not running */
	int ctl;      /* -1: not running */
	int ready;
	unsigned long runs, builds;
	uint64_t started_us, build_us;
};

static struct prepared_jail jails[MAX_JAILS];
static int njails;
/* v1: the run's pids and CPU groups under the slot's (reset for each run; memory gets a fresh one) */
static char cg_pidsrun[600], cg_cpurun[600];

static struct prepared_jail* find_jail(const char* key) {
	for (int i = 0; i < njails; i++)
		if (!strcmp(jails[i].key, key)) return &jails[i];
	return NULL;
}

static void destroy_jail(struct prepared_jail* j) {
	if (j->ctl >= 0) close(j->ctl);
	j->ctl = -1;
	if (j->nsjail > 0) {
		/* the init dies with it (PR_SET_PDEATHSIG), and every run below the init with the init */
		kill(j->nsjail, SIGKILL);
		while (waitpid(j->nsjail, NULL, __WALL) < 0 && errno == EINTR) {
		}
	}
	j->nsjail = 0;
	j->ready = 0;
}

static void start_jail(struct prepared_jail* j) {
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) return;
	j->started_us = now_us();
	pid_t pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return;
	}
	if (pid == 0) {
		if (setns(netns_fd, CLONE_NEWNET) != 0) _exit(120);
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		int log = j->log[0] ? open(j->log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600) : null;
		if (null < 0 || log < 0 || dup2(null, 0) < 0 || dup2(log, 1) < 0 || dup2(log, 2) < 0 || dup2(sv[1], 3) < 0) _exit(122);
		for (int fd = 0; fd <= 3; fd++) fcntl(fd, F_SETFD, 0);
		if (limit_host_quotas() != 0) _exit(126);
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		signal(SIGPIPE, SIG_DFL);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execv(j->exec, j->argv);
		_exit(124);
	}
	close(sv[1]);
	j->ctl = sv[0];
	j->nsjail = pid;
	j->ready = 0;
	j->builds++;
}

/* Waits for the jail's init to say it is ready; 0 when it is, else the jail is gone. */
static int await_ready(struct prepared_jail* j) {
	/* a ready jail whose nsjail has exited (killed from outside: its init got PR_SET_PDEATHSIG as it
	 * exited) is built again now, rather than sent a run its dying init would drop after "go" */
	if (j->ready && j->nsjail > 0 && waitpid(j->nsjail, NULL, WNOHANG | __WALL) == j->nsjail) {
		j->nsjail = 0;
		destroy_jail(j);
	}
	if (j->ready) return 0;
	if (j->ctl < 0) start_jail(j);
	if (j->ctl < 0) return -1;
	struct pollfd pf = {.fd = j->ctl, .events = POLLIN};
	char buf[16];
	if (poll(&pf, 1, READY_MS) == 1 && recv(j->ctl, buf, sizeof buf, 0) == 5 && !memcmp(buf, "ready", 5)) {
		j->ready = 1;
		j->build_us = now_us() - j->started_us;
		return 0;
	}
	destroy_jail(j);
	return -1;
}

/* Frees what one prepared jail's description holds (not the running jail). */
static void forget_description(struct prepared_jail* j) {
	for (int i = 0; i < j->argc; i++) free(j->argv[i]);
	j->argc = 0;
	free(j->policy);
	j->policy = NULL;
	free(j->filter.filter);
	j->filter.filter = NULL;
	j->filter.len = 0;
}

void prepare_request(struct request* r) {
	if (r->box[0] != '/' || !r->exec[0] || r->argc == 0 || !r->policy) {
		printf("error %s prepare: incomplete request\n", r->id);
		return;
	}
	struct prepared_jail* j = find_jail(r->box);
	if (!j) {
		if (njails == MAX_JAILS) {
			printf("error %s prepare: at most %d prepared jails per slot\n", r->id, MAX_JAILS);
			return;
		}
		j = &jails[njails++];
		memset(j, 0, sizeof *j);
		j->ctl = -1;
		snprintf(j->key, sizeof j->key, "%s", r->box);
	} else {
		/* a new description replaces the old one: the jail is rebuilt from it */
		destroy_jail(j);
		forget_description(j);
	}
	kafel_ctxt_t ctxt = kafel_ctxt_create();
	kafel_set_input_string(ctxt, r->policy);
	int failed = kafel_compile(ctxt, &j->filter);
	if (failed || j->filter.len == 0 || j->filter.len > PREPARED_RUN_MAX_FILTER) {
		printf("error %s prepare: the seccomp policy: %s\n", r->id, failed ? kafel_error_msg(ctxt) : "too long");
		kafel_ctxt_destroy(&ctxt);
		forget_description(j);
		*j = jails[--njails];
		return;
	}
	kafel_ctxt_destroy(&ctxt);
	snprintf(j->exec, sizeof j->exec, "%s", r->exec);
	snprintf(j->log, sizeof j->log, "%s", r->log);
	for (int i = 0; i < r->argc; i++) j->argv[i] = strdup(r->argv[i]);
	j->argc = r->argc;
	j->argv[j->argc] = NULL;
	j->policy = r->policy;
	r->policy = NULL;
	start_jail(j); /* built while the caller does something else; the first run waits for it */
	printf("prepared %s\n", r->id);
}

void pool_request(struct request* r) {
	char line[4096];
	int n = snprintf(line, sizeof line, "pool %s", r->id);
	for (int i = 0; i < njails && n < (int)sizeof line; i++) {
		struct prepared_jail* j = &jails[i];
		n += snprintf(line + n, sizeof line - n, " jail=%s,pid=%d,ready=%d,runs=%lu,builds=%lu,build_us=%llu", j->key,
		    (int)j->nsjail, j->ready, j->runs, j->builds, (unsigned long long)j->build_us);
	}
	printf("%s\n", line);
}

/*
 * Whether the next run's memory group (v1) or run group (v2) was made, empty, after the last run's
 * reply: making and removing a memory group costs about 0.1 ms each, which then is not on a run's path.
 */
static int premade;

/* The run's cgroups: memory afresh (make_run_group), pids and CPU reset; -1 with errno on a failure. */
static int make_run_groups(struct request* r, int* oom_efd) {
	char p[700], v[32];
	snprintf(v, sizeof v, "%llu", (unsigned long long)r->pids);
	if (cg_version == 1) {
		snprintf(cg_pidsrun, sizeof cg_pidsrun, "%s/run", cg_pids);
		snprintf(cg_cpurun, sizeof cg_cpurun, "%s/run", cg_cpuacct);
		if ((mkdir(cg_pidsrun, 0755) != 0 && errno != EEXIST) || (mkdir(cg_cpurun, 0755) != 0 && errno != EEXIST)) return -1;
		snprintf(p, sizeof p, "%s/pids.max", cg_pidsrun);
		if (write_file(p, v) != 0) return -1;
		snprintf(p, sizeof p, "%s/cpuacct.usage", cg_cpurun);
		if (write_file(p, "0") != 0) return -1;
	} else {
		if (!premade) rmdir(cg_run2);
		if (mkdir(cg_run2, 0755) != 0 && errno != EEXIST) return -1;
		snprintf(p, sizeof p, "%s/pids.max", cg_run2);
		if (write_file(p, v) != 0) return -1;
	}
	int fresh = premade;
	premade = 0;
	return make_run_group(r->mem_bytes, oom_efd, fresh) ? -1 : 0;
}

/* After a reply: the last run's group goes and the next run's is made, while the caller reads the reply. */
static void turn_over_groups(void) {
	if (cg_version == 1) {
		remove_run_group(cg_memrun);
		premade = mkdir(cg_memrun, 0755) == 0;
	} else {
		rmdir(cg_run2);
		premade = mkdir(cg_run2, 0755) == 0;
	}
}

static int attach(pid_t pid) {
	char p[700], v[32];
	snprintf(v, sizeof v, "%d", (int)pid);
	if (cg_version == 2) {
		snprintf(p, sizeof p, "%s/cgroup.procs", cg_run2);
		return write_file(p, v);
	}
	const char* groups[] = {cg_memrun, cg_pidsrun, cg_cpurun};
	for (int i = 0; i < 3; i++) {
		snprintf(p, sizeof p, "%s/cgroup.procs", groups[i]);
		if (write_file(p, v) != 0) return -1;
	}
	return 0;
}

/* Kills whatever is still in the run's groups; returns how many there were (0: nothing was left). */
static int kill_leftovers(void) {
	char p[700], buf[4096];
	snprintf(p, sizeof p, "%s/cgroup.procs", cg_version == 1 ? cg_cpurun : cg_run2);
	int found = 0;
	for (int round = 0; round < 50; round++) {
		ssize_t n = read_file(p, buf, sizeof buf);
		if (n <= 0) return found;
		found++;
		for (char* s = buf; *s;) {
			long pid = strtol(s, &s, 10);
			if (pid > 0) kill((pid_t)pid, SIGKILL);
			while (*s == '\n') s++;
		}
		usleep(2000);
	}
	return found;
}

static uint64_t run_cpu_us(void) {
	char p[700];
	if (cg_version == 1) {
		snprintf(p, sizeof p, "%s/cpuacct.usage", cg_cpurun);
		return read_u64(p) / 1000u;
	}
	snprintf(p, sizeof p, "%s/cpu.stat", cg_run2);
	return read_keyed(p, "usage_usec");
}

static uint64_t run_cpu_used(void* unused) {
	(void)unused;
	return run_cpu_us();
}

/* The request to the jail's init: header, filter, argv and env strings. Returns its length, 0 if too big. */
static size_t build_message(struct prepared_jail* j, struct request* r, char* buf, size_t cap) {
	struct prepared_run* m = (struct prepared_run*)buf;
	size_t filter_bytes = j->filter.len * sizeof(struct sock_filter), at = sizeof *m + filter_bytes;
	if (at > cap) return 0;
	memset(m, 0, sizeof *m);
	m->magic = PREPARED_RUN_MAGIC;
	m->filter_len = j->filter.len;
	m->argc = (uint32_t)r->argc;
	m->envc = (uint32_t)r->envc;
	m->cpu_sec = r->cpu_backstop_sec;
	m->nofile = r->nofile;
	m->fsize = r->fsize ? r->fsize : RLIM_INFINITY;
	m->stack_bytes = r->stack_kb * 1024u;
	m->as_bytes = r->as_kb * 1024u;
	memcpy(buf + sizeof *m, j->filter.filter, filter_bytes);
	for (int i = 0; i < r->argc + r->envc; i++) {
		const char* s = i < r->argc ? r->argv[i] : r->env[i - r->argc];
		size_t len = strlen(s) + 1;
		if (at + len > cap) return 0;
		memcpy(buf + at, s, len);
		at += len;
	}
	m->strings_len = (uint32_t)(at - sizeof *m - filter_bytes);
	return at;
}

/* Sends the run to the jail's init with its descriptors; 0 on success. */
static int send_run(struct prepared_jail* j, const char* msg, size_t len, const int* fds) {
	return send_run_message(j->ctl, msg, len, fds);
}

/*
 * Waits for the run init's "ready" on the run socket and returns its host pid (from SO_PASSCRED);
 * 0 and a reason in why when it failed (its "error" line, or silence).
 */
static pid_t await_run_ready(struct prepared_jail* j, int sock, char* why, size_t whylen) {
	struct pollfd pf[2] = {{.fd = sock, .events = POLLIN}, {.fd = j->ctl, .events = POLLIN}};
	snprintf(why, whylen, "no word from the run within %d ms", READY_MS);
	if (poll(pf, 2, READY_MS) <= 0) return 0;
	if (!(pf[0].revents & POLLIN)) {
		snprintf(why, whylen, "the run ended before it was ready");
		return 0;
	}
	char buf[300], cbuf[CMSG_SPACE(sizeof(struct ucred))];
	struct iovec iov = {buf, sizeof buf - 1};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
	ssize_t n = recvmsg(sock, &mh, 0);
	if (n <= 0) {
		snprintf(why, whylen, "the run ended before it was ready");
		return 0;
	}
	buf[n] = 0;
	if (n != 5 || memcmp(buf, "ready", 5) != 0) {
		snprintf(why, whylen, "%s", buf);
		return 0;
	}
	struct cmsghdr* c = CMSG_FIRSTHDR(&mh);
	if (!c || c->cmsg_type != SCM_CREDENTIALS) return 0;
	struct ucred cred;
	memcpy(&cred, CMSG_DATA(c), sizeof cred);
	return cred.pid;
}

/*
 * One attempt; returns 1 when the jail failed before the program started (worth one retry).
 * wire: a wired run's two pipe ends (wire.c), handed to the run (and closed here) once it is sent:
 * a retry after that has none, and fails.
 */
static int try_run(struct prepared_jail* j, struct request* r, int last_try, int* wire) {
	static char msg[PREPARED_RUN_MAX] __attribute__((aligned(8)));
	uint64_t received = now_us();
	char why[300] = "";
	int oom_efd = -1, sock[2] = {-1, -1}, fds[PREPARED_RUN_FDS];
	for (int i = 0; i < PREPARED_RUN_FDS; i++) fds[i] = -1;
	if (await_ready(j) != 0) {
		if (!last_try) return 1;
		printf("error %s prepared jail: it did not come up (see %s)\n", r->id, j->log);
		return 0;
	}
	size_t len = build_message(j, r, msg, sizeof msg);
	if (!len) {
		printf("error %s prepared jail: the request is too large\n", r->id);
		return 0;
	}
	if (make_run_groups(r, &oom_efd) != 0) {
		printf("error %s run groups: %s\n", r->id, strerror(errno));
		return 0;
	}
	open_io_tree(r->err);
	if (r->wire_role) {
		/* the supervisor keeps no end of the pipes once the run has them (the peer must see end of file) */
		fds[0] = wire[0];
		fds[1] = wire[1];
		wire[0] = wire[1] = -1;
	} else {
		fds[0] = open_io(r->in[0] ? r->in : "/dev/null", O_RDONLY);
		fds[1] = open_io(r->out, O_WRONLY | O_CREAT | O_TRUNC);
	}
	fds[2] = open_io(r->err, O_WRONLY | O_CREAT | O_TRUNC);
	fds[3] = r->status[0] ? open_io(r->status, O_WRONLY | O_CREAT | O_TRUNC) : open("/dev/null", O_WRONLY | O_CLOEXEC);
	fds[4] = (int)syscall(SYS_open_tree, AT_FDCWD, r->box, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_SYMLINK_NOFOLLOW);
	int one = 1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sock) == 0) fds[5] = sock[1];
	int ok = 1;
	for (int i = 0; i < PREPARED_RUN_FDS; i++) ok &= fds[i] >= 0;
	if (!ok || setsockopt(sock[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof one) != 0) {
		printf("error %s prepared jail: the run's files: %s\n", r->id, strerror(errno));
		ok = 0;
	} else if (send_run(j, msg, len, fds) != 0) {
		snprintf(why, sizeof why, "sending the run: %s", strerror(errno));
		ok = -1;
	}
	for (int i = 0; i < PREPARED_RUN_FDS; i++)
		if (fds[i] >= 0) close(fds[i]);
	pid_t pid = ok == 1 ? await_run_ready(j, sock[0], why, sizeof why) : 0;
	int pidfd = pid > 0 && attach(pid) == 0 ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
	if (ok == 1 && pidfd < 0 && pid > 0) snprintf(why, sizeof why, "moving the run into its cgroups: %s", strerror(errno));
	if (pidfd < 0) {
		if (sock[0] >= 0) close(sock[0]);
		if (oom_efd >= 0) close(oom_efd);
		kill_leftovers();
		if (cg_version == 1) remove_run_group(cg_memrun);
		if (!ok) return 0;
		destroy_jail(j); /* whatever went wrong, this jail is not trusted again */
		if (!last_try) return 1;
		printf("error %s prepared jail: %s\n", r->id, why);
		return 0;
	}

	uint64_t start = now_us(), killed_at = 0;
	const char* limit = "none";
	int ended = 0, gone = 0, status = 0, fresh_net = 0;
	long maxrss = 0;
	/* a run init that cannot hear "go" never starts the program: it is killed and reaped as any run */
	if (send(sock[0], "go", 2, MSG_NOSIGNAL) != 2) syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
	struct limit_watch watch;
	watch_start(&watch, r);
	while (!ended) {
		uint64_t elapsed = now_us() - start;
		struct pollfd pf = {.fd = j->ctl, .events = POLLIN};
		int pr = poll(&pf, 1, elapsed < 20000 ? 2 : 10);
		if (pr > 0) {
			char end[96];
			ssize_t n = recv(j->ctl, end, sizeof end - 1, 0);
			if (n > 0) {
				end[n] = 0;
				if (sscanf(end, "end %d %ld %d", &status, &maxrss, &fresh_net) == 3) ended = 1;
			}
			if (!ended) {
				gone = 1;
				break; /* the init is gone or spoke out of turn */
			}
			continue;
		}
		elapsed = now_us() - start;
		if (strcmp(limit, "none") == 0) {
			const char* past = watch_check(&watch, elapsed, run_cpu_used, NULL);
			/* the run init is PID 1 of the run's namespace: every process of the run dies with it */
			if (past) {
				limit = past;
				killed_at = now_us();
				syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
			}
		} else if (now_us() - killed_at >= KILLED_GRACE_US) {
			break; /* killed KILLED_GRACE_US ago and still not reaped: the jail is not trusted again */
		}
	}
	uint64_t ended_at = now_us(), wall = ended_at - start;
	close(pidfd);
	close(sock[0]);
	uint64_t cpu = run_cpu_us(), mem = 0;
	int oom = 0;
	char p[700];
	if (cg_version == 1) {
		memrun_figures_v1(oom_efd, &mem, &oom);
	} else {
		snprintf(p, sizeof p, "%s/memory.peak", cg_run2);
		mem = read_u64(p);
		snprintf(p, sizeof p, "%s/memory.events", cg_run2);
		oom = read_keyed(p, "oom_kill") > 0 || read_keyed(p, "oom") > 0;
	}
	/* after the run's PID 1 is reaped nothing of it may be left: anything there is doubt */
	int left = kill_leftovers();
	if (!ended || left || fresh_net < 0) destroy_jail(j);
	j->runs++;
	if (!ended) {
		printf("error %s prepared jail: %s\n", r->id, gone ? "its init went away during the run" : "the run did not end within 5 s of being killed");
		turn_over_groups();
		return 0;
	}
	if (strcmp(limit, "none") == 0 && watch.cpu_limit_us && cpu > watch.cpu_limit_us) limit = "cpu";
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	if (r->wire_role == 1) wire_ended(code == 42);
	/* setup_us: from the request to "go" (groups, files, the clone, the run's mounts); finish_us: from
	 * the run's end to this reply (figures, the groups' removal) — where a run's time goes, for the benchmark */
	/* end_us: when the run's end was heard, or it was stopped (CLOCK_MONOTONIC), to order two wired
	 * runs' ends: a peer cannot have reacted to a run stopped by a limit before it was stopped */
	printf("done %s exit=%d signal=%d cpu_us=%llu wall_us=%llu mem_kb=%llu oom=%d limit=%s maxrss_kb=%ld setup_us=%llu "
	       "finish_us=%llu end_us=%llu\n",
	    r->id, code, sig, (unsigned long long)cpu, (unsigned long long)wall, (unsigned long long)(mem / 1024u), oom, limit,
	    maxrss, (unsigned long long)(start - received), (unsigned long long)(now_us() - ended_at), (unsigned long long)(killed_at ? killed_at : ended_at));
	fflush(stdout);
	turn_over_groups();
	return 0;
}

void run_prepared(struct request* r) {
	struct prepared_jail* j = find_jail(r->jail);
	if (!j) {
		printf("error %s prepared jail: none for %s (prepare it first)\n", r->id, r->jail);
		return;
	}
	if (r->box[0] != '/' || strstr(r->box, "/..") || (!r->out[0] && !r->wire_role) || !r->err[0] || r->argc == 0 || !r->nofile ||
	    !r->stack_kb || !r->pids || !r->cpu_backstop_sec || !r->mem_bytes) {
		printf("error %s prepared jail: incomplete request\n", r->id);
		return;
	}
	int wire[2] = {-1, -1};
	char why[300];
	if (r->wire_role && wire_fds(r, &wire[0], &wire[1], why, sizeof why) != 0) {
		printf("error %s wire: %s\n", r->id, why);
		return;
	}
	if (try_run(j, r, 0, wire)) {
		if (r->wire_role && wire[0] < 0) printf("error %s prepared jail: the wired run failed before it started\n", r->id);
		else try_run(j, r, 1, wire);
	}
	wire_close(&wire[0], &wire[1]);
}

void close_prepared_jails(void) {
	for (int i = 0; i < njails; i++) {
		destroy_jail(&jails[i]);
		forget_description(&jails[i]);
	}
	njails = 0;
}

void remove_prepared_groups(void) {
	if (cg_pidsrun[0]) rmdir(cg_pidsrun);
	if (cg_cpurun[0]) rmdir(cg_cpurun);
}
