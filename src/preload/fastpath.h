/* The preload library's fast path (protocol: include/uvcuse/uvcuse.h):
 * QBUF and DQBUF of a uvcuse node go over a channel to the daemon, one per
 * node fd and process, instead of two CUSE round trips each. CUSE stays the
 * control path and the fallback: whenever the channel cannot serve a call
 * (another thread is using it, the daemon refused it, it broke, a USERPTR
 * QBUF, UVCUSE_FASTPATH=0), the call goes through CUSE as before.
 *
 * Which channel belongs to which fd: a table indexed by fd (below
 * FASTPATH_FDS), each slot bound to the process that opened it (a forked
 * child opens its own) and to the node's identity; close(), dup2(), dup3()
 * and close_range() over a node fd forget its channel, and the socket's own
 * identity is checked before each use (an app may have closed it). No
 * allocation and no blocking locks: a busy slot means "use CUSE". */
#ifndef UVCUSE_FASTPATH_H
#define UVCUSE_FASTPATH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "memfd_fetch.h"
#include "uvcuse/uvcuse.h"

#define FASTPATH_FDS 1024

enum fastpath_verdict {
	FASTPATH_NOT_HANDLED, /* go through CUSE */
	FASTPATH_HANDLED,     /* *ret (and errno) is the ioctl's answer */
	FASTPATH_NOT_OURS,    /* fd is no uvcuse node (the HELLO was not understood) */
};

/* VIDIOC_QBUF or VIDIOC_DQBUF on fd, a character device (st: its fstat). */
enum fastpath_verdict fastpath_ioctl(uvcuse_ioctl_fn next_ioctl, int fd, const struct stat *st,
				     unsigned long request, struct v4l2_buffer *b, int *ret);
/* fd is about to be closed or replaced: its channel goes. */
void fastpath_forget(int fd);
/* Whether the fast path is on (UVCUSE_FASTPATH unset or not "0"). */
bool fastpath_enabled(void);

/* --- one request on a channel, for the unit suite ------------------------ */

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
enum chan_call_status chan_call(int sock, uint32_t seq, uint32_t op, struct v4l2_buffer *b,
				int *result, int *memfd);

#endif
