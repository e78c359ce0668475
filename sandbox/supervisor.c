/*
 * arbiter-supervisor: a small resident process, one per evaluation worker, that launches nsjail
 * for each jailed step and measures it. Node talks to it over stdin/stdout with a line protocol,
 * so a run costs no Node process spawn (~1.5 ms here).
 *
 * Why it exists (see sandbox/README.md):
 *  - it owns the slot's cgroups, so peak memory and CPU time survive nsjail's own clean-up;
 *  - it enforces fractional CPU limits and the wall clock (nsjail's are whole seconds);
 *  - it puts every jail in a pre-made empty network namespace (cheaper than a new one per run);
 *  - it wakes nsjail when the program has exited, working around nsjail's reap/pause() race
 *    that otherwise stalls a run for exactly one second now and then.
 *
 * Usage: arbiter-supervisor SLOT [v1|v2|auto] [INIT] [UID_BASE:UID_COUNT]
 *   INIT: the static jail init (default: arbiter-jail-init beside this binary); it is copied onto
 *   the jail's own small tmpfs (JAIL_FS) so that no host path of it shows in a jail's mountinfo.
 *   UID_BASE:UID_COUNT: the slot claims one host uid of that range for itself alone (claim_uid):
 *   the jail's 65534 is mapped to it and the slot's boxes belong to it, so the kernel's per-user
 *   quotas (pipe buffers, file descriptors in flight, epoll watches ...) are never shared between
 *   two slots. Without it the jail's user is the host's 65534, as before.
 * Request (one field per line, values may not contain newlines; user data travels in files):
 *   run ID | exec PATH | arg S (repeated) | stdin PATH | stdout PATH | stderr PATH |
 *   status PATH (handed to the jail as fd 3 for jail-init's report) | chroot PATH (bare runs of
 *   scripts/bench-sandbox only: run the program chrooted, without nsjail) | cpu_ms N | wall_ms N | fsize BYTES |
 *   mem_bytes N (optional: the run gets a memory group of its own, made here, with this limit;
 *   nsjail's own group must then sit under <slot>/run with a looser limit, see run_group) |
 *   wire_serve PATH | wire_join PATH (optional, instead of stdin/stdout: the run's stdin and stdout are
 *   pipes to a run another supervisor starts at the same time, see wire.c) | end
 * Ready line: ready cgroup=v1|v2 uid=N (the host uid the jail's 65534 is to be mapped to)
 * Reply: one line
 *   done ID exit=N signal=N cpu_us=N wall_us=N mem_kb=N oom=0|1 limit=none|cpu|wall maxrss_kb=N end_us=N
 *   error ID MESSAGE
 * Or a box request (the job's work directory as a bounded tmpfs, see box_request):
 *   boxmount ID | boxgrow ID | boxumount ID, then path PATH | bytes N | inodes N | end
 *   reply: boxed ID used_bytes=N used_inodes=N free_bytes=N free_inodes=N
 * Or a root request (a toolchain root's squashfs image, loop-mounted read-only once per host):
 *   rootmount ID | path MOUNTPOINT | image FILE | end
 *   reply: rooted ID
 * stdin/stdout/stderr/status are opened through a detached copy of their directory's mount, so
 * the jail's /proc/self/fd shows no host path (open_io_tree).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/loop.h>
#include <linux/magic.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/vfs.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "supervisor.h"

#define LINE_MAX_LEN 8192
#define FAVOR_MNT "/run/arbiter/cgroup-favordynmods"
/* What every jail binds from the host lives on one small tmpfs of its own, so a jail's
 * /proc/self/mountinfo names only "/init" and "/masked" there, never a host path. */
/* Its name changes whenever what the init does changes incompatibly (jailfs-2: it re-charges the box
 * and needs fallocate's punch-hole mode from jail.cfg; jailfs-3: it serves prepared jails; jailfs-4: a wired run's pipes reach it on fd 4, not through nsjail's
 * stdin and stdout): every supervisor replaces the init there
 * with its own, so two installs side by side (an upgrade, a benchmark's baseline) must not share it. */
#define JAIL_FS "/run/arbiter/jailfs-4"
/* An empty file nobody may read, bind-mounted by jail.cfg over what a program must not read in /proc */
#define MASKED_FILE JAIL_FS "/masked"
#define JAIL_INIT JAIL_FS "/init"
/* Serialises the set-up of JAIL_FS and of the roots' mounts between the slots' supervisors */
#define SETUP_LOCK "/run/arbiter/.setup.lock"
/* Quotas the kernel also counts to the user that created the jail's user namespace (root), summed
 * over every jail: queued signals and POSIX timers (room for 32 jails' shares of 1024 each; the jail's
 * init lowers its own to 1024, sandbox/jail-init.c), message-queue bytes, locked memory. */
#define JAIL_SIGPENDING (32 * 1024)
#define JAIL_MSGQUEUE_BYTES 0
#define JAIL_MEMLOCK_BYTES (64 * 1024)

int cg_version; /* 1 or 2 */
static char slot[128];
char cg_mem[512], cg_pids[512], cg_cpuacct[512]; /* v1 slot groups */
char cg_slot2[512], cg_run2[512];                 /* v2 slot group and per-run group */
int netns_fd = -1;
/* v1: the per-run memory group (<slot>/run), made afresh for each run that names its limit */
char cg_memrun[600];
/* The host uid (and gid) of this slot's jails: claimed from a range, or 65534 */
static unsigned long jail_uid = 65534;
#define UID_LOCKS "/run/arbiter/uids"

uint64_t now_us(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000u + (uint64_t)t.tv_nsec / 1000u;
}

void watch_start(struct limit_watch* w, const struct request* r) {
	/* read once per supervisor: sysconf opens a file of /sys each time */
	static uint64_t ncpu;
	if (!ncpu) ncpu = (uint64_t)sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu < 1) ncpu = 1;
	w->ncpu = ncpu;
	w->cpu_limit_us = r->cpu_ms * 1000u;
	w->wall_limit_us = r->wall_ms * 1000u;
	w->next_cpu_check = w->cpu_limit_us / ncpu;
}

const char* watch_check(struct limit_watch* w, uint64_t elapsed, uint64_t (*cpu_used)(void* ctx), void* ctx) {
	if (w->wall_limit_us && elapsed >= w->wall_limit_us) return "wall";
	if (w->cpu_limit_us && elapsed >= w->next_cpu_check) {
		uint64_t used = cpu_used(ctx);
		if (used >= w->cpu_limit_us) return "cpu";
		w->next_cpu_check = elapsed + (w->cpu_limit_us - used) / w->ncpu;
	}
	return NULL;
}

void memrun_figures_v1(int oom_efd, uint64_t* mem, int* oom) {
	char p[700];
	snprintf(p, sizeof p, "%s/memory.max_usage_in_bytes", cg_memrun);
	*mem = read_u64(p);
	uint64_t events = 0;
	if (read(oom_efd, &events, sizeof events) != (ssize_t)sizeof events) events = 0;
	snprintf(p, sizeof p, "%s/memory.oom_control", cg_memrun);
	*oom = events > 0 || read_keyed(p, "oom_kill") > 0;
	close(oom_efd);
}

int write_file(const char* path, const char* s) {
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) return -1;
	ssize_t n = write(fd, s, strlen(s));
	int saved = errno;
	close(fd);
	errno = saved;
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

ssize_t read_file(const char* path, char* buf, size_t len) {
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) return -1;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0) return -1;
	buf[n] = 0;
	return n;
}

uint64_t read_u64(const char* path) {
	char buf[64];
	if (read_file(path, buf, sizeof buf) <= 0) return 0;
	return strtoull(buf, NULL, 10);
}

/* The value after "key " in a "key value" per-line file (memory.events, cpu.stat, oom_control). */
uint64_t read_keyed(const char* path, const char* key) {
	char buf[4096];
	if (read_file(path, buf, sizeof buf) <= 0) return 0;
	size_t kl = strlen(key);
	for (char* p = buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (strncmp(p, key, kl) == 0 && p[kl] == ' ') return strtoull(p + kl + 1, NULL, 10);
	}
	return 0;
}

static void mkdir_p(const char* path) {
	char tmp[512];
	snprintf(tmp, sizeof tmp, "%s", path);
	for (char* p = tmp + 1; *p; p++) {
		if (*p == '/') {
			*p = 0;
			mkdir(tmp, 0755);
			*p = '/';
		}
	}
	mkdir(tmp, 0755);
}

static void die(const char* fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "arbiter-supervisor: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(2);
}

static int detect_cgroup_version(void) {
	char buf[512];
	if (read_file(CG_ROOT "/cgroup.controllers", buf, sizeof buf) > 0 && strstr(buf, "memory"))
		return 2;
	if (access(CG_ROOT "/memory/memory.limit_in_bytes", F_OK) == 0) return 1;
	return 0;
}

/*
 * Attaching a task to a cgroup takes a global percpu rwsem whose writer waits for an RCU grace
 * period (7-18 ms here, now and then). Mounting any hierarchy with favordynmods switches that
 * rwsem to favour writers, for every hierarchy. A named v1 hierarchy with no controllers is
 * enough; on v2 the option is a remount of the unified hierarchy.
 */
static void favor_dynmods(void) {
	if (cg_version == 1) {
		mkdir_p(FAVOR_MNT);
		if (mount("cgroup", FAVOR_MNT, "cgroup", 0, "none,name=arbiter,favordynmods") != 0 &&
		    errno != EBUSY)
			fprintf(stderr, "arbiter-supervisor: favordynmods mount: %s\n", strerror(errno));
	} else {
		mount(NULL, CG_ROOT, NULL, MS_REMOUNT, "favordynmods");
	}
}

static void setup_cgroups(void) {
	if (cg_version == 1) {
		snprintf(cg_mem, sizeof cg_mem, CG_ROOT "/memory/arbiter/%s", slot);
		snprintf(cg_pids, sizeof cg_pids, CG_ROOT "/pids/arbiter/%s", slot);
		snprintf(cg_cpuacct, sizeof cg_cpuacct, CG_ROOT "/cpuacct/arbiter/%s", slot);
		mkdir_p(cg_mem);
		mkdir_p(cg_pids);
		mkdir_p(cg_cpuacct);
		snprintf(cg_memrun, sizeof cg_memrun, "%s/run", cg_mem);
		if (access(cg_mem, W_OK) || access(cg_pids, W_OK) || access(cg_cpuacct, W_OK))
			die("cannot create cgroups under " CG_ROOT "/{memory,pids,cpuacct}/arbiter");
	} else {
		char p[600];
		mkdir_p(CG_ROOT "/arbiter");
		/* v2: controllers must be enabled on every level down to the per-run parent */
		write_file(CG_ROOT "/cgroup.subtree_control", "+memory +pids +cpu");
		write_file(CG_ROOT "/arbiter/cgroup.subtree_control", "+memory +pids +cpu");
		snprintf(cg_slot2, sizeof cg_slot2, CG_ROOT "/arbiter/%s", slot);
		mkdir_p(cg_slot2);
		snprintf(p, sizeof p, "%s/cgroup.subtree_control", cg_slot2);
		if (write_file(p, "+memory +pids +cpu") != 0)
			die("cannot enable memory, pids and cpu controllers in %s: %s", cg_slot2,
			    strerror(errno));
		snprintf(cg_run2, sizeof cg_run2, "%s/run", cg_slot2);
	}
}

/*
 * One empty network namespace per slot (only a loopback interface, and that one down), where nsjail
 * itself runs, off the host's network. No program runs in it: each jail nsjail starts gets a new one
 * (jail.cfg clone_newnet), and each run in a prepared jail one of its own (jail-prepared.c).
 */
static void setup_netns(void) {
	int host = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (host < 0) die("open host netns: %s", strerror(errno));
	if (unshare(CLONE_NEWNET) != 0) die("unshare(CLONE_NEWNET): %s", strerror(errno));
	netns_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (netns_fd < 0) die("open jail netns: %s", strerror(errno));
	if (setns(host, CLONE_NEWNET) != 0) die("setns(host): %s", strerror(errno));
	close(host);
}

static void cleanup_cgroups(void) {
	if (cg_version == 1) {
		rmdir(cg_memrun);
		remove_prepared_groups();
		rmdir(cg_mem);
		rmdir(cg_pids);
		rmdir(cg_cpuacct);
	} else {
		rmdir(cg_run2);
		rmdir(cg_slot2);
	}
}

/* Where nsjail makes its group for the current run: v1 the slot's memory group, or its run group */
static const char* jail_parent;

/* The per-run cgroup nsjail made for the program (v1: NSJAIL.<pid> under jail_parent). */
static int find_jail_group(char* out, size_t len) {
	const char* parent = cg_version == 1 ? jail_parent : cg_run2;
	DIR* d = opendir(parent);
	if (!d) return -1;
	struct dirent* e;
	int found = -1;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "NSJAIL.", 7) == 0) {
			snprintf(out, len, "%s/%s", parent, e->d_name);
			found = 0;
			break;
		}
	}
	closedir(d);
	return found;
}

/*
 * True once the program has run and every task of it is gone, while nsjail has not yet reaped
 * it: the moment nsjail may be stuck in pause() until its next 1 s timer tick.
 */
static int program_finished(void) {
	char grp[600], p[700], buf[64];
	if (find_jail_group(grp, sizeof grp) != 0) return 0;
	if (cg_version == 1) {
		/* charged memory proves the task was attached and ran: before that, tasks is empty too */
		snprintf(p, sizeof p, "%s/memory.max_usage_in_bytes", grp);
		if (read_u64(p) == 0) return 0;
		snprintf(p, sizeof p, "%s/tasks", grp);
		return read_file(p, buf, sizeof buf) == 0;
	}
	snprintf(p, sizeof p, "%s/memory.peak", grp);
	if (read_u64(p) == 0) return 0;
	snprintf(p, sizeof p, "%s/cgroup.events", grp);
	return read_keyed(p, "populated") == 0;
}



static void free_request(struct request* r) {
	for (int i = 0; i < r->argc; i++) free(r->argv[i]);
	for (int i = 0; i < r->envc; i++) free(r->env[i]);
	free(r->policy);
	memset(r, 0, sizeof *r);
}

/* A prepared jail's seccomp policy arrives a line per field (the lines of jail.cfg's seccomp_string) */
static void append_policy(struct request* r, const char* line) {
	size_t add = strlen(line) + 1;
	if (r->policy_len + add > 1u << 20) return; /* a policy this long is refused when compiled */
	char* more = realloc(r->policy, r->policy_len + add + 1);
	if (!more) return;
	r->policy = more;
	memcpy(r->policy + r->policy_len, line, add - 1);
	r->policy_len += add;
	r->policy[r->policy_len - 1] = '\n';
	r->policy[r->policy_len] = 0;
}

/* Reads one request; 0 on success, -1 on EOF. */
static int read_request(struct request* r) {
	static char line[LINE_MAX_LEN];
	memset(r, 0, sizeof *r);
	while (fgets(line, sizeof line, stdin)) {
		line[strcspn(line, "\n")] = 0;
		char* v = strchr(line, ' ');
		const char* k = line;
		if (v) *v++ = 0;
		else v = "";
		if (!strcmp(k, "end")) return 0;
		if (!strcmp(k, "run")) snprintf(r->id, sizeof r->id, "%s", v);
		else if (!strcmp(k, "boxmount") || !strcmp(k, "boxgrow") || !strcmp(k, "boxumount")) {
			snprintf(r->id, sizeof r->id, "%s", v);
			r->box_op = k[3] == 'm' ? 1 : k[3] == 'g' ? 2 : 3;
		} else if (!strcmp(k, "rootmount")) {
			snprintf(r->id, sizeof r->id, "%s", v);
			r->root_op = 1;
		} else if (!strcmp(k, "prepare") || !strcmp(k, "pool")) {
			snprintf(r->id, sizeof r->id, "%s", v);
			r->jail_op = k[1] == 'r' ? 1 : 2;
		} else if (!strcmp(k, "jail")) snprintf(r->jail, sizeof r->jail, "%s", v);
		else if (!strcmp(k, "env") && r->envc < MAX_ARGS) r->env[r->envc++] = strdup(v);
		else if (!strcmp(k, "policy")) append_policy(r, v);
		else if (!strcmp(k, "log")) snprintf(r->log, sizeof r->log, "%s", v);
		else if (!strcmp(k, "nofile")) r->nofile = strtoull(v, NULL, 10);
		else if (!strcmp(k, "stack_kb")) r->stack_kb = strtoull(v, NULL, 10);
		else if (!strcmp(k, "as_kb")) r->as_kb = strtoull(v, NULL, 10);
		else if (!strcmp(k, "pids")) r->pids = strtoull(v, NULL, 10);
		else if (!strcmp(k, "cpu_backstop_sec")) r->cpu_backstop_sec = strtoull(v, NULL, 10);
		else if (!strcmp(k, "path") || !strcmp(k, "box")) snprintf(r->box, sizeof r->box, "%s", v);
		else if (!strcmp(k, "image")) snprintf(r->image, sizeof r->image, "%s", v);
		else if (!strcmp(k, "bytes")) r->box_bytes = strtoull(v, NULL, 10);
		else if (!strcmp(k, "inodes")) r->box_inodes = strtoull(v, NULL, 10);
		else if (!strcmp(k, "exec")) snprintf(r->exec, sizeof r->exec, "%s", v);
		else if (!strcmp(k, "arg") && r->argc < MAX_ARGS) r->argv[r->argc++] = strdup(v);
		else if (!strcmp(k, "stdin")) snprintf(r->in, sizeof r->in, "%s", v);
		else if (!strcmp(k, "stdout")) snprintf(r->out, sizeof r->out, "%s", v);
		else if (!strcmp(k, "stderr")) snprintf(r->err, sizeof r->err, "%s", v);
		else if (!strcmp(k, "status")) snprintf(r->status, sizeof r->status, "%s", v);
		else if (!strcmp(k, "chroot")) snprintf(r->chroot, sizeof r->chroot, "%s", v);
		else if (!strcmp(k, "cpu_ms")) r->cpu_ms = strtoull(v, NULL, 10);
		else if (!strcmp(k, "wall_ms")) r->wall_ms = strtoull(v, NULL, 10);
		else if (!strcmp(k, "fsize")) r->fsize = strtoull(v, NULL, 10);
		else if (!strcmp(k, "mem_bytes")) r->mem_bytes = strtoull(v, NULL, 10);
		else if (!strcmp(k, "wire_serve") || !strcmp(k, "wire_join")) {
			r->wire_role = k[5] == 's' ? 1 : 2;
			snprintf(r->wire, sizeof r->wire, "%s", v);
		}
	}
	return -1;
}

/*
 * CPU time of the step so far, in microseconds: the jail's processes only. On v2 the run group holds
 * only them. On v1 the slot's cpuacct group also holds nsjail itself (the supervisor's child, which
 * joined it before exec): its own time (/proc/PID/schedstat, readable while it is a zombie too) is
 * taken off, so a program is neither charged for nsjail's set-up and clean-up (~10 ms) nor judged by it.
 */
static uint64_t cpu_used_us(pid_t nsjail) {
	char p[600];
	if (cg_version == 1) {
		snprintf(p, sizeof p, "%s/cpuacct.usage", cg_cpuacct);
		uint64_t all = read_u64(p), own = 0;
		snprintf(p, sizeof p, "/proc/%d/schedstat", (int)nsjail);
		if (nsjail > 0) own = read_u64(p);
		return (all > own ? all - own : 0) / 1000u;
	}
	snprintf(p, sizeof p, "%s/cpu.stat", cg_run2);
	return read_keyed(p, "usage_usec");
}

static uint64_t nsjail_cpu_used(void* pid) {
	return cpu_used_us(*(pid_t*)pid);
}

static int setup_lock(void) {
	mkdir_p("/run/arbiter");
	int fd = open(SETUP_LOCK, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0 && flock(fd, LOCK_EX) == 0) return fd;
	if (fd >= 0) close(fd);
	return -1;
}

/* Whether PATH is the root of a mount of the given file system type (not a folder inside another). */
static int is_mount_of(const char* path, long magic) {
	struct statfs fs;
	struct stat self, parent;
	char up[600];
	snprintf(up, sizeof up, "%s/..", path);
	if (statfs(path, &fs) != 0 || (long)fs.f_type != magic) return 0;
	if (stat(path, &self) != 0 || stat(up, &parent) != 0) return 0;
	return self.st_dev != parent.st_dev;
}

/* Reads a whole file of at most max bytes into a new buffer; NULL if it cannot. */
static char* slurp(const char* path, size_t max, size_t* len) {
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) return NULL;
	struct stat st;
	char* buf = NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size <= max && (buf = malloc(st.st_size + 1))) {
		size_t got = 0;
		ssize_t n;
		while (got < (size_t)st.st_size && (n = read(fd, buf + got, st.st_size - got)) > 0) got += n;
		if (got != (size_t)st.st_size) {
			free(buf);
			buf = NULL;
		}
		*len = got;
	}
	close(fd);
	return buf;
}

/*
 * JAIL_FS: a tmpfs holding the mask jail.cfg mounts over /proc/cmdline, boot_id, diskstats ...
 * (reading it fails with EACCES) and a copy of the jail's init. Replaced atomically when the init
 * changes (a running jail keeps the copy it started with).
 */
static void setup_jail_fs(const char* init_src) {
	int lock = setup_lock();
	if (lock < 0) die("cannot lock %s: %s", SETUP_LOCK, strerror(errno));
	mkdir_p(JAIL_FS);
	if (!is_mount_of(JAIL_FS, TMPFS_MAGIC) &&
	    mount("arbiter-jail", JAIL_FS, "tmpfs", MS_NOSUID | MS_NODEV, "size=16m,nr_inodes=16,mode=0755") != 0)
		die("cannot mount a tmpfs on %s: %s", JAIL_FS, strerror(errno));
	int fd = open(MASKED_FILE, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0);
	if (fd < 0 || fchmod(fd, 0) != 0 || ftruncate(fd, 0) != 0)
		die("cannot make %s: %s", MASKED_FILE, strerror(errno));
	close(fd);
	size_t want_len = 0, have_len = 0;
	char* want = slurp(init_src, 15u << 20, &want_len);
	if (!want) die("cannot read the jail init %s: %s", init_src, strerror(errno));
	char* have = slurp(JAIL_INIT, 15u << 20, &have_len);
	if (!have || have_len != want_len || memcmp(have, want, want_len) != 0) {
		const char* tmp = JAIL_FS "/.init.new";
		unlink(tmp);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0555);
		if (fd < 0 || write(fd, want, want_len) != (ssize_t)want_len || fchmod(fd, 0555) != 0 || close(fd) != 0 ||
		    rename(tmp, JAIL_INIT) != 0)
			die("cannot copy the jail init to %s: %s", JAIL_INIT, strerror(errno));
	}
	free(want);
	free(have);
	close(lock);
}

/*
 * The step's io directory seen through a detached copy of its mount (open_tree(OPEN_TREE_CLONE)):
 * a descriptor opened through it reads back, in the jail's /proc/self/fd, as "/stdout" rather than
 * the host path of the runs directory. The copy is kept while the directory stays the same one
 * (same path, device and inode): releasing a copy waits for an RCU grace period, which would
 * otherwise delay every next run. A new directory (or a new mount on it) gets a new copy.
 */
static int io_tree_fd = -1;
static char io_tree_dir[512];
static dev_t io_tree_dev;
static ino_t io_tree_ino;

static void close_io_tree(void) {
	if (io_tree_fd >= 0) close(io_tree_fd);
	io_tree_fd = -1;
	io_tree_dir[0] = 0;
}

void open_io_tree(const char* any_io_path) {
	char dir[512];
	snprintf(dir, sizeof dir, "%s", any_io_path);
	char* slash = strrchr(dir, '/');
	struct stat now;
	if (slash && slash != dir) *slash = 0;
	if (!slash || slash == dir || stat(dir, &now) != 0) {
		close_io_tree();
		return;
	}
	if (io_tree_fd >= 0 && strcmp(dir, io_tree_dir) == 0 && now.st_dev == io_tree_dev &&
	    now.st_ino == io_tree_ino)
		return;
	close_io_tree();
	io_tree_fd = (int)syscall(SYS_open_tree, AT_FDCWD, dir, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (io_tree_fd < 0) return;
	snprintf(io_tree_dir, sizeof io_tree_dir, "%s", dir);
	io_tree_dev = now.st_dev;
	io_tree_ino = now.st_ino;
}

int open_io(const char* path, int flags) {
	/* O_NOFOLLOW: never follow a link a jailed program could have planted */
	flags |= O_NOFOLLOW | O_CLOEXEC;
	/* a new file rather than a truncated one: ext4 starts writing back a file truncated to 0 when it
	 * is closed (its auto_da_alloc), which cost every run a flush of the last run's output */
	int fresh = (flags & (O_TRUNC | O_CREAT)) == (O_TRUNC | O_CREAT);
	if (fresh) flags = (flags & ~O_TRUNC) | O_EXCL;
	size_t dl = strlen(io_tree_dir);
	if (io_tree_fd >= 0 && dl && strncmp(path, io_tree_dir, dl) == 0 && path[dl] == '/' &&
	    !strchr(path + dl + 1, '/')) {
		if (fresh) unlinkat(io_tree_fd, path + dl + 1, 0);
		return openat(io_tree_fd, path + dl + 1, flags, 0600);
	}
	if (fresh) unlink(path);
	return open(path, flags, 0600);
}

/*
 * Bounds, before nsjail starts, the quotas a jail could otherwise take from root: the jail's user
 * namespace records these limits when nsjail creates it, and the kernel checks root's own count
 * against them too, so one run holds at most this much (RLIMIT_SIGPENDING has no nsjail option).
 */
int limit_host_quotas(void) {
	struct rlimit sig = {JAIL_SIGPENDING, JAIL_SIGPENDING};
	struct rlimit mq = {JAIL_MSGQUEUE_BYTES, JAIL_MSGQUEUE_BYTES};
	struct rlimit lock = {JAIL_MEMLOCK_BYTES, JAIL_MEMLOCK_BYTES};
	return setrlimit(RLIMIT_SIGPENDING, &sig) || setrlimit(RLIMIT_MSGQUEUE, &mq) ||
	    setrlimit(RLIMIT_MEMLOCK, &lock);
}

/* wire_in/wire_out: a wired run's pipe ends (wire.c), else -1 and the files of the request; hand: the
 * socket its init takes them from (nsjail's stdin and stdout are then /dev/null), else -1 */
static void child_exec(struct request* r, int wire_in, int wire_out, int hand) {
	if (setns(netns_fd, CLONE_NEWNET) != 0) _exit(120);
	if (cg_version == 1) {
		char p[600];
		snprintf(p, sizeof p, "%s/cgroup.procs", cg_cpuacct);
		if (write_file(p, "0") != 0) _exit(121);
	}
	if (hand >= 0) {
		/* kept clear of 0-3, which the step's files take below; it goes to WIRE_HAND_FD only after
		 * them, since until then fd 4 may be one this process still needs: the io folder's cached
		 * tree (io_tree_fd) was 4 in a cgroup v2 supervisor, and a dup2 over it made the step's files
		 * fail to open through it (ENOTDIR), so every such wired run ended before nsjail started */
		if (hand <= 3 && (hand = fcntl(hand, F_DUPFD_CLOEXEC, WIRE_HAND_FD + 1)) < 0) _exit(123);
		wire_in = wire_out = -1; /* the parent hands them over: none goes through nsjail */
	}
	/* nsjail's own stdin and stdout when the init takes the wire: opened as they are, never through
	 * open_io (which makes each file anew: unlinking /dev/null) */
	int in = wire_in >= 0 ? wire_in : hand >= 0 ? open("/dev/null", O_RDONLY | O_CLOEXEC) : open_io(r->in[0] ? r->in : "/dev/null", O_RDONLY);
	int out = wire_out >= 0 ? wire_out : hand >= 0 ? open("/dev/null", O_WRONLY | O_CLOEXEC) : open_io(r->out, O_WRONLY | O_CREAT | O_TRUNC);
	int err = open_io(r->err, O_WRONLY | O_CREAT | O_TRUNC);
	int status = r->status[0] ? open_io(r->status, O_WRONLY | O_CREAT | O_TRUNC) : open_io("/dev/null", O_WRONLY);
	if (in < 0 || out < 0 || err < 0 || status < 0) _exit(122);
	if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0 || dup2(status, 3) < 0) _exit(123);
	for (int fd = 0; fd <= 3; fd++) fcntl(fd, F_SETFD, 0); /* dup2 onto itself keeps CLOEXEC */
	if (hand >= 0 && (dup2(hand, WIRE_HAND_FD) < 0 || fcntl(WIRE_HAND_FD, F_SETFD, 0) != 0)) _exit(123);
	if (!r->chroot[0] && limit_host_quotas() != 0) _exit(126);
	/* nsjail keeps this with --rlimit_fsize soft: byte-exact output cap (its own flag is in MiB) */
	if (r->fsize) {
		struct rlimit rl = {r->fsize, r->fsize};
		setrlimit(RLIMIT_FSIZE, &rl);
	}
	signal(SIGPIPE, SIG_DFL); /* ignored dispositions survive execve: give the jail the defaults */
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* bare runs work in the root's /work, where the benchmark bind-mounts the job's box */
	if (r->chroot[0] && (chroot(r->chroot) != 0 || (chdir("/work") != 0 && chdir("/") != 0))) _exit(125);
	r->argv[r->argc] = NULL;
	execv(r->exec, r->argv);
	_exit(124);
}

/* Removes a per-run group left by a crashed run: nsjail's groups under it first (empty ones only). */
void remove_run_group(const char* path) {
	DIR* d = opendir(path);
	if (d) {
		struct dirent* e;
		char sub[900];
		while ((e = readdir(d))) {
			if (strncmp(e->d_name, "NSJAIL.", 7) != 0) continue;
			snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
			rmdir(sub);
		}
		closedir(d);
	}
	rmdir(path);
}

/*
 * The run's own memory group, made afresh, with the run's limit set on it rather than on nsjail's
 * group below it (nsjail gets a looser backstop, nsjail-args.ts), so that:
 *  - its peak is this run's alone: nothing an earlier step charged (the compile step's files, the
 *    page cache it read) is in it, and nothing the run frees can hide what it used;
 *  - on v1 an out-of-memory kill is seen: the kernel counts a kill only in the victim's own group,
 *    which nsjail removes, but it signals the out-of-memory event to eventfds registered on the
 *    group that hit its limit, and that is this one (*oom_efd; -1 on v2, whose memory.events counts
 *    kills in every ancestor).
 * Returns NULL or what failed.
 */
const char* make_run_group(uint64_t limit, int* oom_efd, int premade) {
	char p[700], v[32];
	*oom_efd = -1;
	snprintf(v, sizeof v, "%llu", (unsigned long long)limit);
	if (cg_version == 2) {
		snprintf(p, sizeof p, "%s/memory.max", cg_run2);
		if (write_file(p, v) != 0) return "memory.max";
		snprintf(p, sizeof p, "%s/memory.swap.max", cg_run2);
		write_file(p, "0"); /* absent without swap accounting */
		return NULL;
	}
	/* premade: made empty after the last run's reply (prepared-jails.c), off the next run's path */
	if (!premade) remove_run_group(cg_memrun);
	if (mkdir(cg_memrun, 0755) != 0 && errno != EEXIST) return "mkdir";
	snprintf(p, sizeof p, "%s/memory.memsw.limit_in_bytes", cg_memrun);
	int memsw = access(p, F_OK) == 0;
	if (memsw) write_file(p, "-1"); /* memsw may never be under the memory limit: raise it first */
	snprintf(p, sizeof p, "%s/memory.limit_in_bytes", cg_memrun);
	if (write_file(p, v) != 0) return "memory.limit_in_bytes";
	snprintf(p, sizeof p, "%s/memory.memsw.limit_in_bytes", cg_memrun);
	if (memsw && write_file(p, v) != 0) return "memory.memsw.limit_in_bytes";
	snprintf(p, sizeof p, "%s/memory.max_usage_in_bytes", cg_memrun);
	write_file(p, "0");
	int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	snprintf(p, sizeof p, "%s/memory.oom_control", cg_memrun);
	int ofd = open(p, O_RDONLY | O_CLOEXEC);
	char reg[64];
	snprintf(reg, sizeof reg, "%d %d", efd, ofd);
	snprintf(p, sizeof p, "%s/cgroup.event_control", cg_memrun);
	int ok = efd >= 0 && ofd >= 0 && write_file(p, reg) == 0;
	if (ofd >= 0) close(ofd);
	if (!ok) {
		if (efd >= 0) close(efd);
		return "cgroup.event_control";
	}
	*oom_efd = efd;
	return NULL;
}

static void run(struct request* r) {
	char p[600];
	uint64_t oom_before = 0, mem_before = 0;
	int own = r->mem_bytes > 0, oom_efd = -1;
	jail_parent = own ? cg_memrun : cg_mem;
	if (cg_version == 1) {
		snprintf(p, sizeof p, "%s/cpuacct.usage", cg_cpuacct);
		write_file(p, "0");
		if (!own) {
			/* the slot keeps page cache charged by earlier runs: the peak is measured above it */
			snprintf(p, sizeof p, "%s/memory.max_usage_in_bytes", cg_mem);
			write_file(p, "0");
			snprintf(p, sizeof p, "%s/memory.usage_in_bytes", cg_mem);
			mem_before = read_u64(p);
			snprintf(p, sizeof p, "%s/memory.oom_control", cg_mem);
			oom_before = read_keyed(p, "oom_kill");
		}
	} else {
		rmdir(cg_run2); /* a leftover from a crashed run */
		if (mkdir(cg_run2, 0755) != 0 && errno != EEXIST) {
			printf("error %s mkdir %s: %s\n", r->id, cg_run2, strerror(errno));
			return;
		}
		snprintf(p, sizeof p, "%s/cgroup.subtree_control", cg_run2);
		write_file(p, "+memory +pids +cpu");
	}
	if (own) {
		const char* failed = make_run_group(r->mem_bytes, &oom_efd, 0);
		if (failed) {
			printf("error %s run group %s: %s\n", r->id, failed, strerror(errno));
			return;
		}
	}

	int wire_in = -1, wire_out = -1;
	char why[300];
	if (r->wire_role && wire_fds(r, &wire_in, &wire_out, why, sizeof why) != 0) {
		printf("error %s wire: %s\n", r->id, why);
		if (oom_efd >= 0) close(oom_efd);
		return;
	}
	/* through nsjail (not a bare run), a wired run's ends go to the jail's init over a socket (wire.c) */
	int hand[2] = {-1, -1};
	if (wire_in >= 0 && !r->chroot[0] && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, hand) != 0) {
		printf("error %s wire: socketpair: %s\n", r->id, strerror(errno));
		if (oom_efd >= 0) close(oom_efd);
		wire_close(&wire_in, &wire_out);
		return;
	}
	open_io_tree(r->err);
	uint64_t start = now_us();
	pid_t pid = fork();
	if (pid < 0) {
		printf("error %s fork: %s\n", r->id, strerror(errno));
		if (oom_efd >= 0) close(oom_efd);
		wire_close(&wire_in, &wire_out);
		wire_close(&hand[0], &hand[1]);
		return;
	}
	if (pid == 0) child_exec(r, wire_in, wire_out, hand[1]);
	/* queued in the socket until the init takes them; if it never does (nsjail failed), they go with it.
	 * A failed hand-over leaves the init nothing to read: it ends at once, and the run is judged by that */
	if (hand[0] >= 0 && wire_hand_over(hand[0], wire_in, wire_out) != 0)
		fprintf(stderr, "arbiter-supervisor: %s: handing the wired pipes to the jail: %s\n", r->id, strerror(errno));
	wire_close(&hand[0], &hand[1]);
	/* the run holds its ends now: none may stay here, or the peer would never see end of file */
	wire_close(&wire_in, &wire_out);

	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	const char* limit = "none";
	uint64_t killed_at = 0;
	int kicked_at_ms = -1;
	struct limit_watch watch;
	watch_start(&watch, r);
	for (;;) {
		uint64_t elapsed = now_us() - start;
		/* short polls at first, so a stalled nsjail is woken within ~2 ms; then every 10 ms */
		int timeout = elapsed < 20000 ? 2 : 10;
		struct pollfd pf = {.fd = pfd, .events = POLLIN};
		int pr = pfd >= 0 ? poll(&pf, 1, timeout) : (usleep(timeout * 1000), 0);
		if (pr > 0) break;
		int st;
		if (pfd < 0 && waitpid(pid, &st, WNOHANG | __WALL) == pid) {
			/* no pidfd (old kernel): fall through to the final reap with a status we lost */
			kill(pid, SIGKILL);
			break;
		}
		elapsed = now_us() - start;
		if (strcmp(limit, "none") == 0) {
			const char* past = watch_check(&watch, elapsed, nsjail_cpu_used, &pid);
			/* SIGTERM lets nsjail kill the jail and remove its cgroups itself */
			if (past) {
				limit = past;
				killed_at = now_us();
				kill(pid, SIGTERM);
			}
		} else if (elapsed >= r->wall_ms * 1000u + 2000000u) {
			kill(pid, SIGKILL); /* nsjail did not stop within 2 s of being told */
		}
		int ms = (int)(elapsed / 1000u);
		if (ms != kicked_at_ms && program_finished()) {
			kill(pid, SIGALRM); /* wakes nsjail's pause(); its handler for SIGALRM does nothing */
			kicked_at_ms = ms;
		}
	}
	/* nsjail has exited (a zombie until reaped): its own CPU time is still there to take off */
	uint64_t cpu = cpu_used_us(pid), mem = 0, oom = 0, ended_at = now_us();
	struct rusage ru;
	int status = 0;
	while (wait4(pid, &status, __WALL, &ru) < 0 && errno == EINTR) {
	}
	uint64_t wall = now_us() - start;
	if (pfd >= 0) close(pfd);

	/* a program that ends between two looks at its CPU time may have passed the limit: past it is
	 * past it, whether or not the supervisor had stopped it yet */
	if (strcmp(limit, "none") == 0 && watch.cpu_limit_us && cpu > watch.cpu_limit_us) limit = "cpu";
	if (cg_version == 1 && own) {
		int killed = 0;
		memrun_figures_v1(oom_efd, &mem, &killed);
		oom = (uint64_t)killed;
		remove_run_group(cg_memrun);
	} else if (cg_version == 1) {
		snprintf(p, sizeof p, "%s/memory.max_usage_in_bytes", cg_mem);
		mem = read_u64(p);
		mem = mem > mem_before ? mem - mem_before : 0;
		snprintf(p, sizeof p, "%s/memory.oom_control", cg_mem);
		oom = read_keyed(p, "oom_kill") > oom_before;
	} else {
		snprintf(p, sizeof p, "%s/memory.peak", cg_run2);
		mem = read_u64(p);
		/* hierarchical: kills in nsjail's group below count here too; "oom": the limit was hit
		 * with nothing left to reclaim, even when no kill followed */
		snprintf(p, sizeof p, "%s/memory.events", cg_run2);
		oom = read_keyed(p, "oom_kill") > 0 || (own && read_keyed(p, "oom") > 0);
		rmdir(cg_run2);
	}
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	if (r->wire_role == 1) wire_ended(code == 42);
	/* end_us: when the run was seen to end, or was told to (CLOCK_MONOTONIC), to order two wired runs'
	 * ends: a peer cannot have reacted to a run stopped by a limit before it was stopped */
	if (killed_at) ended_at = killed_at;
	printf("done %s exit=%d signal=%d cpu_us=%llu wall_us=%llu mem_kb=%llu oom=%llu limit=%s "
	       "maxrss_kb=%ld end_us=%llu\n",
	    r->id, code, sig, (unsigned long long)cpu, (unsigned long long)wall,
	    (unsigned long long)(mem / 1024u), (unsigned long long)oom, limit, ru.ru_maxrss, (unsigned long long)ended_at);
}

/*
 * The job's work directory is a tmpfs of its own, so every byte and inode a step writes there is
 * bounded (fallocate included) and freed by unmounting it. "boxmount" mounts a fresh one (detaching
 * whatever was mounted there before), "boxgrow" lets the next step write bytes/inodes more than what
 * is in it now (the compile step's output stays, within its own cap), "boxumount" frees it.
 * Reply: "boxed ID used_bytes=N used_inodes=N free_bytes=N free_inodes=N" or "error ID MESSAGE".
 */
/* The box this supervisor mounted last and has not unmounted: unmounted when its caller goes (EOF),
 * since a job leaves a fresh empty box mounted for the next one (worker.ts). */
static char mounted_box[sizeof ((struct request*)0)->box];

static void box_request(struct request* r) {
	struct statfs fs;
	char opts[160];
	if (!r->box[0] || r->box[0] != '/' || strstr(r->box, "/../")) {
		printf("error %s box: bad path\n", r->id);
		return;
	}
	if (r->box_op == 1 || r->box_op == 3) {
		while (umount2(r->box, MNT_DETACH | UMOUNT_NOFOLLOW) == 0) {
		}
	}
	if (r->box_op == 3) {
		if (!strcmp(mounted_box, r->box)) mounted_box[0] = 0;
		printf("boxed %s used_bytes=0 used_inodes=0 free_bytes=0 free_inodes=0\n", r->id);
		return;
	}
	if (r->box_bytes == 0 || r->box_inodes == 0) {
		printf("error %s box: a zero cap\n", r->id);
		return;
	}
	if (r->box_op == 1) {
		snprintf(opts, sizeof opts, "size=%llu,nr_inodes=%llu,mode=0755,uid=%lu,gid=%lu",
		    (unsigned long long)r->box_bytes, (unsigned long long)r->box_inodes, jail_uid, jail_uid);
		if (mount("arbiter-box", r->box, "tmpfs", MS_NOSUID | MS_NODEV, opts) != 0) {
			printf("error %s box: mount: %s\n", r->id, strerror(errno));
			return;
		}
		snprintf(mounted_box, sizeof mounted_box, "%s", r->box);
	} else {
		if (statfs(r->box, &fs) != 0) {
			printf("error %s box: statfs: %s\n", r->id, strerror(errno));
			return;
		}
		unsigned long long used = (unsigned long long)(fs.f_blocks - fs.f_bfree) * fs.f_bsize;
		unsigned long long used_inodes = (unsigned long long)(fs.f_files - fs.f_ffree);
		snprintf(opts, sizeof opts, "size=%llu,nr_inodes=%llu", used + r->box_bytes, used_inodes + r->box_inodes);
		if (mount(NULL, r->box, NULL, MS_REMOUNT | MS_NOSUID | MS_NODEV, opts) != 0) {
			printf("error %s box: remount: %s\n", r->id, strerror(errno));
			return;
		}
	}
	if (statfs(r->box, &fs) != 0) {
		printf("error %s box: statfs: %s\n", r->id, strerror(errno));
		return;
	}
	printf("boxed %s used_bytes=%llu used_inodes=%llu free_bytes=%llu free_inodes=%llu\n", r->id,
	    (unsigned long long)(fs.f_blocks - fs.f_bfree) * fs.f_bsize, (unsigned long long)(fs.f_files - fs.f_ffree),
	    (unsigned long long)fs.f_bfree * fs.f_bsize, (unsigned long long)fs.f_ffree);
}

/*
 * A toolchain root is a squashfs image loop-mounted read-only at its mount point,
 * once per host: a file system of its own, so a jail's mountinfo shows "/" of /dev/loopN as its
 * root rather than the host folder the toolchains live in. Reply: "rooted ID" or "error ID MESSAGE".
 */
static void root_request(struct request* r) {
	if (r->box[0] != '/' || strstr(r->box, "/..") || r->image[0] != '/' || strstr(r->image, "/..")) {
		printf("error %s root: bad path\n", r->id);
		return;
	}
	int lock = setup_lock();
	if (lock < 0) {
		printf("error %s root: lock: %s\n", r->id, strerror(errno));
		return;
	}
	const char* fail = NULL;
	int saved = 0, img = -1, ctl = -1, dev = -1;
	char devname[64] = "";
	mkdir_p(r->box);
	if (is_mount_of(r->box, SQUASHFS_MAGIC)) goto done;
	if ((img = open(r->image, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0) { fail = "image"; goto done; }
	if ((ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC)) < 0) { fail = "loop-control"; goto done; }
	/* another program may take the same free device between the two calls: try a few */
	for (int tries = 0; tries < 8 && dev < 0; tries++) {
		int n = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (n < 0) { fail = "loop device"; goto done; }
		snprintf(devname, sizeof devname, "/dev/loop%d", n);
		if ((dev = open(devname, O_RDONLY | O_CLOEXEC)) < 0) { fail = devname; goto done; }
		struct loop_config cfg;
		memset(&cfg, 0, sizeof cfg);
		cfg.fd = img;
		cfg.info.lo_flags = LO_FLAGS_READ_ONLY | LO_FLAGS_AUTOCLEAR;
		if (ioctl(dev, LOOP_CONFIGURE, &cfg) != 0) {
			saved = errno;
			close(dev);
			dev = -1;
			if (saved != EBUSY) { errno = saved; fail = "LOOP_CONFIGURE"; goto done; }
		}
	}
	if (dev < 0) { errno = EBUSY; fail = "loop device"; goto done; }
	/* no nosuid/nodev here: nsjail remounts its bind of the root read-only, and flags locked in from
	 * the host mount would make that fail (EPERM); inside, no_new_privs and the jail's own /dev hold */
	if (mount(devname, r->box, "squashfs", MS_RDONLY, NULL) != 0) fail = "mount";
done:
	saved = errno;
	if (dev >= 0) close(dev); /* autoclear: the loop device goes with the mount (or now, if none) */
	if (ctl >= 0) close(ctl);
	if (img >= 0) close(img);
	close(lock);
	if (fail) printf("error %s root: %s: %s\n", r->id, fail, strerror(saved));
	else printf("rooted %s\n", r->id);
}

/*
 * Claims, for this process's lifetime, one host uid of BASE:COUNT that no other live supervisor
 * holds: an exclusive flock on /run/arbiter/uids/<uid>, released by the kernel when the process
 * ends however it ends. The jail's user is mapped to it (nsjail-args.ts), so what the kernel counts
 * per user (pipe buffers, descriptors in flight over UNIX sockets, epoll watches) is this slot's alone.
 */
static void claim_uid(const char* spec) {
	char* end;
	unsigned long base = strtoul(spec, &end, 10), count = 0;
	if (*end == ':') count = strtoul(end + 1, &end, 10);
	/* never a system or login user's id, never root, never past the largest valid id */
	if (*end || base < 100000 || count < 1 || count > (1ul << 20) || base + count > 4294967294ul)
		die("bad uid range %s (BASE:COUNT, BASE at least 100000)", spec);
	mkdir_p(UID_LOCKS);
	char path[600];
	for (unsigned long i = 0; i < count; i++) {
		snprintf(path, sizeof path, UID_LOCKS "/%lu", base + i);
		int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0) die("cannot open %s: %s", path, strerror(errno));
		if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
			jail_uid = base + i; /* the descriptor stays open: the claim lasts as long as this process */
			return;
		}
		close(fd);
	}
	die("every uid of %s is held by another supervisor", spec);
}

int main(int argc, char** argv) {
	if (argc < 2 || strlen(argv[1]) >= sizeof slot || strchr(argv[1], '/') || argv[1][0] == '.')
		die("usage: arbiter-supervisor SLOT [v1|v2|auto] [INIT] [UID_BASE:UID_COUNT]");
	snprintf(slot, sizeof slot, "%s", argv[1]);
	const char* want = argc > 2 ? argv[2] : "auto";
	cg_version = !strcmp(want, "v2") ? 2 : !strcmp(want, "v1") ? 1 : detect_cgroup_version();
	if (!cg_version) die("no cgroup memory controller found (neither v1 nor v2)");
	signal(SIGPIPE, SIG_IGN);
	favor_dynmods();
	char init_src[600];
	if (argc > 3) snprintf(init_src, sizeof init_src, "%s", argv[3]);
	else {
		ssize_t n = readlink("/proc/self/exe", init_src, sizeof init_src - 32);
		if (n <= 0) die("cannot find this binary: %s", strerror(errno));
		init_src[n] = 0;
		snprintf(strrchr(init_src, '/') + 1, 32, "arbiter-jail-init");
	}
	setup_jail_fs(init_src);
	if (argc > 4) claim_uid(argv[4]);
	setup_cgroups();
	setup_netns();
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready cgroup=v%d uid=%lu\n", cg_version, jail_uid);

	struct request r;
	while (read_request(&r) == 0) {
		wire_release(); /* the last wired run's peer has ended: its caller sends nothing before */
		if (r.root_op)
			root_request(&r);
		else if (r.jail_op == 1)
			prepare_request(&r);
		else if (r.jail_op == 2)
			pool_request(&r);
		else if (r.jail[0])
			run_prepared(&r);
		else if (r.box_op)
			box_request(&r);
		else if (!r.exec[0] || (!r.out[0] && !r.wire_role) || !r.err[0] || r.argc == 0)
			printf("error %s incomplete request\n", r.id);
		else
			run(&r);
		free_request(&r);
	}
	close_prepared_jails();
	close_io_tree();
	if (mounted_box[0])
		while (umount2(mounted_box, MNT_DETACH | UMOUNT_NOFOLLOW) == 0) {
		}
	cleanup_cgroups();
	return 0;
}
