/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The preload library's fast path (protocol: include/uvcuse/uvcuse.h):
 * QBUF and DQBUF of a uvcuse node go over a channel to the daemon, one per
 * node fd and process, instead of two CUSE round trips each. CUSE stays the
 * control path and the fallback: whenever the channel cannot serve a call
 * (another thread is using it, the daemon refused it, it broke, a USERPTR
 * QBUF, UVCUSE_FASTPATH=0), the call goes through CUSE as before.
 *
 * Which channel belongs to which fd: a table indexed by fd (below
 * FASTPATH_FDS), each slot bound to the process that opened it (a forked
 * child opens its own) and to the node's identity at its opening; close(),
 * dup2(), dup3() and close_range() (and their syscall() forms) over a node
 * fd forget its channel, and over one of our sockets stop its channel from
 * using the number. A close the library cannot see (io_uring, glibc's own
 * closefrom) is not noticed: the channel would go on serving the file it
 * was opened for. No allocation and no blocking locks: a busy slot means
 * "use CUSE".
 *
 * A QBUF of an MMAP buffer the app got by DQBUF on the same fd is answered
 * here from what the daemon kept in the ring for it, while the daemon says
 * that answer holds, and posted in the ring for the daemon to run
 * (uvcuse.h): no system call. */
#ifndef UVCUSE_FASTPATH_H
#define UVCUSE_FASTPATH_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "client/memfd_fetch.h"
#include "uvcuse/uvcuse.h"

#define FASTPATH_FDS 1024

enum fastpath_verdict {
	FASTPATH_NOT_HANDLED, /* go through CUSE */
	FASTPATH_HANDLED,     /* *ret (and errno) is the ioctl's answer */
	FASTPATH_NOT_OURS,    /* fd is no uvcuse node (the HELLO was not understood) */
};

/* What the fast path asks of the preload library when fd has no live
 * channel yet: libc's ioctl, whether fd may be a uvcuse node (fstat and
 * the library's cache of verdicts), and the verdict "not ours" to cache. */
struct fastpath_probe {
	uvcuse_ioctl_fn next_ioctl;
	bool (*maybe_node)(int fd, struct stat *st);
	void (*not_ours)(int fd, const struct stat *st);
};

/* VIDIOC_QBUF or VIDIOC_DQBUF on fd, b in the layout its request numbers
 * (a 32-bit build: either time width; uvcuse/compat32.h). With a live
 * channel, an answer from the ring (a DQBUF taken, a QBUF posted) costs no
 * system call; a request over the channel costs an fstat (fd still the
 * node), its send and its receive. */
enum fastpath_verdict fastpath_ioctl(const struct fastpath_probe *probe, int fd,
				     unsigned long request, void *b, int *ret);
/* Whether request is a QBUF or a DQBUF the fast path takes (op: the
 * channel's), and b in that request's layout to the wire's and back: the
 * same struct in a 64-bit build (fastpath_wire.c). */
bool fastpath_wire_op(unsigned long request, uint32_t *op);
void fastpath_wire_from_app(unsigned long request, const void *app, uvcuse_wire_buffer *w);
void fastpath_wire_to_app(unsigned long request, const uvcuse_wire_buffer *w, void *app);
/* poll() sets larger than this go to the kernel. */
#define FASTPATH_POLL_MAX 64

/* The real poll, on a set the library built: ppoll's or poll's answer for
 * timeout_ns (-1: none). */
typedef int (*fastpath_wait_fn)(void *ctx, struct pollfd *fds, nfds_t nfds, int64_t timeout_ns);

/* poll() of a set holding node fds with a live ring, polled for POLLIN
 * alone (a CUSE poll is a round trip to the daemon, and a second one when
 * the kernel polls again after the daemon's notification):
 * - a node whose ring holds a frame is POLLIN with no system call (the
 *   other fds are polled without waiting, if any);
 * - a node the daemon says is quiet (pollable: streaming, no error, no
 *   frame) is waited for on the ring's doorbell, which the daemon writes
 *   when it publishes a frame or the node stops being quiet (with the
 *   channel's socket, whose end says the daemon went away);
 * - anything else is the kernel's. Returns poll's answer (revents set; -1
 *   and errno from wait), or -2: the caller polls the set through the
 *   kernel for the *timeout_ns (-1: none) left. */
int fastpath_poll(struct pollfd *fds, nfds_t nfds, int64_t *timeout_ns, fastpath_wait_fn wait,
		  void *ctx);
/* fd is about to be closed or replaced: its channel goes (and if fd is
 * one of our sockets, its channel stops using it). */
void fastpath_forget(int fd);
/* A V4L2 ioctl on fd that goes to the kernel (setup, controls): if fd has
 * a live channel, checks that fd is still its node (fstat), since the
 * ring's own answers trust the slot; a number reused behind the library's
 * back (io_uring, a raw system call) is caught here before a stream on it
 * can be answered from the old file's ring. */
void fastpath_check_fd(int fd);
/* A child of a raw fork (syscall(SYS_fork/clone)): forget the cached pid. */
void fastpath_forked(void);
/* Registers fastpath_forked with pthread_atfork (from the library's
 * constructor: never later, from a path a signal handler may take). */
void fastpath_init(void);
/* Whether the fast path is on (UVCUSE_FASTPATH unset or not "0"). */
bool fastpath_enabled(void);

/* --- for the unit suite ---------------------------------------------------- */

/* Takes the next DQBUF answer the daemon published in r into *b (whose
 * type and memory must be the entry's), by compare-and-swap: false when
 * there is none (or a revocation won). */
bool fastpath_ring_take(struct uvcuse_ring *r, uvcuse_wire_buffer *b);
/* Posts b's QBUF in r for the daemon to run: false when r is full. */
bool fastpath_ring_post(struct uvcuse_ring *r, const uvcuse_wire_buffer *b);
/* r holds an entry a DQBUF can take now. */
bool fastpath_ring_ready(const struct uvcuse_ring *r);
/* What QBUF of b answers, from what the daemon kept in r (the app's kept
 * flags added): false when r keeps nothing valid for it. */
bool fastpath_posted_answer(const struct uvcuse_ring *r, const uvcuse_wire_buffer *b,
			    uvcuse_wire_buffer *answer);


/* Makes fd's slot a live channel of this process on sock, with ring r (a
 * shared mapping of a struct uvcuse_ring) and doorbell bell, as if the
 * daemon had opened it; fastpath_forget(fd) ends it (r unmapped, sock and
 * bell closed). */
void fastpath_test_attach(int fd, struct uvcuse_ring *r, int sock, int bell);

enum chan_call_status {
	CHAN_ANSWERED = 0, /* *result holds the daemon's answer */
	CHAN_NOT_SENT = -1, /* nothing reached the daemon: CUSE may do it */
	CHAN_LOST = -2,     /* sent, but the answer never came or was garbage */
};

/* Sends op (QBUF/DQBUF) with seq and *b on sock and waits for the answer.
 * A signal interrupting the wait (EINTR) sends CANCEL and waits on: the
 * answer is then -EINTR, or the buffer if it was answered first. On
 * success *b is the answer's buffer and *memfd the fd it carried (-1: none;
 * extra fds are closed). */
enum chan_call_status chan_call(int sock, uint32_t seq, uint32_t op, uvcuse_wire_buffer *b,
				int *result, int *memfd);

#endif
