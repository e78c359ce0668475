/*
 * One run sent by the supervisor (supervisor.c) to a prepared jail's resident init (jail-prepared.c)
 * over their SOCK_SEQPACKET socket: this header, then filter_len seccomp instructions (jail.cfg's
 * policy, compiled once by the supervisor with kafel), then argc + envc NUL-terminated strings.
 * The descriptors travel with it (SCM_RIGHTS): stdin, stdout, stderr, report, box, run socket.
 */
#ifndef ARBITER_PREPARED_RUN_H
#define ARBITER_PREPARED_RUN_H
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

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

/* Sends a run's message with its PREPARED_RUN_FDS descriptors on a SEQPACKET socket; 0 when it went whole. */
static inline int send_run_message(int sock, const void* msg, size_t len, const int* fds) {
	char cbuf[CMSG_SPACE(PREPARED_RUN_FDS * sizeof(int))];
	memset(cbuf, 0, sizeof cbuf);
	struct iovec iov = {(void*)msg, len};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
	struct cmsghdr* c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(PREPARED_RUN_FDS * sizeof(int));
	memcpy(CMSG_DATA(c), fds, PREPARED_RUN_FDS * sizeof(int));
	return sendmsg(sock, &mh, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

#endif
