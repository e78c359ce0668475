/*
 * One run sent by the supervisor (supervisor.c) to a prepared jail's resident init (jail-prepared.c)
 * over their SOCK_SEQPACKET socket: this header, then filter_len seccomp instructions (jail.cfg's
 * policy, compiled once by the supervisor with kafel), then argc + envc NUL-terminated strings.
 * The descriptors travel with it (SCM_RIGHTS): stdin, stdout, stderr, report, box, run socket.
 */
#ifndef ARBITER_PREPARED_RUN_H
#define ARBITER_PREPARED_RUN_H
#include <stdint.h>

#define PREPARED_RUN_MAGIC 0x31425241u /* "ARB1" */
#define PREPARED_RUN_FDS 6
#define PREPARED_RUN_MAX (256 * 1024)
#define PREPARED_RUN_MAX_FILTER 4096
#define PREPARED_RUN_MAX_STRINGS 1024

struct prepared_run {
	uint32_t magic;
	uint32_t filter_len;  /* struct sock_filter entries */
	uint32_t argc, envc;  /* argv[0] is the program's path inside the root */
	uint32_t strings_len; /* bytes of the strings, every one NUL-terminated */
	uint32_t reserved;
	/* rlimits (RLIM_INFINITY for none); as_bytes 0: no address-space limit */
	uint64_t cpu_sec, nofile, fsize, stack_bytes, as_bytes;
};

#endif
