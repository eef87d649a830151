/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fds an SCM_RIGHTS message brought, taken from recvmsg's msghdr by
 * both ends of the buffer socket and the fast path's channel: each end
 * keeps as many as its message may carry and closes the rest, so that a
 * peer passing more can leak none into it. */
#ifndef UVCUSE_PASSED_FDS_H
#define UVCUSE_PASSED_FDS_H

#include <string.h>
#include <sys/socket.h>

/* The first `keep` fds m brought into out[0..keep) (-1 where none came);
 * every other one closed with close_fn (the preload library's close() is
 * interposed: it passes its raw one). Returns how many m brought. */
static inline unsigned uvcuse_take_passed_fds(struct msghdr *m, int *out, unsigned keep,
					      int (*close_fn)(int))
{
	unsigned n = 0;
	for (unsigned i = 0; i < keep; i++)
		out[i] = -1;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(m); cm; cm = CMSG_NXTHDR(m, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS ||
		    cm->cmsg_len < CMSG_LEN(0))
			continue;
		size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t j = 0; j < k; j++, n++) {
			int f;
			memcpy(&f, CMSG_DATA(cm) + j * sizeof(int), sizeof(int));
			if (n < keep)
				out[n] = f;
			else
				close_fn(f);
		}
	}
	return n;
}

#endif
