/*
 * Two runs wired to each other (an interactive problem: the output validator and the submission), each
 * in its own jail, slot and cgroups, started by two supervisors at once: each one's stdout is the
 * other's stdin, and the two pipes are all they share.
 *
 * The pipes are made by the "serve" side's supervisor (request field `wire_serve PATH`) and handed to
 * the "join" side's (`wire_join PATH`) over a unix socket at PATH (a root-only folder of the worker's),
 * with SCM_RIGHTS: each supervisor then holds exactly its run's two ends, and closes them once its run
 * has them, so a run sees end of file (or EPIPE) as soon as every process of the other has gone.
 * Either side may arrive first; a peer that has not come within WIRE_MS is an error of the request.
 *
 * The serve side is an interactive problem's output validator, and its supervisor keeps read ends of
 * both pipes as problemtools' runner (support/interactive/interactive.cc) does, so that no write ever
 * breaks for a reason other than the verdict: the validator's output keeps a reader until the next
 * request (a validator writing to a submission that has ended is not killed by SIGPIPE: submissions
 * that stop reading early may still be accepted), and the submission's output keeps one while the
 * validator runs and, when it accepted (42), until the next request (a submission writing as the
 * validator accepts is not killed by SIGPIPE either); after any other end of the validator it goes, so
 * a submission still writing then stops at once. These are read ends only: end of file still comes
 * as soon as every process of the other run has gone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "supervisor.h"

#define WIRE_MS 15000

/* the serve side's read ends of the validator's output (keep_out) and of the submission's (keep_in) */
static int keep_out = -1, keep_in = -1;

static int wire_addr(const char* path, struct sockaddr_un* a) {
	memset(a, 0, sizeof *a);
	a->sun_family = AF_UNIX;
	if (path[0] != '/' || strstr(path, "/..") || strlen(path) >= sizeof a->sun_path) return -1;
	snprintf(a->sun_path, sizeof a->sun_path, "%s", path);
	return 0;
}

/* serve: make both pipes, wait for the joiner, hand it its ends. */
static int serve(const char* path, int* in, int* out, char* why, size_t whylen) {
	struct sockaddr_un a;
	int to_peer[2] = {-1, -1}, from_peer[2] = {-1, -1}, ls = -1, c = -1, rc = -1;
	if (wire_addr(path, &a) != 0) {
		snprintf(why, whylen, "bad wire path");
		return -1;
	}
	if (pipe2(to_peer, O_CLOEXEC) != 0 || pipe2(from_peer, O_CLOEXEC) != 0) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		goto done;
	}
	ls = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	unlink(path);
	if (ls < 0 || bind(ls, (struct sockaddr*)&a, sizeof a) != 0 || listen(ls, 1) != 0) {
		snprintf(why, whylen, "wire socket: %s", strerror(errno));
		goto done;
	}
	struct pollfd pf = {.fd = ls, .events = POLLIN};
	if (poll(&pf, 1, WIRE_MS) != 1 || (c = accept4(ls, NULL, NULL, SOCK_CLOEXEC)) < 0) {
		snprintf(why, whylen, "the wired peer did not come within %d ms", WIRE_MS);
		goto done;
	}
	/* only another supervisor (root) may take the ends: the folder is root's alone, checked all the same */
	struct ucred cred;
	socklen_t cl = sizeof cred;
	if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &cl) != 0 || cred.uid != 0) {
		snprintf(why, whylen, "the wired peer is not root");
		goto done;
	}
	if (wire_hand_over(c, to_peer[0], from_peer[1]) != 0) {
		snprintf(why, whylen, "handing the pipes over: %s", strerror(errno));
		goto done;
	}
	wire_release();
	keep_out = fcntl(to_peer[0], F_DUPFD_CLOEXEC, 0);
	keep_in = fcntl(from_peer[0], F_DUPFD_CLOEXEC, 0);
	*in = from_peer[0];
	*out = to_peer[1];
	from_peer[0] = to_peer[1] = -1;
	rc = 0;
done:
	for (int i = 0; i < 2; i++) {
		if (to_peer[i] >= 0) close(to_peer[i]);
		if (from_peer[i] >= 0) close(from_peer[i]);
	}
	if (c >= 0) close(c);
	if (ls >= 0) {
		close(ls);
		unlink(path);
	}
	return rc;
}

/* join: connect (the server may not be listening yet: retried), receive this run's two ends. */
static int join(const char* path, int* in, int* out, char* why, size_t whylen) {
	struct sockaddr_un a;
	if (wire_addr(path, &a) != 0) {
		snprintf(why, whylen, "bad wire path");
		return -1;
	}
	int s = -1;
	uint64_t give_up = now_us() + WIRE_MS * 1000u;
	for (;;) {
		s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (s < 0) {
			snprintf(why, whylen, "wire socket: %s", strerror(errno));
			return -1;
		}
		if (connect(s, (struct sockaddr*)&a, sizeof a) == 0) break;
		int e = errno;
		close(s);
		if ((e != ENOENT && e != ECONNREFUSED) || now_us() > give_up) {
			snprintf(why, whylen, "the wired peer did not come within %d ms: %s", WIRE_MS, strerror(e));
			return -1;
		}
		usleep(1000);
	}
	int got[2] = {-1, -1};
	char cbuf[CMSG_SPACE(sizeof got)], byte;
	struct iovec iov = {&byte, 1};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
	struct pollfd pf = {.fd = s, .events = POLLIN};
	ssize_t n = poll(&pf, 1, WIRE_MS) == 1 ? recvmsg(s, &mh, MSG_CMSG_CLOEXEC) : -1;
	close(s);
	struct cmsghdr* cm = n == 1 ? CMSG_FIRSTHDR(&mh) : NULL;
	if (!cm || cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len != CMSG_LEN(sizeof got)) {
		snprintf(why, whylen, "the wired peer sent no pipes");
		return -1;
	}
	memcpy(got, CMSG_DATA(cm), sizeof got);
	*in = got[0];
	*out = got[1];
	return 0;
}

int wire_fds(const struct request* r, int* in, int* out, char* why, size_t whylen) {
	*in = *out = -1;
	return r->wire_role == 1 ? serve(r->wire, in, out, why, whylen) : join(r->wire, in, out, why, whylen);
}

void wire_ended(int accepted) {
	if (!accepted && keep_in >= 0) close(keep_in);
	if (!accepted) keep_in = -1;
}

void wire_release(void) {
	if (keep_out >= 0) close(keep_out);
	if (keep_in >= 0) close(keep_in);
	keep_out = keep_in = -1;
}

int wire_hand_over(int sock, int in, int out) {
	int give[2] = {in, out};
	char cbuf[CMSG_SPACE(sizeof give)];
	memset(cbuf, 0, sizeof cbuf);
	char byte = 'w';
	struct iovec iov = {&byte, 1};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
	struct cmsghdr* cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof give);
	memcpy(CMSG_DATA(cm), give, sizeof give);
	return sendmsg(sock, &mh, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

void wire_close(int* in, int* out) {
	if (*in >= 0) close(*in);
	if (*out >= 0) close(*out);
	*in = *out = -1;
}
