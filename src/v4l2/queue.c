/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The capture buffer queue: videobuf2 6.1 semantics (see queue.h). */
#include "v4l2/queue.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>


/* Flags vb2 sets itself (V4L2_BUFFER_MASK_FLAGS): never taken from the app. */
#define STATE_FLAGS                                                                  \
	(V4L2_BUF_FLAG_MAPPED | V4L2_BUF_FLAG_QUEUED | V4L2_BUF_FLAG_DONE |          \
	 V4L2_BUF_FLAG_ERROR | V4L2_BUF_FLAG_PREPARED | V4L2_BUF_FLAG_IN_REQUEST |   \
	 V4L2_BUF_FLAG_REQUEST_FD | V4L2_BUF_FLAG_TIMESTAMP_MASK)
/* What vb2_fill_vb2_v4l2_buffer drops from a capture QBUF's flags besides:
 * timestamp source (the queue's), output-only flags, LAST, and the cache
 * hints (set_buffer_cache_hints: the queue allows none). */
#define APP_DROPPED                                                                  \
	(STATE_FLAGS | V4L2_BUF_FLAG_TSTAMP_SRC_MASK | V4L2_BUF_FLAG_PFRAME |        \
	 V4L2_BUF_FLAG_BFRAME | V4L2_BUF_FLAG_KEYFRAME | V4L2_BUF_FLAG_TIMECODE |    \
	 V4L2_BUF_FLAG_M2M_HOLD_CAPTURE_BUF | V4L2_BUF_FLAG_LAST |                   \
	 V4L2_BUF_FLAG_NO_CACHE_INVALIDATE | V4L2_BUF_FLAG_NO_CACHE_CLEAN)
/* uvcvideo's queue timestamp_flags */
/* The daemon stamps a frame when its first payload arrives (start of
 * exposure, as near as the host knows it), as uvcvideo does. */
#define TIMESTAMP_FLAGS (V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC | V4L2_BUF_FLAG_TSTAMP_SRC_SOE)

/* --- small helpers ------------------------------------------------------- */

static void fifo_push(unsigned *fifo, unsigned *n, unsigned index)
{
	fifo[(*n)++] = index;
}

static void fifo_push_head(unsigned *fifo, unsigned *n, unsigned index)
{
	memmove(fifo + 1, fifo, *n * sizeof(*fifo));
	fifo[0] = index;
	(*n)++;
}

static unsigned fifo_pop(unsigned *fifo, unsigned *n)
{
	unsigned index = fifo[0];
	(*n)--;
	memmove(fifo, fifo + 1, *n * sizeof(*fifo));
	return index;
}

static size_t page_align(const struct vq *q, size_t size)
{
	return (size + q->page_size - 1) / q->page_size * q->page_size;
}

static bool fileio_active(const struct vq *q)
{
	return q->memory == VQ_MEMORY_READ;
}

/* vb2_verify_memory_type: the type was checked before (v4l2-ioctl's
 * check_fmt); -EBUSY last so CREATE_BUFS(0) can ignore it. */
static int verify_memory(const struct vq *q, uint32_t memory)
{
	if (memory != V4L2_MEMORY_MMAP && memory != V4L2_MEMORY_USERPTR &&
	    !(memory == V4L2_MEMORY_DMABUF && q->dmabuf))
		return -EINVAL;
	return fileio_active(q) ? -EBUSY : 0;
}

/* vb2's fill_buf_caps for io_modes MMAP | USERPTR (| DMABUF). */
static uint32_t buf_caps(const struct vq *q)
{
	return V4L2_BUF_CAP_SUPPORTS_ORPHANED_BUFS | V4L2_BUF_CAP_SUPPORTS_MMAP |
	       V4L2_BUF_CAP_SUPPORTS_USERPTR | (q->dmabuf ? V4L2_BUF_CAP_SUPPORTS_DMABUF : 0);
}

/* The driver starts (start) or stops writing b: an imported dma-buf's
 * memory hears of it (the sync hook). */
static void sync_write(struct vq *q, struct vq_buffer *b, bool start)
{
	if (q->memory == V4L2_MEMORY_DMABUF && q->mem_ops->sync)
		q->mem_ops->sync(q->mem_data, b, start);
}

/* __vb2_queue_cancel: every buffer back to the app, lists emptied, not
 * streaming, error cleared, PREPARED forgotten. */
static void queue_cancel(struct vq *q)
{
	q->streaming = false;
	q->error = false;
	q->n_queued = 0;
	q->n_done = 0;
	q->read_cur = NULL;
	for (unsigned i = 0; i < q->n_buffers; i++) {
		if (q->buffers[i].state == VQ_ACTIVE)
			sync_write(q, &q->buffers[i], false);
		q->buffers[i].state = VQ_DEQUEUED;
		q->buffers[i].read_pos = 0;
	}
}

static void queue_free(struct vq *q)
{
	for (unsigned i = 0; i < q->n_buffers; i++) {
		struct vq_buffer *b = &q->buffers[i];
		if (b->mem) /* a DMABUF buffer has none until it is attached */
			q->mem_ops->release(q->mem_data, b);
		memset(b, 0, sizeof(*b));
	}
	q->n_buffers = 0;
	q->memory = 0;
}

/* __vb2_queue_alloc: up to count buffers of size after the existing ones;
 * returns how many it got. MMAP cookies as vb2 6.1's __setup_offsets: each
 * buffer starts at the page-aligned end of the previous one. */
static unsigned queue_alloc(struct vq *q, unsigned memory, unsigned count, uint32_t size)
{
	unsigned got = 0;
	while (got < count && q->n_buffers + got < VIDEO_MAX_FRAME) {
		unsigned index = q->n_buffers + got;
		struct vq_buffer *b = &q->buffers[index];
		memset(b, 0, sizeof(*b));
		b->index = index;
		b->plane_size = size;
		if (memory == V4L2_MEMORY_DMABUF) { /* the memory comes at QBUF */
			got++;
			continue;
		}
		if (q->mem_ops->alloc(q->mem_data, b, size))
			break;
		if (!b->mem || b->length < size) {
			q->mem_ops->release(q->mem_data, b);
			break;
		}
		if (memory != V4L2_MEMORY_USERPTR && index) {
			const struct vq_buffer *prev = &q->buffers[index - 1];
			b->mem_offset = (uint32_t)page_align(q, (size_t)prev->mem_offset +
								      prev->plane_size);
		}
		got++;
	}
	return got;
}

/* __fill_v4l2_buffer for a single-planar capture buffer; 'state' decides
 * the state flags (DQBUF fills before the buffer goes back to the app). */
static void fill_user(const struct vq *q, const struct vq_buffer *b, enum vq_state state,
		      struct v4l2_buffer *ub)
{
	memset(ub, 0, sizeof(*ub));
	ub->index = b->index;
	ub->type = q->type;
	ub->memory = q->memory == VQ_MEMORY_READ ? V4L2_MEMORY_MMAP : q->memory;
	ub->bytesused = b->bytesused;
	ub->field = V4L2_FIELD_NONE; /* uvcvideo's only field */
	ub->timestamp = b->timestamp;
	ub->sequence = b->sequence;
	if (q->memory == V4L2_MEMORY_USERPTR) {
		ub->m.userptr = b->userptr;
		ub->length = b->user_length ? b->user_length : b->plane_size;
	} else if (q->memory == V4L2_MEMORY_DMABUF) {
		ub->m.fd = b->dmabuf_fd;
		ub->length = b->user_length ? b->user_length : b->plane_size;
	} else {
		ub->m.offset = b->mem_offset;
		ub->length = b->plane_size;
	}
	ub->flags = (b->flags & ~STATE_FLAGS) | TIMESTAMP_FLAGS;
	switch (state) {
	case VQ_QUEUED:
	case VQ_ACTIVE:
		ub->flags |= V4L2_BUF_FLAG_QUEUED;
		break;
	case VQ_DONE:
		ub->flags |= V4L2_BUF_FLAG_DONE | (b->flags & V4L2_BUF_FLAG_ERROR);
		break;
	case VQ_PREPARED:
		ub->flags |= V4L2_BUF_FLAG_PREPARED;
		break;
	case VQ_DEQUEUED:
		break;
	}
	if (b->map_count)
		ub->flags |= V4L2_BUF_FLAG_MAPPED;
}

/* --- setup ---------------------------------------------------------------- */

void vq_init(struct vq *q, const struct vq_mem_ops *ops, void *mem_data)
{
	memset(q, 0, sizeof(*q));
	q->mem_ops = ops;
	q->mem_data = mem_data;
	q->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	long page = sysconf(_SC_PAGESIZE);
	q->page_size = page > 0 ? (size_t)page : 4096;
}

void vq_set_type(struct vq *q, uint32_t type)
{
	q->type = type;
}

void vq_offer_dmabuf(struct vq *q)
{
	q->dmabuf = true;
}

int vq_attach_dmabuf(struct vq *q, const void *owner, unsigned index, int fd,
		     const struct vq_dmabuf *mem)
{
	if (vq_is_busy(q, owner))
		return -EBUSY;
	if (q->memory != V4L2_MEMORY_DMABUF || index >= q->n_buffers || fd < 0 || !mem->mem)
		return -EINVAL;
	struct vq_buffer *b = &q->buffers[index];
	if (b->state != VQ_DEQUEUED) /* its memory may be in use */
		return -EBUSY;
	if (b->mem)
		q->mem_ops->release(q->mem_data, b);
	b->mem = mem->mem;
	b->length = mem->length;
	b->mem_priv = mem->priv;
	b->dmabuf_fd = fd;
	b->user_length = 0; /* checked again at the next QBUF */
	return 0;
}

void vq_destroy(struct vq *q)
{
	queue_cancel(q);
	queue_free(q);
	q->owner = NULL;
}

void vq_set_sizeimage(struct vq *q, size_t sizeimage)
{
	q->sizeimage = sizeimage;
}

bool vq_is_busy(const struct vq *q, const void *owner)
{
	return q->owner && q->owner != owner;
}

int vq_claim(struct vq *q, void *owner)
{
	if (vq_is_busy(q, owner))
		return -EBUSY;
	q->owner = owner;
	return 0;
}

/* --- REQBUFS / CREATE_BUFS ---------------------------------------------- */

int vq_reqbufs(struct vq *q, void *owner, struct v4l2_requestbuffers *rb)
{
	if (rb->type != q->type)
		return -EINVAL;
	memset(rb->reserved, 0, sizeof(rb->reserved));
	int err = verify_memory(q, rb->memory);
	rb->capabilities = buf_caps(q);
	rb->flags = 0;
	if (err)
		return err;
	if (vq_is_busy(q, owner) || q->streaming)
		return -EBUSY;

	/* vb2 frees whatever there is, mapped or not (orphaned buffers) */
	queue_cancel(q);
	queue_free(q);
	if (rb->count == 0) {
		q->owner = NULL;
		return 0;
	}
	if (!q->sizeimage || q->sizeimage > UINT32_MAX)
		return -EINVAL;
	unsigned count = rb->count < VIDEO_MAX_FRAME ? rb->count : VIDEO_MAX_FRAME;
	unsigned got = queue_alloc(q, rb->memory, count, (uint32_t)q->sizeimage);
	if (!got)
		return -ENOMEM;
	q->memory = rb->memory;
	q->n_buffers = got;
	q->waiting_for_buffers = true;
	q->owner = owner;
	rb->count = got;
	return 0;
}

int vq_create_bufs(struct vq *q, void *owner, struct v4l2_create_buffers *cb,
		   size_t sizeimage)
{
	if (cb->format.type != q->type)
		return -EINVAL;
	memset(cb->reserved, 0, sizeof(cb->reserved));
	int err = verify_memory(q, cb->memory);
	cb->index = q->n_buffers;
	cb->capabilities = buf_caps(q);
	cb->flags = 0;
	/* v4l_create_bufs marks the pix format as extended */
	cb->format.fmt.pix.priv = V4L2_PIX_FMT_PRIV_MAGIC;
	if (cb->count == 0)
		return err == -EBUSY ? 0 : err;
	if (err)
		return err;
	if (vq_is_busy(q, owner))
		return -EBUSY;
	if (sizeimage == 0 || sizeimage > UINT32_MAX)
		return -EINVAL;
	if (q->n_buffers == VIDEO_MAX_FRAME)
		return -ENOBUFS;
	if (q->n_buffers && q->memory != cb->memory)
		return -EINVAL;
	if (sizeimage < q->sizeimage) /* uvc_queue_setup: must hold a frame */
		return -EINVAL;
	unsigned got = queue_alloc(q, cb->memory, cb->count, (uint32_t)sizeimage);
	if (!got)
		return -ENOMEM;
	if (!q->n_buffers)
		q->waiting_for_buffers = true;
	q->memory = cb->memory;
	q->n_buffers += got;
	q->owner = owner;
	cb->count = got;
	return 0;
}

/* --- QUERYBUF / PREPARE_BUF / QBUF -------------------------------------- */

int vq_querybuf(struct vq *q, struct v4l2_buffer *b)
{
	if (b->type != q->type || b->index >= q->n_buffers)
		return -EINVAL;
	const struct vq_buffer *vb = &q->buffers[b->index];
	fill_user(q, vb, vb->state, b);
	return 0;
}

int vq_expbuf(struct vq *q, const void *owner, const struct v4l2_exportbuffer *e,
	      uint32_t *offset)
{
	if (vq_is_busy(q, owner))
		return -EBUSY;
	if (q->memory != V4L2_MEMORY_MMAP || (e->flags & ~(uint32_t)(O_CLOEXEC | O_ACCMODE)) ||
	    e->type != q->type || e->index >= q->n_buffers || e->plane != 0)
		return -EINVAL;
	if (fileio_active(q))
		return -EBUSY;
	*offset = q->buffers[e->index].mem_offset;
	return 0;
}

/* vb2_queue_or_prepare_buf's checks, in its order after the owner's and
 * fileio's; the type was checked first (check_fmt). */
static int check_buf(struct vq *q, void *owner, const struct v4l2_buffer *b, bool prepare)
{
	if (vq_is_busy(q, owner) || fileio_active(q))
		return -EBUSY;
	if (prepare && (b->flags & V4L2_BUF_FLAG_REQUEST_FD))
		return -EINVAL;
	if (b->index >= q->n_buffers || b->memory != q->memory)
		return -EINVAL;
	if (!prepare && (b->flags & V4L2_BUF_FLAG_REQUEST_FD)) {
		if (q->buffers[b->index].state != VQ_DEQUEUED)
			return -EINVAL;
		return -EBADR; /* !q->supports_requests */
	}
	return 0;
}

/* __prepare_dmabuf for the dma-buf the transport attached (vq_attach_dmabuf):
 * m.fd must name it (vb2: dma_buf_get fails, -EINVAL); a length of 0 means
 * the whole dma-buf; less than the buffer's size is -EINVAL, more than the
 * dma-buf's -EFAULT (vb2_vmalloc_attach_dmabuf). */
static int prepare_dmabuf(struct vq_buffer *vb, const struct v4l2_buffer *b)
{
	if (!vb->mem || b->m.fd != vb->dmabuf_fd)
		return -EINVAL;
	size_t length = b->length ? b->length : vb->length;
	if (length < vb->plane_size || length > UINT32_MAX)
		return -EINVAL;
	if (length > vb->length)
		return -EFAULT;
	vb->user_length = (uint32_t)length;
	return 0;
}

/* __buf_prepare for a buffer the app has: USERPTR and DMABUF checks
 * (__prepare_userptr, __prepare_dmabuf) and the app's part of the buffer
 * (vb2_fill_vb2_v4l2_buffer). */
static int buf_prepare(struct vq *q, struct vq_buffer *vb, const struct v4l2_buffer *b)
{
	if (q->error)
		return -EIO;
	if (q->memory == V4L2_MEMORY_DMABUF) {
		int err = prepare_dmabuf(vb, b);
		if (err)
			return err;
	}
	if (q->memory == V4L2_MEMORY_USERPTR &&
	    !(b->m.userptr && b->m.userptr == vb->userptr && b->length == vb->user_length)) {
		vb->userptr = 0;
		vb->user_length = 0;
		if (b->length < vb->plane_size)
			return -EINVAL;
		if (!b->m.userptr) /* get_userptr fails on an unmapped address */
			return -EFAULT;
		vb->userptr = b->m.userptr;
		vb->user_length = b->length;
	}
	vb->flags = b->flags & ~APP_DROPPED;
	vb->bytesused = 0;
	vb->sequence = 0;
	memset(&vb->timestamp, 0, sizeof(vb->timestamp));
	return 0;
}

int vq_prepare_buf(struct vq *q, void *owner, struct v4l2_buffer *b)
{
	if (b->type != q->type)
		return -EINVAL;
	int err = check_buf(q, owner, b, true);
	if (err)
		return err;
	struct vq_buffer *vb = &q->buffers[b->index];
	if (vb->state != VQ_DEQUEUED) /* includes "already prepared" */
		return -EINVAL;
	err = buf_prepare(q, vb, b);
	if (err)
		return err;
	vb->state = VQ_PREPARED;
	fill_user(q, vb, vb->state, b);
	return 0;
}

int vq_qbuf(struct vq *q, void *owner, struct v4l2_buffer *b)
{
	if (b->type != q->type)
		return -EINVAL;
	int err = check_buf(q, owner, b, false);
	if (err)
		return err;
	if (q->error)
		return -EIO;
	struct vq_buffer *vb = &q->buffers[b->index];
	if (vb->state == VQ_DEQUEUED) {
		err = buf_prepare(q, vb, b);
		if (err)
			return err;
	} else if (vb->state != VQ_PREPARED) {
		return -EINVAL;
	}
	vb->state = VQ_QUEUED;
	fifo_push(q->queued, &q->n_queued, vb->index);
	q->waiting_for_buffers = false;
	fill_user(q, vb, vb->state, b);
	return 0;
}

int vq_qbuf_preview(const struct vq *q, unsigned index, struct v4l2_buffer *b)
{
	if (index >= q->n_buffers)
		return -EINVAL;
	/* a DMABUF buffer queued again as it was: its dma-buf, its length */
	bool dmabuf = q->memory == V4L2_MEMORY_DMABUF && q->buffers[index].mem &&
		      q->buffers[index].user_length;
	if (q->memory != V4L2_MEMORY_MMAP && !dmabuf)
		return -EINVAL;
	/* buf_prepare's reset of the app's part, with no app flags */
	struct vq_buffer vb = q->buffers[index];
	vb.flags = 0;
	vb.bytesused = 0;
	vb.sequence = 0;
	memset(&vb.timestamp, 0, sizeof(vb.timestamp));
	fill_user(q, &vb, VQ_QUEUED, b);
	return 0;
}

uint32_t vq_qbuf_kept_flags(void)
{
	return ~(uint32_t)APP_DROPPED;
}

/* --- DQBUF / STREAMON / STREAMOFF / release ------------------------------ */

/* Whether owner may dequeue the i-th done buffer now, in
 * __vb2_wait_for_done_vb's order of answers. */
static int dqbuf_check(const struct vq *q, const void *owner, unsigned i)
{
	if (vq_is_busy(q, owner) || fileio_active(q))
		return -EBUSY;
	if (!q->streaming)
		return -EINVAL;
	if (q->error)
		return -EIO;
	return i < q->n_done ? 0 : -EAGAIN;
}

int vq_dqbuf(struct vq *q, void *owner, struct v4l2_buffer *b, struct vq_buffer **buf)
{
	if (b->type != q->type)
		return -EINVAL;
	int err = dqbuf_check(q, owner, 0);
	if (err)
		return err;
	struct vq_buffer *vb = &q->buffers[fifo_pop(q->done, &q->n_done)];
	fill_user(q, vb, VQ_DONE, b);
	b->flags &= ~V4L2_BUF_FLAG_DONE; /* vb2_dqbuf */
	vb->state = VQ_DEQUEUED;
	if (buf)
		*buf = vb;
	return 0;
}

int vq_dqbuf_peek(const struct vq *q, const void *owner, unsigned i, struct v4l2_buffer *b)
{
	int err = dqbuf_check(q, owner, i);
	if (err)
		return err;
	fill_user(q, &q->buffers[q->done[i]], VQ_DONE, b);
	b->flags &= ~V4L2_BUF_FLAG_DONE;
	return 0;
}

int vq_streamon(struct vq *q, void *owner, int type)
{
	if (vq_is_busy(q, owner) || fileio_active(q))
		return -EBUSY;
	if ((uint32_t)type != q->type)
		return -EINVAL;
	if (q->streaming)
		return 0;
	if (!q->n_buffers)
		return -EINVAL;
	q->streaming = true;
	q->sequence = 0;
	return 0;
}

int vq_streamoff(struct vq *q, void *owner, int type)
{
	if (vq_is_busy(q, owner) || fileio_active(q))
		return -EBUSY;
	if ((uint32_t)type != q->type)
		return -EINVAL;
	/* also when not streaming: prepared/queued buffers come back */
	queue_cancel(q);
	q->waiting_for_buffers = true;
	return 0;
}

void vq_release(struct vq *q, void *owner)
{
	if (!owner || q->owner != owner)
		return;
	vq_destroy(q);
}

int vq_mmap_find(const struct vq *q, uint64_t offset, size_t size, struct vq_buffer **buf)
{
	if (fileio_active(q))
		return -EBUSY;
	if (q->memory != V4L2_MEMORY_MMAP)
		return -EINVAL;
	for (unsigned i = 0; i < q->n_buffers; i++) {
		const struct vq_buffer *b = &q->buffers[i];
		if (b->mem_offset != offset)
			continue;
		if (page_align(q, b->plane_size) < size)
			return -EINVAL;
		*buf = (struct vq_buffer *)b;
		return 0;
	}
	return -EINVAL;
}

unsigned vq_poll(const struct vq *q, const void *owner)
{
	(void)owner;
	if (!q->streaming || q->error)
		return POLLERR;
	if (q->waiting_for_buffers)
		return POLLERR;
	return q->n_done ? POLLIN | POLLRDNORM : 0;
}

/* --- read() emulation ---------------------------------------------------- */

int vq_read_start(struct vq *q, void *owner, unsigned count)
{
	if (vq_is_busy(q, owner))
		return -EBUSY;
	if (fileio_active(q))
		return 0;
	if (q->streaming || q->n_buffers)
		return -EBUSY;
	if (!q->sizeimage || q->sizeimage > UINT32_MAX)
		return -EINVAL;
	if (!count)
		count = VQ_READ_COUNT_DEFAULT;
	unsigned got = queue_alloc(q, VQ_MEMORY_READ, count, (uint32_t)q->sizeimage);
	if (!got)
		return -ENOMEM;
	q->memory = VQ_MEMORY_READ;
	q->n_buffers = got;
	q->owner = owner;
	for (unsigned i = 0; i < got; i++) {
		q->buffers[i].state = VQ_QUEUED;
		fifo_push(q->queued, &q->n_queued, i);
	}
	q->waiting_for_buffers = false;
	q->streaming = true;
	q->sequence = 0;
	q->read_cur = NULL;
	return 0;
}

int vq_read_peek(struct vq *q, void *owner, const uint8_t **data, size_t *len,
		 struct vq_buffer **buf)
{
	if (vq_is_busy(q, owner))
		return -EBUSY;
	if (!fileio_active(q))
		return -EINVAL;
	struct vq_buffer *b = q->read_cur;
	if (!b) {
		if (q->error)
			return -EIO;
		if (!q->n_done)
			return -EAGAIN;
		b = &q->buffers[fifo_pop(q->done, &q->n_done)];
		b->state = VQ_DEQUEUED;
		b->read_pos = 0;
		q->read_cur = b;
	}
	*data = b->mem + b->read_pos;
	*len = b->bytesused - b->read_pos;
	if (buf)
		*buf = b;
	return 0;
}

bool vq_read_consume(struct vq *q, struct vq_buffer *buf, size_t n)
{
	if (!buf || buf != q->read_cur)
		return false;
	size_t left = buf->bytesused - buf->read_pos;
	buf->read_pos += n < left ? n : left;
	if (buf->read_pos < buf->bytesused)
		return true;
	/* read completely: back to the driver (vb2_core_qbuf), unless the
	 * queue is in error, where the next read answers -EIO */
	q->read_cur = NULL;
	buf->read_pos = 0;
	buf->flags = 0;
	if (!q->error) {
		buf->state = VQ_QUEUED;
		fifo_push(q->queued, &q->n_queued, buf->index);
	}
	return false;
}

/* --- driver side --------------------------------------------------------- */

struct vq_buffer *vq_next(struct vq *q)
{
	if (!q->streaming || q->error || !q->n_queued)
		return NULL;
	struct vq_buffer *b = &q->buffers[fifo_pop(q->queued, &q->n_queued)];
	b->state = VQ_ACTIVE;
	sync_write(q, b, true);
	return b;
}

void vq_done(struct vq *q, struct vq_buffer *b, uint32_t bytesused, uint32_t flags,
	     int64_t sequence, const struct timeval *timestamp)
{
	if (!b || b->state != VQ_ACTIVE)
		return;
	sync_write(q, b, false);
	size_t room = b->plane_size;
	if ((q->memory == V4L2_MEMORY_USERPTR || q->memory == V4L2_MEMORY_DMABUF) &&
	    b->user_length > room)
		room = b->user_length;
	if (room > b->length)
		room = b->length;
	if (bytesused > room) { /* uvcvideo: "Frame complete (overflow)" */
		bytesused = (uint32_t)room;
		flags |= V4L2_BUF_FLAG_ERROR;
	}
	b->bytesused = bytesused;
	b->flags |= flags & ~(STATE_FLAGS & ~V4L2_BUF_FLAG_ERROR) & ~V4L2_BUF_FLAG_TSTAMP_SRC_MASK;
	if (sequence >= 0) {
		b->sequence = (uint32_t)sequence;
		q->sequence = (uint32_t)sequence + 1;
	} else {
		b->sequence = q->sequence++;
	}
	if (timestamp)
		b->timestamp = *timestamp;
	else
		memset(&b->timestamp, 0, sizeof(b->timestamp));
	b->state = VQ_DONE;
	fifo_push(q->done, &q->n_done, b->index);
}

void vq_undo_dqbuf(struct vq *q, struct vq_buffer *b)
{
	if (!b || b->state != VQ_DEQUEUED || !q->streaming)
		return;
	b->state = VQ_DONE;
	fifo_push_head(q->done, &q->n_done, b->index);
}

void vq_streamon_failed(struct vq *q)
{
	/* vb2_core_streamon: start_streaming failed, the queued buffers stay
	 * queued and the queue is not streaming */
	q->streaming = false;
}

void vq_requeue(struct vq *q, struct vq_buffer *b)
{
	if (!b || b->state != VQ_ACTIVE)
		return;
	sync_write(q, b, false);
	b->state = VQ_QUEUED;
	fifo_push_head(q->queued, &q->n_queued, b->index);
}

void vq_set_error(struct vq *q)
{
	q->error = true;
}

bool vq_has_done(const struct vq *q)
{
	return q->n_done > 0;
}
