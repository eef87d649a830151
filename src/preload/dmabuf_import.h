/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* DMABUF import for the preload library: VIDIOC_QBUF and PREPARE_BUF of a
 * V4L2_MEMORY_DMABUF buffer on a uvcuse node. CUSE carries no fd, so the
 * app's dma-buf goes to the daemon over the buffer socket first
 * (UVCUSE_IMPORT_OFFSET, include/uvcuse/uvcuse.h), which maps it as that
 * buffer's memory; the QBUF then names it by m.fd as usual. A cache
 * remembers what the daemon was given (node fd, buffer, the app's fd
 * number and the dma-buf's identity), so a buffer queued again costs one
 * fstat; what the cache cannot know (another process's REQBUFS dropped
 * the daemon's copy) the daemon answers EINVAL, and the caller sends the
 * dma-buf again and retries once. No allocation, no blocking lock. */
#ifndef UVCUSE_PRELOAD_DMABUF_IMPORT_H
#define UVCUSE_PRELOAD_DMABUF_IMPORT_H

#include <stdbool.h>
#include <sys/stat.h>

#include "client/memfd_fetch.h"

/* request is QBUF or PREPARE_BUF in a layout this build serves, of a
 * DMABUF buffer: its index and m.fd. */
bool dmabuf_import_request(unsigned long request, const void *arg, unsigned *index,
			   int *app_fd);
/* Sets that request's m.fd. */
void dmabuf_import_set_fd(unsigned long request, void *arg, int app_fd);
enum dmabuf_import_verdict {
	DMABUF_IMPORT_KNOWN,    /* the cache says the daemon has it */
	DMABUF_IMPORT_SENT,     /* sent now, and the daemon took it */
	/* no open fd, or the daemon refused it (not a dma-buf, the buffer
	 * queued...): the QBUF must not name a dma-buf the daemon had
	 * before under that number */
	DMABUF_IMPORT_UNUSABLE,
	DMABUF_IMPORT_NOT_OURS, /* fd is no uvcuse node (*hello_err: why) */
};
/* Makes sure the daemon of node fd (node: its fstat) has the app's dma-buf
 * app_fd as buffer index: sends it unless the cache says it has it, or
 * always when again. errno kept. */
enum dmabuf_import_verdict dmabuf_import_ensure(uvcuse_ioctl_fn next_ioctl, int fd,
						const struct stat *node, unsigned index,
						int app_fd, bool again, int *hello_err);

#endif
