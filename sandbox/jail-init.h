/* What the jail's init (jail-init.c) and the resident init of a prepared jail (jail-prepared.c) share. */
#ifndef ARBITER_JAIL_INIT_H
#define ARBITER_JAIL_INIT_H
#include <sys/types.h>

/* A run wired to another through one nsjail start: the socket its pipe ends arrive on (sandbox/wire.c) */
#define WIRE_HAND_FD 4

/* Re-charges the files of /work to the calling process's memory group; -1 on a failure. */
int recharge_work(void);
/* Lowers RLIMIT_SIGPENDING to one jail's share of what root may queue. */
int share_host_quotas(void);
/* Makes the caller non-dumpable: its /proc entries and ptrace-mode access need CAP_SYS_PTRACE. */
int shield_self(void);
/* Reaps until `child` ends, reports how it ended on `report` (-1: none); returns the status to exit with. */
int reap_and_report(pid_t child, int report);
/* The loop of a prepared jail's resident init: requests on descriptor `ctl` (jail-prepared.c). */
int serve_prepared_runs(int ctl);

#endif
