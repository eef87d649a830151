/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An app's dma-buf in the daemon (DMABUF import: VIDIOC_QBUF of
 * V4L2_MEMORY_DMABUF buffers, the fd passed over the buffer socket): proved
 * a dma-buf, its size read and its memory mapped for the frames the daemon
 * writes there, each write bracketed by DMA_BUF_IOCTL_SYNC as the dma-buf
 * rules ask of a CPU writer. */
#ifndef UVCUSE_SHARE_DMABUF_MAP_H
#define UVCUSE_SHARE_DMABUF_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dmabuf_map {
	uint8_t *mem;
	size_t size;
};

/* fd's memory mapped shared for reading and writing: 0, or -EINVAL (not a
 * dma-buf, an empty or unmappable one: its exporter has no mmap, or the fd
 * is read-only), as vb2 answers a dma-buf it cannot use. */
int dmabuf_map(int fd, struct dmabuf_map *out);
void dmabuf_unmap(struct dmabuf_map *m);
/* DMA_BUF_IOCTL_SYNC: the CPU starts (start) or ends writing fd's memory.
 * A start never waits: while a device still uses the dma-buf (its fences
 * pending) it is skipped, -EBUSY, and the frame written anyway (the app's
 * own buffer, its own race). 0 or -errno (logged at most a few times a
 * second). */
int dmabuf_sync_write(int fd, bool start);

#endif
