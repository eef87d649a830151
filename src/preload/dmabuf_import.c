/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* DMABUF import through the buffer socket (see dmabuf_import.h). */
#include "dmabuf_import.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "fastpath.h"
#include "uvcuse/compat32.h"
#include "uvcuse/uvcuse.h"

bool dmabuf_import_request(unsigned long request, const void *arg, unsigned *index,
			   int *app_fd)
{
#if UINTPTR_MAX == UINT64_MAX
	if (request != VIDIOC_QBUF && request != VIDIOC_PREPARE_BUF)
		return false;
#else
	if (request != COMPAT32_VIDIOC_QBUF && request != COMPAT32_VIDIOC_QBUF_TIME32 &&
	    request != COMPAT32_VIDIOC_PREPARE_BUF && request != COMPAT32_VIDIOC_PREPARE_BUF_TIME32)
		return false;
#endif
	uvcuse_wire_buffer w; /* the same fields in every layout (fastpath_wire.c) */
	fastpath_wire_from_app(request, arg, &w);
	if (w.memory != V4L2_MEMORY_DMABUF)
		return false;
	*index = w.index;
	*app_fd = w.m.fd;
	return true;
}

void dmabuf_import_set_fd(unsigned long request, void *arg, int app_fd)
{
	uvcuse_wire_buffer w;
	fastpath_wire_from_app(request, arg, &w);
	w.m.fd = app_fd;
	fastpath_wire_to_app(request, &w, arg);
}

/* What the daemon was given, by (node fd, buffer index): each entry a
 * seqlock as the library's other caches (odd while written; a reader that
 * sees a write treats it as a miss, a writer that races skips). */
#define IMPORT_SLOTS 512

struct import_slot {
	atomic_uint seq;
	_Atomic(int) fd, app_fd;
	_Atomic(unsigned) index;
	_Atomic(uint64_t) node_rdev, node_ino, buf_dev, buf_ino;
};
static struct import_slot slots[IMPORT_SLOTS];

struct import_key {
	int fd, app_fd;
	unsigned index;
	uint64_t node_rdev, node_ino, buf_dev, buf_ino;
};

static struct import_slot *slot_of(const struct import_key *k)
{
	uint32_t h = (uint32_t)k->fd * 0x9e3779b1u ^ k->index * 0x85ebca6bu;
	return &slots[(h ^ (h >> 15)) % IMPORT_SLOTS];
}

static bool cache_has(const struct import_key *k)
{
	struct import_slot *s = slot_of(k);
	unsigned seq = atomic_load_explicit(&s->seq, memory_order_acquire);
	if (!seq || (seq & 1))
		return false;
	bool hit = atomic_load_explicit(&s->fd, memory_order_relaxed) == k->fd &&
		   atomic_load_explicit(&s->app_fd, memory_order_relaxed) == k->app_fd &&
		   atomic_load_explicit(&s->index, memory_order_relaxed) == k->index &&
		   atomic_load_explicit(&s->node_rdev, memory_order_relaxed) == k->node_rdev &&
		   atomic_load_explicit(&s->node_ino, memory_order_relaxed) == k->node_ino &&
		   atomic_load_explicit(&s->buf_dev, memory_order_relaxed) == k->buf_dev &&
		   atomic_load_explicit(&s->buf_ino, memory_order_relaxed) == k->buf_ino;
	atomic_thread_fence(memory_order_acquire);
	return hit && atomic_load_explicit(&s->seq, memory_order_relaxed) == seq;
}

static void cache_put(const struct import_key *k)
{
	struct import_slot *s = slot_of(k);
	unsigned seq = atomic_load_explicit(&s->seq, memory_order_relaxed);
	if ((seq & 1) || !atomic_compare_exchange_strong(&s->seq, &seq, seq + 1))
		return;
	atomic_store_explicit(&s->fd, k->fd, memory_order_relaxed);
	atomic_store_explicit(&s->app_fd, k->app_fd, memory_order_relaxed);
	atomic_store_explicit(&s->index, k->index, memory_order_relaxed);
	atomic_store_explicit(&s->node_rdev, k->node_rdev, memory_order_relaxed);
	atomic_store_explicit(&s->node_ino, k->node_ino, memory_order_relaxed);
	atomic_store_explicit(&s->buf_dev, k->buf_dev, memory_order_relaxed);
	atomic_store_explicit(&s->buf_ino, k->buf_ino, memory_order_relaxed);
	atomic_store_explicit(&s->seq, seq + 2, memory_order_release);
}

enum dmabuf_import_verdict dmabuf_import_ensure(uvcuse_ioctl_fn next_ioctl, int fd,
						const struct stat *node, unsigned index,
						int app_fd, bool again, int *hello_err)
{
	struct stat buf;
	int saved = errno;
	bool open_fd = app_fd >= 0 && fstat(app_fd, &buf) == 0;
	errno = saved;
	/* not an open fd: the QBUF's EINVAL, as vb2's dma_buf_get answers */
	if (!open_fd || index >= VIDEO_MAX_FRAME)
		return DMABUF_IMPORT_UNUSABLE;
	struct import_key k = { .fd = fd, .app_fd = app_fd, .index = index,
				.node_rdev = (uint64_t)node->st_rdev,
				.node_ino = (uint64_t)node->st_ino,
				.buf_dev = (uint64_t)buf.st_dev, .buf_ino = (uint64_t)buf.st_ino };
	if (!again && cache_has(&k))
		return DMABUF_IMPORT_KNOWN;
	bool ours;
	int err = uvcuse_send_dmabuf(next_ioctl, fd, UVCUSE_IMPORT_OFFSET(index, app_fd), app_fd,
				     &ours);
	errno = saved;
	if (!ours) {
		*hello_err = -err;
		return DMABUF_IMPORT_NOT_OURS;
	}
	if (err)
		return DMABUF_IMPORT_UNUSABLE;
	cache_put(&k);
	return DMABUF_IMPORT_SENT;
}
