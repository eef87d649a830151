/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An app's dma-buf mapped by the daemon (see dmabuf_map.h). */
#include "share/dmabuf_map.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <linux/magic.h>

#include "core/log.h"

int dmabuf_map(int fd, struct dmabuf_map *out)
{
	struct statfs sfs;
	/* dma-bufs live on their own pseudo filesystem: a memfd, a file or a
	 * socket is no dma-buf however it is sized */
	if (fstatfs(fd, &sfs) < 0 || sfs.f_type != DMA_BUF_MAGIC)
		return -EINVAL;
	off_t size = lseek(fd, 0, SEEK_END); /* dma_buf_llseek: its size */
	if (size <= 0 || (uint64_t)size > SIZE_MAX)
		return -EINVAL;
	void *mem = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED)
		return -EINVAL;
	*out = (struct dmabuf_map){ .mem = mem, .size = (size_t)size };
	return 0;
}

void dmabuf_unmap(struct dmabuf_map *m)
{
	if (m->mem)
		munmap(m->mem, m->size);
	m->mem = NULL;
}

/* Whether fd's fences are all signalled (dma-buf poll: POLLOUT), so that
 * DMA_BUF_IOCTL_SYNC's start, which waits for them without a timeout,
 * returns at once: an app's dma-buf whose device never finishes must not
 * stall the daemon and every other app with it. */
static bool fences_done(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	int r;
	do
		r = poll(&p, 1, 0);
	while (r < 0 && errno == EINTR);
	return r == 1 && (p.revents & POLLOUT);
}

int dmabuf_sync_write(int fd, bool start)
{
	static struct log_limit limit, busy_limit;
	if (start && !fences_done(fd)) {
		if (log_allowed(&busy_limit, 1))
			log_warn("an imported dma-buf is still in use by its device: the frame is "
				 "written without waiting for it");
		return -EBUSY;
	}
	struct dma_buf_sync sync = {
		.flags = DMA_BUF_SYNC_WRITE | (start ? DMA_BUF_SYNC_START : DMA_BUF_SYNC_END),
	};
	int r;
	do
		r = ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync);
	while (r < 0 && (errno == EINTR || errno == EAGAIN));
	if (r < 0) {
		int err = errno;
		if (log_allowed(&limit, 5))
			log_warn("DMA_BUF_IOCTL_SYNC of an imported dma-buf: %s", strerror(err));
		return -err;
	}
	return 0;
}
