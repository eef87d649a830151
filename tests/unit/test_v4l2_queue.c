/* SPDX-License-Identifier: GPL-2.0-or-later */
/* src/v4l2/queue.c: the buffer queue answers as videobuf2 6.1 (with the
 * vb2_ioctl_* owner rules) does for uvcvideo's capture queue, read()
 * emulation serves chunked reads, and every buffer allocated is released. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include "unit_run.h"
#include "v4l2/queue.h"

#define CAP V4L2_BUF_TYPE_VIDEO_CAPTURE
#define MMAP V4L2_MEMORY_MMAP
#define USERPTR V4L2_MEMORY_USERPTR
#define TS_FLAGS (V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC | V4L2_BUF_FLAG_TSTAMP_SRC_SOE)

/* malloc-backed memory that counts and can fail the Nth allocation. */
struct mem {
	unsigned allocs, releases;
	unsigned fail_at; /* 1-based allocation to fail, 0: never */
	/* DMABUF writes bracketed: starts, ends, and whether each buffer
	 * is between a start and its end */
	unsigned sync_starts, sync_ends;
	bool writing[VIDEO_MAX_FRAME];
};

static int mem_alloc(void *data, struct vq_buffer *b, size_t size)
{
	struct mem *m = data;
	if (m->fail_at && m->allocs + 1 == m->fail_at)
		return -ENOMEM;
	b->mem = malloc(size);
	if (!b->mem)
		return -ENOMEM;
	b->length = size;
	b->mem_priv = m;
	m->allocs++;
	return 0;
}

static void mem_release(void *data, struct vq_buffer *b)
{
	struct mem *m = data;
	free(b->mem);
	b->mem = NULL;
	m->releases++;
}

static void mem_sync(void *data, struct vq_buffer *b, bool start)
{
	struct mem *m = data;
	ck_assert_int_ne(m->writing[b->index], start); /* balanced */
	m->writing[b->index] = start;
	if (start)
		m->sync_starts++;
	else
		m->sync_ends++;
}

static const struct vq_mem_ops ops = { .alloc = mem_alloc, .release = mem_release,
				       .sync = mem_sync };

static struct vq q;
static struct mem mem;
static int file_a, file_b; /* owners */
#define A ((void *)&file_a)
#define B ((void *)&file_b)
#define SIZE 614400u /* 640x480 YUYV */

static void setup(void)
{
	memset(&mem, 0, sizeof(mem));
	vq_init(&q, &ops, &mem);
	vq_set_sizeimage(&q, SIZE);
}

/* Every buffer ever allocated was released. */
static void teardown(void)
{
	vq_destroy(&q);
	ck_assert_uint_eq(mem.allocs, mem.releases);
}

static int reqbufs(void *owner, uint32_t memory, uint32_t count)
{
	struct v4l2_requestbuffers rb = { .count = count, .type = CAP, .memory = memory };
	int err = vq_reqbufs(&q, owner, &rb);
	return err ? err : (int)rb.count;
}

static struct v4l2_buffer vbuf(unsigned index, uint32_t memory)
{
	struct v4l2_buffer b = { .index = index, .type = CAP, .memory = memory };
	return b;
}

static int qbuf(void *owner, unsigned index)
{
	struct v4l2_buffer b = vbuf(index, MMAP);
	return vq_qbuf(&q, owner, &b);
}

static struct v4l2_buffer querybuf(unsigned index)
{
	struct v4l2_buffer b = vbuf(index, 0);
	ck_assert_int_eq(vq_querybuf(&q, &b), 0);
	return b;
}

/* The camera delivers one frame of 'len' bytes, byte i = seed + i. */
static struct vq_buffer *frame(uint32_t len, uint8_t seed, uint32_t flags)
{
	struct vq_buffer *b = vq_next(&q);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(b->state, VQ_ACTIVE);
	for (uint32_t i = 0; i < len && i < b->length; i++)
		b->mem[i] = (uint8_t)(seed + i);
	struct timeval tv = { .tv_sec = 12, .tv_usec = 345 };
	vq_done(&q, b, len, flags, -1, &tv);
	return b;
}

/* MMAP buffers, all queued, streaming: the common starting point. */
static void stream_mmap(unsigned count)
{
	ck_assert_int_eq(reqbufs(A, MMAP, count), (int)count);
	for (unsigned i = 0; i < count; i++)
		ck_assert_int_eq(qbuf(A, i), 0);
	ck_assert_int_eq(vq_streamon(&q, A, CAP), 0);
}

/* --- REQBUFS --------------------------------------------------------------- */

START_TEST(reqbufs_fills_capabilities_and_clears)
{
	struct v4l2_requestbuffers rb = { .count = 4, .type = CAP, .memory = MMAP, .flags = 0xff };
	memset(rb.reserved, 0xaa, sizeof(rb.reserved));
	ck_assert_int_eq(vq_reqbufs(&q, A, &rb), 0);
	ck_assert_uint_eq(rb.count, 4);
	ck_assert_uint_eq(rb.capabilities, V4L2_BUF_CAP_SUPPORTS_ORPHANED_BUFS |
						   V4L2_BUF_CAP_SUPPORTS_MMAP |
						   V4L2_BUF_CAP_SUPPORTS_USERPTR);
	ck_assert_uint_eq(rb.flags, 0);
	for (unsigned i = 0; i < sizeof(rb.reserved); i++)
		ck_assert_uint_eq(rb.reserved[i], 0);
	ck_assert_ptr_eq(q.owner, A);
	ck_assert_uint_eq(q.memory, MMAP);
	ck_assert_uint_eq(mem.allocs, 4);
	ck_assert(q.waiting_for_buffers);
}
END_TEST

/* Invalid requests, in vb2's order: a type the node lacks fails before
 * anything is filled (check_fmt); a bad memory after capabilities. */
static const struct {
	uint32_t type, memory;
	int err;
	bool caps;
} bad_reqbufs[] = {
	{ V4L2_BUF_TYPE_VIDEO_OUTPUT, MMAP, -EINVAL, false },
	{ V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE, MMAP, -EINVAL, false },
	{ V4L2_BUF_TYPE_META_CAPTURE, MMAP, -EINVAL, false },
	{ CAP, V4L2_MEMORY_DMABUF, -EINVAL, true },
	{ CAP, V4L2_MEMORY_OVERLAY, -EINVAL, true },
	{ CAP, 0, -EINVAL, true },
	{ CAP, VQ_MEMORY_READ, -EINVAL, true },
};

START_TEST(reqbufs_rejects)
{
	struct v4l2_requestbuffers rb = { .count = 2, .type = bad_reqbufs[_i].type,
					  .memory = bad_reqbufs[_i].memory };
	ck_assert_int_eq(vq_reqbufs(&q, A, &rb), bad_reqbufs[_i].err);
	ck_assert_uint_eq(rb.capabilities != 0, bad_reqbufs[_i].caps);
	ck_assert_uint_eq(q.n_buffers, 0);
	ck_assert_ptr_null(q.owner);
	ck_assert_uint_eq(mem.allocs, 0);
}
END_TEST

START_TEST(reqbufs_count_clamped)
{
	ck_assert_int_eq(reqbufs(A, MMAP, 1), 1);
	ck_assert_int_eq(reqbufs(A, MMAP, 33), VIDEO_MAX_FRAME);
	ck_assert_int_eq(reqbufs(A, MMAP, 1000), VIDEO_MAX_FRAME);
	ck_assert_uint_eq(mem.releases, 1 + VIDEO_MAX_FRAME);
}
END_TEST

START_TEST(reqbufs_zero_frees_and_drops_owner)
{
	ck_assert_int_eq(reqbufs(A, MMAP, 3), 3);
	ck_assert_int_eq(reqbufs(B, MMAP, 0), -EBUSY); /* not B's */
	ck_assert_int_eq(reqbufs(A, MMAP, 0), 0);
	ck_assert_uint_eq(q.n_buffers, 0);
	ck_assert_uint_eq(q.memory, 0);
	ck_assert_ptr_null(q.owner);
	ck_assert_uint_eq(mem.releases, 3);
	ck_assert_int_eq(reqbufs(B, MMAP, 2), 2); /* now anyone may */
	ck_assert_ptr_eq(q.owner, B);
	/* REQBUFS(0) without buffers is fine and leaves nobody owner */
	ck_assert_int_eq(reqbufs(B, MMAP, 0), 0);
	ck_assert_int_eq(reqbufs(A, MMAP, 0), 0);
}
END_TEST

/* vb2 6.1 frees buffers on any re-REQBUFS, mapped or not (orphaned). */
START_TEST(reqbufs_again_and_memory_change_free)
{
	ck_assert_int_eq(reqbufs(A, MMAP, 4), 4);
	q.buffers[0].map_count = 1; /* the app still maps one */
	ck_assert_int_eq(qbuf(A, 1), 0);
	ck_assert_int_eq(reqbufs(A, MMAP, 2), 2);
	ck_assert_uint_eq(mem.releases, 4);
	ck_assert_int_eq(querybuf(0).flags & V4L2_BUF_FLAG_MAPPED, 0);
	ck_assert_int_eq(querybuf(1).flags & V4L2_BUF_FLAG_QUEUED, 0);
	ck_assert_uint_eq(q.n_queued, 0);
	ck_assert_int_eq(reqbufs(A, USERPTR, 3), 3);
	ck_assert_uint_eq(q.memory, USERPTR);
	ck_assert_uint_eq(mem.releases, 6);
}
END_TEST

START_TEST(reqbufs_while_streaming_busy)
{
	stream_mmap(2);
	ck_assert_int_eq(reqbufs(A, MMAP, 4), -EBUSY);
	ck_assert_int_eq(reqbufs(A, MMAP, 0), -EBUSY);
	ck_assert_uint_eq(q.n_buffers, 2);
	ck_assert_int_eq(vq_streamoff(&q, A, CAP), 0);
	ck_assert_int_eq(reqbufs(A, MMAP, 0), 0);
}
END_TEST

START_TEST(reqbufs_allocation_failures)
{
	mem.fail_at = 3; /* vb2 keeps what it got */
	ck_assert_int_eq(reqbufs(A, MMAP, 5), 2);
	ck_assert_uint_eq(q.n_buffers, 2);
	ck_assert_int_eq(reqbufs(A, MMAP, 0), 0);
	mem.fail_at = mem.allocs + 1;
	ck_assert_int_eq(reqbufs(A, MMAP, 5), -ENOMEM);
	ck_assert_uint_eq(q.memory, 0);
	ck_assert_uint_eq(q.n_buffers, 0);
	mem.fail_at = 0;
	vq_set_sizeimage(&q, 0); /* queue_setup may not answer size 0 */
	ck_assert_int_eq(reqbufs(A, MMAP, 2), -EINVAL);
}
END_TEST

/* --- CREATE_BUFS ------------------------------------------------------------- */

static int create_bufs(void *owner, uint32_t memory, uint32_t count, uint32_t size,
		       struct v4l2_create_buffers *out)
{
	struct v4l2_create_buffers cb = { .count = count, .memory = memory };
	cb.format.type = CAP;
	cb.format.fmt.pix.sizeimage = size;
	memset(cb.reserved, 0x55, sizeof(cb.reserved));
	cb.flags = 7;
	int err = vq_create_bufs(&q, owner, &cb, size);
	if (out)
		*out = cb;
	return err ? err : (int)cb.count;
}

START_TEST(create_bufs_count_zero_validates)
{
	struct v4l2_create_buffers cb;
	ck_assert_int_eq(create_bufs(A, MMAP, 0, SIZE, &cb), 0);
	ck_assert_uint_eq(cb.index, 0);
	ck_assert_uint_eq(cb.capabilities, V4L2_BUF_CAP_SUPPORTS_ORPHANED_BUFS |
						   V4L2_BUF_CAP_SUPPORTS_MMAP |
						   V4L2_BUF_CAP_SUPPORTS_USERPTR);
	ck_assert_uint_eq(cb.flags, 0);
	for (unsigned i = 0; i < 6; i++)
		ck_assert_uint_eq(cb.reserved[i], 0);
	ck_assert_uint_eq(cb.format.fmt.pix.priv, V4L2_PIX_FMT_PRIV_MAGIC);
	ck_assert_ptr_null(q.owner); /* only a check */
	ck_assert_int_eq(create_bufs(A, V4L2_MEMORY_DMABUF, 0, SIZE, NULL), -EINVAL);
	ck_assert_int_eq(create_bufs(A, MMAP, 0, 0, NULL), 0); /* sizes unchecked */
	ck_assert_int_eq(reqbufs(A, MMAP, 3), 3);
	ck_assert_int_eq(create_bufs(B, MMAP, 0, SIZE, &cb), 0); /* no owner check */
	ck_assert_uint_eq(cb.index, 3);
	ck_assert_uint_eq(mem.allocs, 3);
}
END_TEST

START_TEST(create_bufs_adds)
{
	struct v4l2_create_buffers cb;
	ck_assert_int_eq(create_bufs(A, MMAP, 2, SIZE, &cb), 2);
	ck_assert_uint_eq(cb.index, 0);
	ck_assert_ptr_eq(q.owner, A);
	ck_assert(q.waiting_for_buffers);
	ck_assert_int_eq(create_bufs(A, MMAP, 3, 2 * SIZE, &cb), 3);
	ck_assert_uint_eq(cb.index, 2);
	ck_assert_uint_eq(q.n_buffers, 5);
	ck_assert_uint_eq(querybuf(1).length, SIZE);
	ck_assert_uint_eq(querybuf(4).length, 2 * SIZE);
	/* other owner, memory mismatch, size too small or zero */
	ck_assert_int_eq(create_bufs(B, MMAP, 1, SIZE, NULL), -EBUSY);
	ck_assert_int_eq(create_bufs(A, USERPTR, 1, SIZE, NULL), -EINVAL);
	ck_assert_int_eq(create_bufs(A, MMAP, 1, SIZE - 1, NULL), -EINVAL);
	ck_assert_int_eq(create_bufs(A, MMAP, 1, 0, NULL), -EINVAL);
	ck_assert_int_eq(create_bufs(A, V4L2_MEMORY_DMABUF, 1, SIZE, NULL), -EINVAL);
	/* clamped to what is left, then full */
	ck_assert_int_eq(create_bufs(A, MMAP, 100, SIZE, &cb), VIDEO_MAX_FRAME - 5);
	ck_assert_int_eq(create_bufs(A, MMAP, 1, SIZE, NULL), -ENOBUFS);
	ck_assert_int_eq(create_bufs(A, MMAP, 0, SIZE, &cb), 0);
	ck_assert_uint_eq(cb.index, VIDEO_MAX_FRAME);
}
END_TEST

START_TEST(create_bufs_while_streaming)
{
	stream_mmap(2);
	ck_assert_int_eq(create_bufs(A, MMAP, 2, SIZE, NULL), 2);
	ck_assert_uint_eq(querybuf(3).flags, TS_FLAGS);
	ck_assert_int_eq(qbuf(A, 3), 0);
}
END_TEST

START_TEST(create_bufs_failures_restore)
{
	mem.fail_at = 1;
	ck_assert_int_eq(create_bufs(A, USERPTR, 2, SIZE, NULL), -ENOMEM);
	ck_assert_uint_eq(q.memory, 0);
	ck_assert_ptr_null(q.owner);
	mem.fail_at = 0;
	ck_assert_int_eq(create_bufs(A, MMAP, 2, SIZE, NULL), 2); /* MMAP now fine */
	struct v4l2_create_buffers cb = { .count = 1, .memory = MMAP };
	cb.format.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
	ck_assert_int_eq(vq_create_bufs(&q, A, &cb, SIZE), -EINVAL);
}
END_TEST

/* --- QUERYBUF ------------------------------------------------------------------ */

START_TEST(querybuf_mmap)
{
	ck_assert_int_eq(reqbufs(A, MMAP, 3), 3);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t step = (SIZE + page - 1) / page * page;
	for (unsigned i = 0; i < 3; i++) {
		struct v4l2_buffer b = vbuf(i, 0);
		b.reserved2 = 9;
		b.request_fd = 9;
		ck_assert_int_eq(vq_querybuf(&q, &b), 0);
		ck_assert_uint_eq(b.index, i);
		ck_assert_uint_eq(b.type, CAP);
		ck_assert_uint_eq(b.memory, MMAP);
		ck_assert_uint_eq(b.flags, TS_FLAGS);
		ck_assert_uint_eq(b.field, V4L2_FIELD_NONE);
		ck_assert_uint_eq(b.length, SIZE);
		ck_assert_uint_eq(b.bytesused, 0);
		ck_assert_uint_eq(b.m.offset, i * step); /* vb2 6.1 __setup_offsets */
		ck_assert_uint_eq(b.m.offset % page, 0);
		ck_assert_uint_eq(b.reserved2, 0);
		ck_assert_uint_eq(b.reserved, 0);
	}
	/* no owner check, range and type checks */
	struct v4l2_buffer b = vbuf(3, 0);
	ck_assert_int_eq(vq_querybuf(&q, &b), -EINVAL);
	b = vbuf(0, 0);
	b.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
	ck_assert_int_eq(vq_querybuf(&q, &b), -EINVAL);
	q.buffers[2].map_count = 2;
	ck_assert_uint_eq(querybuf(2).flags, TS_FLAGS | V4L2_BUF_FLAG_MAPPED);
}
END_TEST

/* VIDIOC_EXPBUF's checks in vb2's order, and the buffer it names. */
START_TEST(expbuf_checks)
{
	struct v4l2_exportbuffer e = { .type = CAP, .index = 1, .flags = O_CLOEXEC | O_RDWR };
	uint32_t offset = 7;
	ck_assert_int_eq(vq_expbuf(&q, A, &e, &offset), -EINVAL); /* no MMAP buffers */
	ck_assert_int_eq(reqbufs(A, MMAP, 2), 2);
	ck_assert_int_eq(vq_expbuf(&q, B, &e, &offset), -EBUSY); /* not B's queue */
	ck_assert_int_eq(vq_expbuf(&q, A, &e, &offset), 0);
	ck_assert_uint_eq(offset, querybuf(1).m.offset);
	struct v4l2_exportbuffer bad = e;
	bad.flags |= O_NONBLOCK;
	ck_assert_int_eq(vq_expbuf(&q, A, &bad, &offset), -EINVAL);
	bad = e, bad.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
	ck_assert_int_eq(vq_expbuf(&q, A, &bad, &offset), -EINVAL);
	bad = e, bad.index = 2;
	ck_assert_int_eq(vq_expbuf(&q, A, &bad, &offset), -EINVAL);
	bad = e, bad.plane = 1;
	ck_assert_int_eq(vq_expbuf(&q, A, &bad, &offset), -EINVAL);
	ck_assert_int_eq(reqbufs(A, USERPTR, 2), 2);
	ck_assert_int_eq(vq_expbuf(&q, A, &e, &offset), -EINVAL); /* not MMAP */
}
END_TEST

START_TEST(mmap_find)
{
	struct vq_buffer *b = NULL;
	ck_assert_int_eq(vq_mmap_find(&q, 0, 4096, &b), -EINVAL); /* no buffers */
	ck_assert_int_eq(reqbufs(A, MMAP, 3), 3);
	for (unsigned i = 0; i < 3; i++) {
		struct v4l2_buffer v = querybuf(i);
		ck_assert_int_eq(vq_mmap_find(&q, v.m.offset, v.length, &b), 0);
		ck_assert_ptr_eq(b, &q.buffers[i]);
		ck_assert_int_eq(vq_mmap_find(&q, v.m.offset + 4096, v.length, &b), -EINVAL);
	}
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t aligned = (SIZE + page - 1) / page * page;
	ck_assert_int_eq(vq_mmap_find(&q, 0, aligned, &b), 0);
	ck_assert_int_eq(vq_mmap_find(&q, 0, aligned + 1, &b), -EINVAL);
	ck_assert_int_eq(reqbufs(A, USERPTR, 1), 1);
	ck_assert_int_eq(vq_mmap_find(&q, 0, 4096, &b), -EINVAL);
}
END_TEST

/* --- QBUF / PREPARE_BUF ------------------------------------------------------- */

START_TEST(qbuf_checks)
{
	ck_assert_int_eq(reqbufs(A, MMAP, 2), 2);
	struct v4l2_buffer b = vbuf(0, MMAP);
	b.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
	ck_assert_int_eq(vq_qbuf(&q, A, &b), -EINVAL);
	b = vbuf(2, MMAP);
	ck_assert_int_eq(vq_qbuf(&q, A, &b), -EINVAL);
	b = vbuf(0, USERPTR);
	ck_assert_int_eq(vq_qbuf(&q, A, &b), -EINVAL);
	b = vbuf(0, MMAP);
	ck_assert_int_eq(vq_qbuf(&q, B, &b), -EBUSY);
	b.flags = V4L2_BUF_FLAG_REQUEST_FD;
	ck_assert_int_eq(vq_qbuf(&q, A, &b), -EBADR);
	b = vbuf(0, MMAP);
	ck_assert_int_eq(vq_qbuf(&q, A, &b), 0);
	ck_assert_uint_eq(b.flags, TS_FLAGS | V4L2_BUF_FLAG_QUEUED);
	ck_assert_uint_eq(b.length, SIZE);
	ck_assert_uint_eq(b.field, V4L2_FIELD_NONE);
	b = vbuf(0, MMAP);
	ck_assert_int_eq(vq_qbuf(&q, A, &b), -EINVAL); /* already queued */
	b.flags = V4L2_BUF_FLAG_REQUEST_FD; /* not dequeued comes first */
	ck_assert_int_eq(vq_qbuf(&q, A, &b), -EINVAL);
	ck_assert_uint_eq(querybuf(0).flags, TS_FLAGS | V4L2_BUF_FLAG_QUEUED);
	ck_assert(!q.waiting_for_buffers);
	vq_set_error(&q);
	ck_assert_int_eq(qbuf(A, 1), -EIO);
	ck_assert_int_eq(vq_streamoff(&q, A, CAP), 0); /* clears the error */
	ck_assert_int_eq(qbuf(A, 1), 0);
}
END_TEST

/* vb2 keeps flags it does not own, drops state/timestamp/output ones. */
START_TEST(qbuf_app_flags)
{
	stream_mmap(1);
	ck_assert_int_eq(vq_streamoff(&q, A, CAP), 0);
	ck_assert_int_eq(vq_streamon(&q, A, CAP), 0);
	struct v4l2_buffer b = vbuf(0, MMAP);
	b.flags = 0x80000000u | V4L2_BUF_FLAG_KEYFRAME | V4L2_BUF_FLAG_DONE |
		  V4L2_BUF_FLAG_ERROR | V4L2_BUF_FLAG_TIMESTAMP_COPY |
		  V4L2_BUF_FLAG_TSTAMP_SRC_EOF | V4L2_BUF_FLAG_LAST |
		  V4L2_BUF_FLAG_NO_CACHE_CLEAN | V4L2_BUF_FLAG_MAPPED;
	ck_assert_int_eq(vq_qbuf(&q, A, &b), 0);
	ck_assert_uint_eq(b.flags, 0x80000000u | TS_FLAGS | V4L2_BUF_FLAG_QUEUED);
	frame(100, 0, V4L2_BUF_FLAG_KEYFRAME);
	b = vbuf(0, MMAP);
	ck_assert_int_eq(vq_dqbuf(&q, A, &b, NULL), 0);
	ck_assert_uint_eq(b.flags, 0x80000000u | TS_FLAGS | V4L2_BUF_FLAG_KEYFRAME);
}
END_TEST

START_TEST(prepare_buf)
{
	ck_assert_int_eq(reqbufs(A, MMAP, 2), 2);
	struct v4l2_buffer b = vbuf(0, MMAP);
	ck_assert_int_eq(vq_prepare_buf(&q, B, &b), -EBUSY);
	b.flags = V4L2_BUF_FLAG_REQUEST_FD;
	ck_assert_int_eq(vq_prepare_buf(&q, A, &b), -EINVAL);
	b = vbuf(0, MMAP);
	ck_assert_int_eq(vq_prepare_buf(&q, A, &b), 0);
	ck_assert_uint_eq(b.flags, TS_FLAGS | V4L2_BUF_FLAG_PREPARED);
	ck_assert_uint_eq(querybuf(0).flags, TS_FLAGS | V4L2_BUF_FLAG_PREPARED);
	b = vbuf(0, MMAP);
	ck_assert_int_eq(vq_prepare_buf(&q, A, &b), -EINVAL); /* already prepared */
	ck_assert_int_eq(qbuf(A, 0), 0);
	ck_assert_uint_eq(querybuf(0).flags, TS_FLAGS | V4L2_BUF_FLAG_QUEUED);
	b = vbuf(0, MMAP);
	ck_assert_int_eq(vq_prepare_buf(&q, A, &b), -EINVAL); /* queued */
	/* STREAMOFF without STREAMON returns queued and prepared buffers */
	b = vbuf(1, MMAP);
	ck_assert_int_eq(vq_prepare_buf(&q, A, &b), 0);
	ck_assert_int_eq(vq_streamoff(&q, A, CAP), 0);
	ck_assert_uint_eq(querybuf(0).flags, TS_FLAGS);
	ck_assert_uint_eq(querybuf(1).flags, TS_FLAGS);
	vq_set_error(&q);
	b = vbuf(1, MMAP);
	ck_assert_int_eq(vq_prepare_buf(&q, A, &b), -EIO);
}
END_TEST

/* --- USERPTR ------------------------------------------------------------------- */

START_TEST(userptr)
{
	ck_assert_int_eq(reqbufs(A, USERPTR, 2), 2);
	ck_assert_uint_eq(mem.allocs, 2); /* staging areas */
	struct v4l2_buffer b = querybuf(0);
	ck_assert_uint_eq(b.memory, USERPTR);
	ck_assert_uint_eq(b.length, SIZE);
	ck_assert_uint_eq(b.m.userptr, 0);

	b = vbuf(0, USERPTR);
	b.m.userptr = 0x10000;
	b.length = SIZE - 1;
	ck_assert_int_eq(vq_qbuf(&q, A, &b), -EINVAL); /* too small */
	b.m.userptr = 0;
	b.length = SIZE;
	ck_assert_int_eq(vq_qbuf(&q, A, &b), -EFAULT);
	b = vbuf(0, MMAP);
	ck_assert_int_eq(vq_qbuf(&q, A, &b), -EINVAL);
	b = vbuf(0, USERPTR);
	b.m.userptr = 0x10000;
	b.length = SIZE + 8192;
	ck_assert_int_eq(vq_qbuf(&q, A, &b), 0);
	ck_assert_uint_eq(b.m.userptr, 0x10000);
	ck_assert_uint_eq(b.length, SIZE + 8192);
	b = querybuf(0);
	ck_assert_uint_eq(b.m.userptr, 0x10000);
	ck_assert_uint_eq(b.length, SIZE + 8192);

	ck_assert_int_eq(vq_streamon(&q, A, CAP), 0);
	struct vq_buffer *fb = frame(SIZE, 3, 0);
	b = vbuf(0, USERPTR);
	struct vq_buffer *got = NULL;
	ck_assert_int_eq(vq_dqbuf(&q, A, &b, &got), 0);
	ck_assert_ptr_eq(got, fb);
	ck_assert_uint_eq(b.m.userptr, 0x10000);
	ck_assert_uint_eq(b.bytesused, SIZE);
	ck_assert_uint_eq(got->mem[5], 8);
	/* the same pointer again, and another one */
	b = vbuf(0, USERPTR);
	b.m.userptr = 0x10000;
	b.length = SIZE + 8192;
	ck_assert_int_eq(vq_qbuf(&q, A, &b), 0);
	b = vbuf(1, USERPTR);
	b.m.userptr = 0x90000;
	b.length = SIZE;
	ck_assert_int_eq(vq_qbuf(&q, A, &b), 0);
	ck_assert_uint_eq(querybuf(1).m.userptr, 0x90000);
}
END_TEST

/* --- DMABUF ---------------------------------------------------------------- */

#define DMABUF V4L2_MEMORY_DMABUF

/* The transport maps the app's dma-buf 'fd' of 'size' bytes for buffer
 * index (malloc here, counted as an allocation the release must free). */
static int attach(void *owner, unsigned index, int fd, size_t size)
{
	struct vq_dmabuf d = { .mem = malloc(size), .length = size, .priv = &mem };
	ck_assert_ptr_nonnull(d.mem);
	int err = vq_attach_dmabuf(&q, owner, index, fd, &d);
	if (err)
		free(d.mem);
	else
		mem.allocs++;
	return err;
}

static int qbuf_dmabuf(unsigned index, int fd, uint32_t length)
{
	struct v4l2_buffer b = vbuf(index, DMABUF);
	b.m.fd = fd;
	b.length = length;
	return vq_qbuf(&q, A, &b);
}

START_TEST(dmabuf_offered_only_where_said)
{
	ck_assert_int_eq(reqbufs(A, DMABUF, 2), -EINVAL);
	vq_offer_dmabuf(&q);
	struct v4l2_requestbuffers rb = { .count = 2, .type = CAP, .memory = DMABUF };
	ck_assert_int_eq(vq_reqbufs(&q, A, &rb), 0);
	ck_assert_uint_eq(rb.capabilities, V4L2_BUF_CAP_SUPPORTS_ORPHANED_BUFS |
						   V4L2_BUF_CAP_SUPPORTS_MMAP |
						   V4L2_BUF_CAP_SUPPORTS_USERPTR |
						   V4L2_BUF_CAP_SUPPORTS_DMABUF);
	ck_assert_uint_eq(mem.allocs, 0); /* the memory is the app's */
	struct v4l2_buffer p;
	ck_assert_int_eq(vq_qbuf_preview(&q, 0, &p), -EINVAL); /* never queued */
	struct v4l2_buffer b = querybuf(1);
	ck_assert_uint_eq(b.memory, DMABUF);
	ck_assert_uint_eq(b.length, SIZE);
	ck_assert_int_eq(b.m.fd, 0);
	struct v4l2_exportbuffer e = { .type = CAP, .index = 0 };
	uint32_t offset;
	ck_assert_int_eq(vq_expbuf(&q, A, &e, &offset), -EINVAL); /* not MMAP */
	struct vq_buffer *found;
	ck_assert_int_eq(vq_mmap_find(&q, 0, SIZE, &found), -EINVAL);
}
END_TEST

/* __prepare_dmabuf's answers, in its order. */
START_TEST(dmabuf_qbuf_checks)
{
	vq_offer_dmabuf(&q);
	ck_assert_int_eq(reqbufs(A, DMABUF, 2), 2);
	ck_assert_int_eq(qbuf_dmabuf(0, 7, 0), -EINVAL); /* nothing attached */
	ck_assert_int_eq(attach(B, 0, 7, SIZE + 4096), -EBUSY);
	ck_assert_int_eq(attach(A, 2, 7, SIZE), -EINVAL);
	ck_assert_int_eq(attach(A, 0, -1, SIZE), -EINVAL);
	ck_assert_int_eq(attach(A, 0, 7, SIZE + 4096), 0);
	ck_assert_int_eq(qbuf_dmabuf(0, 8, 0), -EINVAL); /* another fd */
	ck_assert_int_eq(qbuf_dmabuf(0, 7, SIZE - 1), -EINVAL);
	ck_assert_int_eq(qbuf_dmabuf(0, 7, SIZE + 8192), -EFAULT);
	struct v4l2_buffer b = vbuf(0, MMAP);
	b.m.fd = 7;
	ck_assert_int_eq(vq_qbuf(&q, A, &b), -EINVAL); /* memory */
	ck_assert_int_eq(qbuf_dmabuf(0, 7, 0), 0);     /* the whole dma-buf */
	b = querybuf(0);
	ck_assert_int_eq(b.m.fd, 7);
	ck_assert_uint_eq(b.length, SIZE + 4096);
	ck_assert_uint_eq(b.flags & V4L2_BUF_FLAG_QUEUED, V4L2_BUF_FLAG_QUEUED);
	/* a queued buffer's memory may be in use: not replaced */
	ck_assert_int_eq(attach(A, 0, 9, SIZE), -EBUSY);
	ck_assert_int_eq(qbuf_dmabuf(0, 7, 0), -EINVAL); /* queued already */
	/* an exact length; a buffer attached twice keeps the second */
	ck_assert_int_eq(attach(A, 1, 3, SIZE), 0);
	ck_assert_int_eq(attach(A, 1, 4, SIZE), 0);
	ck_assert_uint_eq(mem.releases, 1);
	ck_assert_int_eq(qbuf_dmabuf(1, 3, SIZE), -EINVAL);
	ck_assert_int_eq(qbuf_dmabuf(1, 4, SIZE), 0);
	ck_assert_uint_eq(querybuf(1).length, SIZE);
}
END_TEST

/* Frames land in the attached memory, each write bracketed by the sync
 * hook, also when STREAMOFF or a requeue interrupts it; REQBUFS releases
 * the dma-bufs. */
START_TEST(dmabuf_stream)
{
	vq_offer_dmabuf(&q);
	ck_assert_int_eq(reqbufs(A, DMABUF, 2), 2);
	ck_assert_int_eq(attach(A, 0, 5, SIZE), 0);
	ck_assert_int_eq(attach(A, 1, 6, SIZE + 100), 0);
	ck_assert_int_eq(qbuf_dmabuf(0, 5, SIZE), 0);
	ck_assert_int_eq(qbuf_dmabuf(1, 6, 0), 0);
	ck_assert_int_eq(vq_streamon(&q, A, CAP), 0);
	struct vq_buffer *fb = frame(SIZE + 50, 1, 0); /* beyond the 1st: cut */
	ck_assert_uint_eq(mem.sync_starts, 1);
	ck_assert_uint_eq(mem.sync_ends, 1);
	struct v4l2_buffer b = vbuf(0, DMABUF);
	struct vq_buffer *got = NULL;
	ck_assert_int_eq(vq_dqbuf(&q, A, &b, &got), 0);
	ck_assert_ptr_eq(got, fb);
	ck_assert_int_eq(b.m.fd, 5);
	ck_assert_uint_eq(b.bytesused, SIZE);
	ck_assert_uint_eq(b.flags & V4L2_BUF_FLAG_ERROR, V4L2_BUF_FLAG_ERROR);
	ck_assert_uint_eq(got->mem[9], 10);
	/* buffer 1 holds its whole length */
	fb = frame(SIZE + 50, 2, 0);
	b = vbuf(1, DMABUF);
	ck_assert_int_eq(vq_dqbuf(&q, A, &b, NULL), 0);
	ck_assert_uint_eq(b.bytesused, SIZE + 50);
	ck_assert_uint_eq(b.flags & V4L2_BUF_FLAG_ERROR, 0);
	/* a dequeued buffer queued again as it was: what QBUF will answer */
	b = vbuf(0, 0);
	ck_assert_int_eq(vq_qbuf_preview(&q, 0, &b), 0);
	ck_assert_uint_eq(b.memory, DMABUF);
	ck_assert_int_eq(b.m.fd, 5);
	ck_assert_uint_eq(b.length, SIZE);
	ck_assert_uint_eq(b.flags & V4L2_BUF_FLAG_QUEUED, V4L2_BUF_FLAG_QUEUED);
	ck_assert_int_eq(qbuf_dmabuf(0, 5, SIZE), 0);
	ck_assert_int_eq(qbuf_dmabuf(1, 6, 0), 0);
	struct vq_buffer *active = vq_next(&q);
	vq_requeue(&q, active);
	ck_assert(!mem.writing[active->index]);
	active = vq_next(&q);
	ck_assert(mem.writing[active->index]);
	ck_assert_int_eq(vq_streamoff(&q, A, CAP), 0);
	ck_assert(!mem.writing[active->index]);
	ck_assert_uint_eq(mem.sync_starts, mem.sync_ends);
	ck_assert_int_eq(reqbufs(A, DMABUF, 0), 0);
	ck_assert_uint_eq(mem.releases, 2);
}
END_TEST

/* --- DQBUF / STREAMON / STREAMOFF ---------------------------------------------- */

START_TEST(dqbuf_states)
{
	ck_assert_int_eq(reqbufs(A, MMAP, 3), 3);
	struct v4l2_buffer b = vbuf(0, MMAP);
	ck_assert_int_eq(vq_dqbuf(&q, A, &b, NULL), -EINVAL); /* not streaming */
	ck_assert_int_eq(qbuf(A, 0), 0);
	ck_assert_int_eq(qbuf(A, 1), 0);
	ck_assert_int_eq(qbuf(A, 2), 0);
	ck_assert_int_eq(vq_streamon(&q, A, CAP), 0);
	ck_assert_int_eq(vq_dqbuf(&q, A, &b, NULL), -EAGAIN);
	ck_assert_int_eq(vq_dqbuf(&q, B, &b, NULL), -EBUSY);
	b.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
	ck_assert_int_eq(vq_dqbuf(&q, A, &b, NULL), -EINVAL);

	frame(1000, 0, 0);
	frame(2000, 0, V4L2_BUF_FLAG_ERROR);
	ck_assert(vq_has_done(&q));
	ck_assert_uint_eq(querybuf(0).flags, TS_FLAGS | V4L2_BUF_FLAG_DONE);
	ck_assert_uint_eq(querybuf(1).flags,
			  TS_FLAGS | V4L2_BUF_FLAG_DONE | V4L2_BUF_FLAG_ERROR);
	ck_assert_uint_eq(querybuf(2).flags, TS_FLAGS | V4L2_BUF_FLAG_QUEUED);

	b = vbuf(0, MMAP);
	ck_assert_int_eq(vq_dqbuf(&q, A, &b, NULL), 0);
	ck_assert_uint_eq(b.index, 0);
	ck_assert_uint_eq(b.bytesused, 1000);
	ck_assert_uint_eq(b.flags, TS_FLAGS);
	ck_assert_uint_eq(b.sequence, 0);
	ck_assert_uint_eq(b.field, V4L2_FIELD_NONE);
	ck_assert_int_eq(b.timestamp.tv_sec, 12);
	ck_assert_int_eq(b.timestamp.tv_usec, 345);
	ck_assert_uint_eq(b.length, SIZE);
	ck_assert_uint_eq(b.m.offset, querybuf(0).m.offset);
	b = vbuf(0, MMAP);
	ck_assert_int_eq(vq_dqbuf(&q, A, &b, NULL), 0);
	ck_assert_uint_eq(b.index, 1);
	ck_assert_uint_eq(b.flags, TS_FLAGS | V4L2_BUF_FLAG_ERROR);
	ck_assert_uint_eq(b.sequence, 1);
	ck_assert_uint_eq(querybuf(1).flags, TS_FLAGS); /* ERROR only in DQBUF */
	ck_assert_uint_eq(querybuf(1).bytesused, 2000);
	ck_assert_int_eq(vq_dqbuf(&q, A, &b, NULL), -EAGAIN);
	/* requeued: bytesused and sequence are reset */
	ck_assert_int_eq(qbuf(A, 0), 0);
	ck_assert_uint_eq(querybuf(0).bytesused, 0);
	ck_assert_uint_eq(querybuf(0).sequence, 0);
}
END_TEST

/* The fast path publishes DQBUF answers before the app asks: a peek at the
 * i-th done buffer is exactly what the i-th DQBUF then answers, and
 * changes nothing. */
START_TEST(dqbuf_peek_is_the_answer)
{
	struct v4l2_buffer p = vbuf(0, MMAP);
	ck_assert_int_eq(reqbufs(A, MMAP, 4), 4);
	ck_assert_int_eq(vq_dqbuf_peek(&q, A, 0, &p), -EINVAL); /* not streaming */
	for (unsigned i = 0; i < 4; i++)
		ck_assert_int_eq(qbuf(A, i), 0);
	ck_assert_int_eq(vq_streamon(&q, A, CAP), 0);
	ck_assert_int_eq(vq_dqbuf_peek(&q, A, 0, &p), -EAGAIN);
	frame(1000, 0, 0);
	frame(2000, 0, V4L2_BUF_FLAG_ERROR);
	frame(3000, 0, 0);
	ck_assert_int_eq(vq_dqbuf_peek(&q, B, 0, &p), -EBUSY);
	ck_assert_int_eq(vq_dqbuf_peek(&q, A, 3, &p), -EAGAIN);
	struct v4l2_buffer peeked[3];
	for (unsigned i = 0; i < 3; i++)
		ck_assert_int_eq(vq_dqbuf_peek(&q, A, i, &peeked[i]), 0);
	ck_assert_uint_eq(querybuf(0).flags, TS_FLAGS | V4L2_BUF_FLAG_DONE); /* unchanged */
	for (unsigned i = 0; i < 3; i++) {
		struct v4l2_buffer b = vbuf(0, MMAP);
		ck_assert_int_eq(vq_dqbuf(&q, A, &b, NULL), 0);
		ck_assert_mem_eq(&b, &peeked[i], sizeof(b));
		/* the next one is now at 0 */
		if (i < 2) {
			ck_assert_int_eq(vq_dqbuf_peek(&q, A, 0, &p), 0);
			ck_assert_mem_eq(&p, &peeked[i + 1], sizeof(p));
		}
	}
	vq_set_error(&q);
	ck_assert_int_eq(vq_dqbuf_peek(&q, A, 0, &p), -EIO);
}
END_TEST

/* The QBUF answer kept for a held buffer (the fast path answers posted
 * QBUFs from it) is what QBUF answers, whatever flags the app passes (apps
 * pass DQBUF's answer back). */
START_TEST(qbuf_preview_is_the_answer)
{
	stream_mmap(3);
	q.buffers[1].map_count = 1;
	frame(100, 0, V4L2_BUF_FLAG_KEYFRAME);
	frame(200, 0, V4L2_BUF_FLAG_ERROR);
	const uint32_t in_flags[] = { 0, 0x10000000, V4L2_BUF_FLAG_NO_CACHE_CLEAN | 0x01000000 };
	for (unsigned i = 0; i < 2; i++) {
		struct v4l2_buffer b = vbuf(0, MMAP);
		ck_assert_int_eq(vq_dqbuf(&q, A, &b, NULL), 0);
		struct v4l2_buffer preview;
		ck_assert_int_eq(vq_qbuf_preview(&q, b.index, &preview), 0);
		for (unsigned k = 0; k < 3; k++) {
			struct v4l2_buffer in = b; /* DQBUF's answer, as apps pass it back */
			in.flags |= in_flags[k];
			ck_assert_int_eq(vq_qbuf(&q, A, &in), 0);
			struct v4l2_buffer want = preview;
			want.flags |= (b.flags | in_flags[k]) & vq_qbuf_kept_flags();
			ck_assert_mem_eq(&in, &want, sizeof(in));
			/* back to the app for the next round: STREAMOFF would
			 * return all; take it off the queue's tail instead */
			ck_assert_int_eq(q.queued[q.n_queued - 1], b.index);
			q.n_queued--;
			q.buffers[b.index].state = VQ_DEQUEUED;
		}
		ck_assert_uint_eq(preview.flags & V4L2_BUF_FLAG_MAPPED, i == 1 ? V4L2_BUF_FLAG_MAPPED : 0);
		ck_assert_uint_eq(preview.bytesused, 0);
	}
	struct v4l2_buffer p;
	ck_assert_int_eq(vq_qbuf_preview(&q, 3, &p), -EINVAL);
	vq_destroy(&q);
	ck_assert_int_eq(reqbufs(A, USERPTR, 2), 2);
	ck_assert_int_eq(vq_qbuf_preview(&q, 0, &p), -EINVAL);
}
END_TEST

START_TEST(dqbuf_error_before_done)
{
	stream_mmap(2);
	frame(10, 0, 0);
	vq_set_error(&q);
	struct v4l2_buffer b = vbuf(0, MMAP);
	ck_assert_int_eq(vq_dqbuf(&q, A, &b, NULL), -EIO);
	ck_assert_ptr_null(vq_next(&q));
	ck_assert_uint_eq(vq_poll(&q, A), POLLERR);
	ck_assert_int_eq(vq_streamoff(&q, A, CAP), 0);
	ck_assert(!q.error);
	ck_assert_int_eq(vq_dqbuf(&q, A, &b, NULL), -EINVAL);
}
END_TEST

START_TEST(streamon_streamoff)
{
	ck_assert_int_eq(vq_streamon(&q, A, CAP), -EINVAL); /* no buffers */
	ck_assert_int_eq(vq_streamoff(&q, A, CAP), 0);      /* always fine */
	ck_assert_int_eq(reqbufs(A, MMAP, 2), 2);
	ck_assert_int_eq(vq_streamon(&q, B, CAP), -EBUSY);
	ck_assert_int_eq(vq_streamon(&q, A, V4L2_BUF_TYPE_VIDEO_OUTPUT), -EINVAL);
	ck_assert_int_eq(vq_streamon(&q, A, CAP), 0); /* streaming before QBUF */
	ck_assert(q.streaming);
	ck_assert_int_eq(vq_streamon(&q, A, CAP), 0); /* again: 0 */
	ck_assert_int_eq(qbuf(A, 0), 0);
	ck_assert_int_eq(qbuf(A, 1), 0);
	frame(10, 0, 0);
	frame(10, 0, 0);
	ck_assert_int_eq(vq_streamoff(&q, B, CAP), -EBUSY);
	ck_assert_int_eq(vq_streamoff(&q, A, V4L2_BUF_TYPE_VIDEO_OUTPUT), -EINVAL);
	ck_assert(q.streaming);
	ck_assert_int_eq(vq_streamoff(&q, A, CAP), 0);
	ck_assert(!q.streaming);
	ck_assert(q.waiting_for_buffers);
	ck_assert(!vq_has_done(&q));
	ck_assert_uint_eq(querybuf(0).flags, TS_FLAGS); /* done ones are gone */
	ck_assert_int_eq(qbuf(A, 0), 0);
	ck_assert_int_eq(vq_streamon(&q, A, CAP), 0);
	frame(10, 0, 0);
	struct v4l2_buffer b = vbuf(0, MMAP);
	ck_assert_int_eq(vq_dqbuf(&q, A, &b, NULL), 0);
	ck_assert_uint_eq(b.sequence, 0); /* counter restarted */
}
END_TEST

START_TEST(poll_states)
{
	ck_assert_uint_eq(vq_poll(&q, A), POLLERR); /* idle */
	ck_assert_int_eq(reqbufs(A, MMAP, 2), 2);
	ck_assert_uint_eq(vq_poll(&q, A), POLLERR);
	ck_assert_int_eq(vq_streamon(&q, A, CAP), 0);
	ck_assert_uint_eq(vq_poll(&q, A), POLLERR); /* waiting_for_buffers */
	ck_assert_int_eq(qbuf(A, 0), 0);
	ck_assert_uint_eq(vq_poll(&q, A), 0);
	frame(10, 0, 0);
	ck_assert_uint_eq(vq_poll(&q, A), POLLIN | POLLRDNORM);
	ck_assert_uint_eq(vq_poll(&q, B), POLLIN | POLLRDNORM); /* vb2: no owner */
	vq_set_error(&q);
	ck_assert_uint_eq(vq_poll(&q, A), POLLERR);
	ck_assert_int_eq(vq_streamoff(&q, A, CAP), 0);
	ck_assert_uint_eq(vq_poll(&q, A), POLLERR);
}
END_TEST

/* --- owner ------------------------------------------------------------------------- */

START_TEST(owner_rules)
{
	ck_assert(!vq_is_busy(&q, A));
	ck_assert_int_eq(vq_claim(&q, A), 0);
	ck_assert(vq_is_busy(&q, B));
	ck_assert_int_eq(vq_claim(&q, B), -EBUSY);
	ck_assert_int_eq(reqbufs(B, MMAP, 2), -EBUSY);
	ck_assert_int_eq(reqbufs(A, MMAP, 2), 2);
	vq_release(&q, B); /* not the owner: nothing happens */
	ck_assert_uint_eq(q.n_buffers, 2);
	ck_assert_int_eq(qbuf(A, 0), 0);
	ck_assert_int_eq(vq_streamon(&q, A, CAP), 0);
	struct vq_buffer *active = vq_next(&q);
	ck_assert_ptr_nonnull(active);
	vq_release(&q, A); /* vb2_fop_release: stop and free */
	ck_assert(!q.streaming);
	ck_assert_uint_eq(q.n_buffers, 0);
	ck_assert_ptr_null(q.owner);
	ck_assert_uint_eq(mem.releases, 2);
	ck_assert_int_eq(reqbufs(B, MMAP, 1), 1);
}
END_TEST

/* --- driver side ------------------------------------------------------------------ */

START_TEST(driver_side)
{
	ck_assert_ptr_null(vq_next(&q));
	ck_assert_int_eq(reqbufs(A, MMAP, 3), 3);
	ck_assert_int_eq(qbuf(A, 2), 0);
	ck_assert_int_eq(qbuf(A, 0), 0);
	ck_assert_ptr_null(vq_next(&q)); /* not streaming */
	ck_assert_int_eq(vq_streamon(&q, A, CAP), 0);
	struct vq_buffer *b = vq_next(&q);
	ck_assert_uint_eq(b->index, 2); /* QBUF order */
	ck_assert_uint_eq(querybuf(2).flags, TS_FLAGS | V4L2_BUF_FLAG_QUEUED);
	vq_requeue(&q, b); /* back to the head */
	b = vq_next(&q);
	ck_assert_uint_eq(b->index, 2);
	vq_done(&q, b, SIZE + 100, 0, 41, NULL); /* overflow */
	ck_assert_uint_eq(b->bytesused, SIZE);
	ck_assert_uint_eq(b->sequence, 41);
	vq_done(&q, b, 5, 0, -1, NULL); /* not ACTIVE any more: ignored */
	vq_requeue(&q, b);
	ck_assert_uint_eq(q.n_done, 1);
	ck_assert_uint_eq(q.n_queued, 1);
	b = vq_next(&q);
	ck_assert_uint_eq(b->index, 0);
	vq_done(&q, b, 7, 0, -1, NULL); /* counter continues after 41 */
	ck_assert_uint_eq(b->sequence, 42);
	ck_assert_ptr_null(vq_next(&q));
	struct v4l2_buffer v = vbuf(0, MMAP);
	ck_assert_int_eq(vq_dqbuf(&q, A, &v, NULL), 0);
	ck_assert_uint_eq(v.index, 2);
	ck_assert_uint_eq(v.flags, TS_FLAGS | V4L2_BUF_FLAG_ERROR);
	/* STREAMOFF takes an ACTIVE buffer back; a late vq_done is ignored */
	ck_assert_int_eq(qbuf(A, 2), 0);
	b = vq_next(&q);
	ck_assert_int_eq(vq_streamoff(&q, A, CAP), 0);
	vq_done(&q, b, 5, 0, -1, NULL);
	ck_assert_uint_eq(q.n_done, 0);
	ck_assert_uint_eq(b->state, VQ_DEQUEUED);
}
END_TEST

/* --- read() emulation ------------------------------------------------------------- */

START_TEST(read_start)
{
	vq_set_sizeimage(&q, 0);
	ck_assert_int_eq(vq_read_start(&q, A, 0), -EINVAL);
	vq_set_sizeimage(&q, SIZE);
	ck_assert_int_eq(vq_read_start(&q, A, 0), 0);
	ck_assert_uint_eq(q.n_buffers, VQ_READ_COUNT_DEFAULT);
	ck_assert_uint_eq(q.memory, VQ_MEMORY_READ);
	ck_assert_ptr_eq(q.owner, A);
	ck_assert(q.streaming);
	ck_assert_uint_eq(q.n_queued, VQ_READ_COUNT_DEFAULT);
	ck_assert_uint_eq(vq_poll(&q, A), 0);
	ck_assert_int_eq(vq_read_start(&q, A, 5), 0); /* already running */
	ck_assert_int_eq(vq_read_start(&q, B, 0), -EBUSY);
	const uint8_t *p;
	size_t len;
	ck_assert_int_eq(vq_read_peek(&q, B, &p, &len, NULL), -EBUSY);
	ck_assert_int_eq(vq_read_peek(&q, A, &p, &len, NULL), -EAGAIN);

	/* the streaming API is busy while file I/O runs, even for the owner */
	ck_assert_int_eq(reqbufs(A, MMAP, 2), -EBUSY);
	ck_assert_int_eq(reqbufs(A, MMAP, 0), -EBUSY);
	ck_assert_int_eq(create_bufs(A, MMAP, 0, SIZE, NULL), 0);
	ck_assert_int_eq(create_bufs(A, MMAP, 1, SIZE, NULL), -EBUSY);
	ck_assert_int_eq(qbuf(A, 0), -EBUSY);
	struct v4l2_buffer b = vbuf(0, MMAP);
	ck_assert_int_eq(vq_prepare_buf(&q, A, &b), -EBUSY);
	ck_assert_int_eq(vq_dqbuf(&q, A, &b, NULL), -EBUSY);
	ck_assert_int_eq(vq_streamon(&q, A, CAP), -EBUSY);
	ck_assert_int_eq(vq_streamoff(&q, A, CAP), -EBUSY);
	struct vq_buffer *vb;
	ck_assert_int_eq(vq_mmap_find(&q, 0, 4096, &vb), -EBUSY);
	b = querybuf(1);
	ck_assert_uint_eq(b.memory, MMAP);
	ck_assert_uint_eq(b.flags, TS_FLAGS | V4L2_BUF_FLAG_QUEUED);

	vq_release(&q, A);
	ck_assert_uint_eq(q.n_buffers, 0);
	ck_assert_int_eq(vq_read_peek(&q, A, &p, &len, NULL), -EINVAL); /* not running */
	ck_assert_int_eq(reqbufs(B, MMAP, 1), 1);
	ck_assert_int_eq(vq_read_start(&q, B, 0), -EBUSY); /* streaming API in use */
	ck_assert_int_eq(vq_read_start(&q, A, 0), -EBUSY);
}
END_TEST

/* The daemon's loop for one read() of 'size' bytes served in CUSE chunks
 * of at most 'chunk': the first chunk may take a new frame, later ones
 * only continue the frame, and the call ends with a short chunk. */
static size_t do_read(size_t size, size_t chunk, uint8_t *out)
{
	size_t total = 0;
	bool more = false;
	for (bool first = true; total < size; first = false) {
		size_t want = size - total < chunk ? size - total : chunk;
		if (!first && !more)
			break; /* answer 0: the frame ended with the previous chunk */
		const uint8_t *p;
		size_t len;
		struct vq_buffer *b;
		int err = vq_read_peek(&q, A, &p, &len, &b);
		if (err) {
			ck_assert(first);
			return total;
		}
		size_t n = len < want ? len : want;
		memcpy(out + total, p, n);
		total += n;
		more = vq_read_consume(&q, b, n);
		if (n < want)
			break; /* short chunk ends the read() */
	}
	return total;
}

static void check_bytes(const uint8_t *p, size_t n, uint8_t seed, size_t from)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (uint8_t)(seed + from + i))
			ck_abort_msg("byte %zu: %u", i, p[i]);
}

START_TEST(read_chunked_frames)
{
	const size_t chunk = 128 * 1024;
	uint8_t *out = malloc(SIZE);
	ck_assert_int_eq(vq_read_start(&q, A, 2), 0);
	/* a frame bigger than a chunk, read with a big read() */
	frame(300 * 1024, 1, 0);
	frame(256 * 1024, 2, 0);
	ck_assert_uint_eq(vq_poll(&q, A), POLLIN | POLLRDNORM);
	ck_assert_uint_eq(do_read(SIZE, chunk, out), 300 * 1024);
	check_bytes(out, 300 * 1024, 1, 0);
	ck_assert_uint_eq(q.n_queued, 1); /* requeued once read */
	/* exactly two chunks: the third chunk gets nothing */
	ck_assert_uint_eq(do_read(SIZE, chunk, out), 256 * 1024);
	check_bytes(out, 256 * 1024, 2, 0);
	ck_assert_uint_eq(q.n_queued, 2);
	ck_assert_uint_eq(do_read(SIZE, chunk, out), 0); /* -EAGAIN: none done */
	ck_assert_uint_eq(vq_poll(&q, A), 0);
	free(out);
}
END_TEST

/* A read() smaller than the frame: vb2 keeps the rest for the next read()
 * calls, and a read() never goes on into the next frame. */
START_TEST(read_smaller_than_frame)
{
	uint8_t out[4096];
	ck_assert_int_eq(vq_read_start(&q, A, 3), 0);
	frame(1000, 7, 0);
	frame(500, 9, 0);
	ck_assert_uint_eq(do_read(300, 128 * 1024, out), 300);
	check_bytes(out, 300, 7, 0);
	ck_assert_uint_eq(do_read(300, 128 * 1024, out), 300);
	check_bytes(out, 300, 7, 300);
	ck_assert_uint_eq(do_read(4096, 128 * 1024, out), 400); /* rest only */
	check_bytes(out, 400, 7, 600);
	/* small chunks too: 100-byte chunks across the 500-byte frame */
	ck_assert_uint_eq(do_read(4096, 100, out), 500);
	check_bytes(out, 500, 9, 0);
	ck_assert_uint_eq(q.n_queued, 3);
}
END_TEST

START_TEST(read_empty_frame_and_error)
{
	ck_assert_int_eq(vq_read_start(&q, A, 1), 0);
	frame(0, 0, 0);
	const uint8_t *p;
	size_t len;
	struct vq_buffer *b;
	ck_assert_int_eq(vq_read_peek(&q, A, &p, &len, &b), 0);
	ck_assert_uint_eq(len, 0); /* vb2 returns 0 for it */
	ck_assert(!vq_read_consume(&q, b, 0));
	ck_assert_uint_eq(q.n_queued, 1);
	/* peeking twice gives the same, consuming a stale buffer does nothing */
	frame(50, 0, 0);
	ck_assert_int_eq(vq_read_peek(&q, A, &p, &len, &b), 0);
	ck_assert_int_eq(vq_read_peek(&q, A, &p, &len, NULL), 0);
	ck_assert_uint_eq(len, 50);
	ck_assert(vq_read_consume(&q, b, 20));
	ck_assert(!vq_read_consume(&q, NULL, 5));
	/* error: the frame being read finishes, then -EIO */
	vq_set_error(&q);
	ck_assert_int_eq(vq_read_peek(&q, A, &p, &len, &b), 0);
	ck_assert_uint_eq(len, 30);
	ck_assert(!vq_read_consume(&q, b, 100));
	ck_assert_int_eq(vq_read_peek(&q, A, &p, &len, &b), -EIO);
	ck_assert_uint_eq(vq_poll(&q, A), POLLERR);
	vq_release(&q, A);
	ck_assert_uint_eq(q.memory, 0);
}
END_TEST

/* A metadata node's queue (vq_set_type META_CAPTURE): every ioctl must
 * name that type, VIDEO_CAPTURE is -EINVAL; buffers stream as usual. */
START_TEST(meta_capture_type)
{
	const uint32_t META = V4L2_BUF_TYPE_META_CAPTURE;
	vq_set_type(&q, META);
	vq_set_sizeimage(&q, 10240);
	ck_assert_int_eq(reqbufs(A, MMAP, 2), -EINVAL); /* names VIDEO_CAPTURE */
	struct v4l2_requestbuffers rb = { .count = 2, .type = META, .memory = MMAP };
	ck_assert_int_eq(vq_reqbufs(&q, A, &rb), 0);
	ck_assert_uint_eq(rb.count, 2);
	struct v4l2_buffer b = { .index = 0, .type = META, .memory = MMAP };
	ck_assert_int_eq(vq_querybuf(&q, &b), 0);
	ck_assert_uint_eq(b.length, 10240);
	ck_assert_int_eq(qbuf(A, 0), -EINVAL); /* VIDEO_CAPTURE */
	ck_assert_int_eq(vq_qbuf(&q, A, &b), 0);
	ck_assert_int_eq(vq_streamon(&q, A, V4L2_BUF_TYPE_VIDEO_CAPTURE), -EINVAL);
	ck_assert_int_eq(vq_streamon(&q, A, (int)META), 0);
	struct vq_buffer *vb = vq_next(&q);
	ck_assert_ptr_nonnull(vb);
	struct timeval tv = { 1, 2 };
	vq_done(&q, vb, 24, 0, 7, &tv);
	struct v4l2_buffer d = { .type = META, .memory = MMAP };
	ck_assert_int_eq(vq_dqbuf(&q, A, &d, NULL), 0);
	ck_assert_uint_eq(d.type, META);
	ck_assert_uint_eq(d.bytesused, 24);
	ck_assert_uint_eq(d.sequence, 7);
	ck_assert_int_eq(vq_streamoff(&q, A, (int)META), 0);
}
END_TEST

static Suite *queue_suite(void)
{
	Suite *s = suite_create("v4l2-queue");
	TCase *tc = tcase_create("reqbufs");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, reqbufs_fills_capabilities_and_clears);
	tcase_add_test(tc, meta_capture_type);
	tcase_add_loop_test(tc, reqbufs_rejects, 0,
			    (int)(sizeof(bad_reqbufs) / sizeof(bad_reqbufs[0])));
	tcase_add_test(tc, reqbufs_count_clamped);
	tcase_add_test(tc, reqbufs_zero_frees_and_drops_owner);
	tcase_add_test(tc, reqbufs_again_and_memory_change_free);
	tcase_add_test(tc, reqbufs_while_streaming_busy);
	tcase_add_test(tc, reqbufs_allocation_failures);
	tcase_add_test(tc, create_bufs_count_zero_validates);
	tcase_add_test(tc, create_bufs_adds);
	tcase_add_test(tc, create_bufs_while_streaming);
	tcase_add_test(tc, create_bufs_failures_restore);
	suite_add_tcase(s, tc);

	tc = tcase_create("buffers");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, querybuf_mmap);
	tcase_add_test(tc, expbuf_checks);
	tcase_add_test(tc, mmap_find);
	tcase_add_test(tc, qbuf_checks);
	tcase_add_test(tc, qbuf_app_flags);
	tcase_add_test(tc, prepare_buf);
	tcase_add_test(tc, userptr);
	tcase_add_test(tc, dmabuf_offered_only_where_said);
	tcase_add_test(tc, dmabuf_qbuf_checks);
	tcase_add_test(tc, dmabuf_stream);
	tcase_add_test(tc, dqbuf_states);
	tcase_add_test(tc, dqbuf_peek_is_the_answer);
	tcase_add_test(tc, qbuf_preview_is_the_answer);
	tcase_add_test(tc, dqbuf_error_before_done);
	tcase_add_test(tc, streamon_streamoff);
	tcase_add_test(tc, poll_states);
	tcase_add_test(tc, owner_rules);
	tcase_add_test(tc, driver_side);
	suite_add_tcase(s, tc);

	tc = tcase_create("read");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, read_start);
	tcase_add_test(tc, read_chunked_frames);
	tcase_add_test(tc, read_smaller_than_frame);
	tcase_add_test(tc, read_empty_frame_and_error);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(queue_suite());
}
