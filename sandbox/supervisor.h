/* What supervisor.c shares with prepared-jails.c: the slot's state, the request, cgroup helpers. */
#ifndef ARBITER_SUPERVISOR_H
#define ARBITER_SUPERVISOR_H
#include <stdint.h>
#include <sys/types.h>
#include "jail-init.h"

#define MAX_ARGS 512
#define CG_ROOT "/sys/fs/cgroup"

struct request {
	char id[64];
	char exec[512];
	char* argv[MAX_ARGS + 1];
	int argc;
	char in[512], out[512], err[512], status[512], chroot[512];
	uint64_t cpu_ms, wall_ms, fsize;
	/* the run's memory limit, enforced on a group the supervisor owns (0: nsjail's group has it) */
	uint64_t mem_bytes;
	/* a box request instead of a run: 1 mount a fresh tmpfs, 2 grow it by bytes/inodes, 3 unmount */
	int box_op;
	char box[512];
	uint64_t box_bytes, box_inodes;
	/* a root request: loop-mount the squashfs image at box (the mount point) */
	int root_op;
	char image[512];
	/* prepared jails (prepared-jails.c): 1 prepare, 2 pool report; a run naming `jail` runs in one */
	int jail_op;
	char jail[512];
	char* env[MAX_ARGS + 1];
	int envc;
	/* the seccomp policy's text (kafel), a line per "policy" field */
	char* policy;
	size_t policy_len;
	char log[512];
	uint64_t nofile, stack_kb, as_kb, pids, cpu_backstop_sec;
	/* a wired run (wire.c): stdin and stdout are pipes to a peer run; 1 `wire_serve PATH`, 2 `wire_join PATH` */
	int wire_role;
	char wire[512];
};

extern int cg_version;
extern char cg_mem[512], cg_pids[512], cg_cpuacct[512];
extern char cg_slot2[512], cg_run2[512];
extern char cg_memrun[600];
extern int netns_fd;

uint64_t now_us(void);
int write_file(const char* path, const char* s);
ssize_t read_file(const char* path, char* buf, size_t len);
uint64_t read_u64(const char* path);
uint64_t read_keyed(const char* path, const char* key);
void open_io_tree(const char* any_io_path);
int open_io(const char* path, int flags);
int limit_host_quotas(void);
void remove_run_group(const char* path);
/* premade: the group was made empty after the last run (kept if it is there), else made afresh */
const char* make_run_group(uint64_t limit, int* oom_efd, int premade);

/*
 * The supervisor's own watch over a run's CPU and wall time (the jail's RLIMIT_CPU is only a backstop):
 * CPU time grows at most ncpu times faster than wall time, so it is read only when it could be past.
 */
struct limit_watch {
	uint64_t cpu_limit_us, wall_limit_us, next_cpu_check, ncpu;
};
void watch_start(struct limit_watch* w, const struct request* r);
/* "wall" or "cpu" once the run is past a limit elapsed µs after its start, else NULL; cpu_used(ctx): its CPU µs */
const char* watch_check(struct limit_watch* w, uint64_t elapsed, uint64_t (*cpu_used)(void* ctx), void* ctx);

/* The v1 run memory group's peak and whether the OOM killer acted in it (closes oom_efd). */
void memrun_figures_v1(int oom_efd, uint64_t* mem, int* oom);

/* wire.c: this run's two pipe ends (0), or -1 with why; wire_close closes what is still open */
int wire_fds(const struct request* r, int* in, int* out, char* why, size_t whylen);
void wire_close(int* in, int* out);
/* a wired run through nsjail: its two ends go over this socket to the jail's init, which gets it as
 * fd WIRE_HAND_FD (jail-init.h), never through nsjail's own stdin and stdout (wire.c) */
int wire_hand_over(int sock, int in, int out);
/* the served run ended (accepted: it exited 42), and any next request: the pipes' kept read ends go (wire.c) */
void wire_ended(int accepted);
void wire_release(void);

/* prepared-jails.c */
void prepare_request(struct request* r);
void pool_request(struct request* r);
void run_prepared(struct request* r);
void close_prepared_jails(void);
void remove_prepared_groups(void);

#endif
