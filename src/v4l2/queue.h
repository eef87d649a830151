/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The capture buffer queue, with the semantics of the kernel's videobuf2
 * (Linux 6.1 vb2 core + vb2 v4l2 layer + vb2_ioctl_* owner helpers):
 * REQBUFS, CREATE_BUFS, QUERYBUF, PREPARE_BUF, QBUF, DQBUF, STREAMON/OFF,
 * the queue owner (one open file at a time; others get -EBUSY), poll and
 * read() emulation (vb2_read). Pure: buffer memory comes from the caller's
 * vq_mem_ops, there is no I/O and no lock; the driver side fills buffers
 * through vq_next()/vq_done().
 *
 * Rules taken from vb2 6.1 (the checks happen in vb2's order):
 * - One buffer type: V4L2_BUF_TYPE_VIDEO_CAPTURE, or the one vq_set_type()
 *   gives (a metadata node's META_CAPTURE); memory MMAP or USERPTR, and
 *   DMABUF where vq_offer_dmabuf() says so (uvcvideo's video queue, not its
 *   metadata queue); other memory is -EINVAL (vb2_verify_memory_type).
 * - DMABUF: a buffer has no memory until the transport attaches the app's
 *   dma-buf (vq_attach_dmabuf(), mapped by the daemon); QBUF's m.fd must
 *   name the one attached (else -EINVAL, as vb2's dma_buf_get failing),
 *   length 0 means the whole dma-buf, less than the buffer's size -EINVAL,
 *   more than the dma-buf -EFAULT; QUERYBUF and DQBUF give back m.fd and
 *   that length. The memory's sync hook brackets the driver's writes.
 * - capabilities = ORPHANED_BUFS | MMAP | USERPTR (| DMABUF): vb2 6.1 always sets
 *   ORPHANED_BUFS (REQBUFS frees buffers an app still maps; the mapping
 *   stays valid), which is also all the daemon can do as it cannot know
 *   about mappings. flags is zeroed (no cache hints), reserved cleared
 *   (v4l_reqbufs/v4l_create_bufs memset_after(flags)).
 * - REQBUFS: count clamped to [1, VIDEO_MAX_FRAME] (uvc_queue_setup keeps
 *   the count, min_buffers_needed is 0); any existing buffers are freed
 *   first (count 0, memory change, or simply re-REQBUFS); count 0 drops the
 *   owner, count > 0 makes the caller owner. Streaming: -EBUSY.
 * - CREATE_BUFS: count 0 only validates (-EBUSY from read emulation is 0);
 *   sizeimage 0 -> -EINVAL (vb2_create_bufs), smaller than the current
 *   format's -> -EINVAL (uvc_queue_setup), 32 buffers -> -ENOBUFS, memory
 *   other than the existing buffers' -> -EINVAL. Allowed while streaming.
 * - QBUF on a buffer that is not the app's -> -EINVAL; V4L2_BUF_FLAG_
 *   REQUEST_FD -> -EBADR (no request support); queue error -> -EIO;
 *   USERPTR length < buffer size -> -EINVAL, userptr 0 -> -EFAULT (what
 *   vb2_vmalloc's get_userptr answers for an unmapped address).
 * - DQBUF: not streaming -> -EINVAL, error -> -EIO (before looking at done
 *   buffers), none done -> -EAGAIN. DONE is cleared in the answer.
 * - STREAMON when streaming -> 0; without buffers -> -EINVAL. STREAMOFF
 *   (also when not streaming) returns every buffer to the app, clears the
 *   error and PREPARED.
 * - While read emulation runs, QBUF/DQBUF/PREPARE_BUF/STREAMON/STREAMOFF/
 *   REQBUFS/CREATE_BUFS(count > 0) answer -EBUSY even to the owner
 *   (vb2_fileio_is_active); QUERYBUF still answers (memory MMAP).
 *
 * Where uvcvideo 6.1 differs from the vb2 helpers (the node decides): it
 * has its own "privileges" (uvc_acquire_privileges on S_FMT, S_PARM,
 * REQBUFS, CREATE_BUFS; dismissed by REQBUFS(0) and close) instead of
 * vb2_ioctl_*'s owner; QUERYBUF needs the privilege (-EBUSY), the vb2
 * helper does not; it has no PREPARE_BUF (-ENOTTY) and no read() (-EINVAL,
 * no V4L2_CAP_READWRITE); its STREAMOFF answers 0 even for a wrong type.
 * vq_claim() lets the node model the privilege with the queue's owner.
 *
 * Owners are opaque pointers (the daemon passes its per-file state). */
#ifndef V4L2_QUEUE_H
#define V4L2_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/videodev2.h>

enum vq_state {
	VQ_DEQUEUED, /* the app has it (or nobody: just allocated) */
	VQ_PREPARED, /* PREPARE_BUF done, not queued yet (vb2: DEQUEUED+prepared) */
	VQ_QUEUED,   /* waiting for the driver */
	VQ_ACTIVE,   /* the driver is filling it (vq_next) */
	VQ_DONE,     /* filled, waiting for DQBUF (or read()) */
};

/* Memory kinds: V4L2_MEMORY_MMAP, V4L2_MEMORY_USERPTR, or VQ_MEMORY_READ
 * (internal buffers of read() emulation; QUERYBUF shows them as MMAP as
 * vb2's fileio uses MMAP buffers). */
#define VQ_MEMORY_READ 0x100

/* read() emulation buffers when vq_read_start() gets count 0. vb2 starts
 * fileio with 1 and lets queue_setup raise it (uvc would not); two keep
 * the camera streaming while the app reads the other. */
#define VQ_READ_COUNT_DEFAULT 2

struct vq_buffer {
	unsigned index;
	enum vq_state state;
	/* The buffer's size as V4L2 sees it: the sizeimage it was allocated
	 * for (REQBUFS: the format's; CREATE_BUFS: the one asked for).
	 * QUERYBUF's length for MMAP; USERPTR's minimum length. */
	uint32_t plane_size;
	/* Daemon-side memory the frame is written to: for MMAP and READ the
	 * buffer itself (the allocator's), for USERPTR a staging area that
	 * DQBUF's caller copies to the app's userptr, for DMABUF the app's
	 * dma-buf as the transport mapped it (NULL until attached). */
	uint8_t *mem;
	size_t length;        /* bytes at mem (>= plane_size), set by alloc */
	void *mem_priv;       /* allocator's handle (e.g. the memfd) */
	uint32_t mem_offset;  /* MMAP/READ: QUERYBUF's m.offset cookie */
	unsigned long userptr;/* USERPTR: the app's address and length, */
	uint32_t user_length; /* 0 until the first QBUF/PREPARE_BUF (DMABUF: the
			       * length QBUF gave, the whole dma-buf for 0) */
	int dmabuf_fd;        /* DMABUF: the app's fd of the attached dma-buf */
	/* The caller's count of the app's mappings (the daemon learns them
	 * from the preload library): QUERYBUF sets V4L2_BUF_FLAG_MAPPED when
	 * non-zero, as vb2 does from the memory's users. */
	unsigned map_count;
	/* Filled by vq_done() */
	uint32_t bytesused;
	uint32_t flags;       /* app's kept flags (vb2 keeps unknown bits) and
			       * the driver's KEYFRAME...; ERROR; never state */
	uint32_t sequence;
	struct timeval timestamp;
	/* read() emulation: bytes already read from this buffer */
	size_t read_pos;
};

struct vq_mem_ops {
	/* Allocates at least size bytes for b: sets b->mem, b->length (may
	 * round up, e.g. to pages) and b->mem_priv. Returns 0 or -ENOMEM. */
	int (*alloc)(void *data, struct vq_buffer *b, size_t size);
	void (*release)(void *data, struct vq_buffer *b);
	/* Optional, DMABUF memory only: the driver starts writing b (start)
	 * or is done with it (vb2's prepare and finish memops). */
	void (*sync)(void *data, struct vq_buffer *b, bool start);
};

/* An app's dma-buf as the transport mapped it, for vq_attach_dmabuf():
 * released through the queue's mem_ops->release as allocated memory is. */
struct vq_dmabuf {
	uint8_t *mem;
	size_t length;        /* the dma-buf's size */
	void *priv;           /* the release's handle */
};

struct vq {
	/* set by vq_init */
	uint32_t type;            /* V4L2_BUF_TYPE_* (vq_set_type) */
	bool dmabuf;              /* V4L2_MEMORY_DMABUF offered (vq_offer_dmabuf) */
	const struct vq_mem_ops *mem_ops;
	void *mem_data;
	size_t page_size;         /* mmap cookies are page-aligned */
	/* state */
	void *owner;              /* NULL: nobody */
	unsigned memory;          /* V4L2_MEMORY_*, VQ_MEMORY_READ, 0: none */
	unsigned n_buffers;
	/* In place, so pointers to them stay valid while allocated. */
	struct vq_buffer buffers[VIDEO_MAX_FRAME];
	bool streaming;
	bool error;               /* vq_set_error(): DQBUF/QBUF answer -EIO */
	bool waiting_for_buffers; /* vb2's flag for poll (EPOLLERR before QBUF) */
	size_t sizeimage;         /* the current format's size (vq_set_sizeimage) */
	/* queued (driver's) and done (app's) buffers, FIFO of indices */
	unsigned queued[VIDEO_MAX_FRAME], n_queued;
	unsigned done[VIDEO_MAX_FRAME], n_done;
	uint32_t sequence;        /* next sequence (reset at STREAMON) */
	struct vq_buffer *read_cur; /* read(): the buffer being read, or NULL */
};

/* q may not move afterwards (buffers are handed out by pointer). */
void vq_init(struct vq *q, const struct vq_mem_ops *ops, void *mem_data);
/* The queue's buffer type (vq_init: V4L2_BUF_TYPE_VIDEO_CAPTURE), set
 * before any buffer: the type every ioctl must name (-EINVAL otherwise). */
void vq_set_type(struct vq *q, uint32_t type);
/* The queue offers V4L2_MEMORY_DMABUF (before any buffer). */
void vq_offer_dmabuf(struct vq *q);
/* The app's dma-buf 'fd' (its number in the app) for DMABUF buffer index,
 * mapped by the transport: the buffer's memory from now on, the previous
 * one released. 0; -EBUSY (another file owns the queue, or the buffer is
 * queued: its memory may be in use) or -EINVAL (no such DMABUF buffer),
 * and mem is then still the caller's. */
int vq_attach_dmabuf(struct vq *q, const void *owner, unsigned index, int fd,
		     const struct vq_dmabuf *mem);
/* Frees every buffer (daemon exit or camera gone). */
void vq_destroy(struct vq *q);

/* The current format's sizeimage (uvcvideo: dwMaxVideoFrameSize): REQBUFS
 * and read() allocate it, CREATE_BUFS refuses less. */
void vq_set_sizeimage(struct vq *q, size_t sizeimage);

/* Whether 'owner' may not touch the queue (another file owns it). */
bool vq_is_busy(const struct vq *q, const void *owner);
/* Makes owner the owner unless another file is (-EBUSY): uvcvideo's
 * uvc_acquire_privileges for S_FMT/S_PARM, if the node follows it. */
int vq_claim(struct vq *q, void *owner);

/* The ioctls, as vb2_ioctl_*() answer them for V4L2_BUF_TYPE_VIDEO_CAPTURE
 * with io_modes MMAP | USERPTR. Return 0 or -errno. */
int vq_reqbufs(struct vq *q, void *owner, struct v4l2_requestbuffers *rb);
/* sizeimage: the size the new buffers get (the request's
 * format.fmt.pix.sizeimage, which vb2 takes as is): 0 or less than
 * vq_set_sizeimage()'s -> -EINVAL. */
int vq_create_bufs(struct vq *q, void *owner, struct v4l2_create_buffers *cb,
		   size_t sizeimage);
/* No owner check, as vb2_ioctl_querybuf (see above for uvcvideo). */
int vq_querybuf(struct vq *q, struct v4l2_buffer *b);
/* VIDIOC_EXPBUF's checks (vb2_ioctl_expbuf, then vb2_core_expbuf 6.1, in
 * their order: the owner, MMAP memory, flags, type, index, plane, read()
 * emulation): 0 with *offset the buffer's mmap offset, over whose memory
 * the transport makes the dma-buf; or -errno. */
int vq_expbuf(struct vq *q, const void *owner, const struct v4l2_exportbuffer *e,
	      uint32_t *offset);
int vq_prepare_buf(struct vq *q, void *owner, struct v4l2_buffer *b);
int vq_qbuf(struct vq *q, void *owner, struct v4l2_buffer *b);
/* What vq_qbuf() will answer for buffer index once the app, holding it,
 * queues it with flags 0 (memory MMAP; or DMABUF naming the dma-buf and
 * length it was last queued with): the answer to flags F is this with
 * F & vq_qbuf_kept_flags() added. -EINVAL: no MMAP buffer of that index,
 * nor a DMABUF one queued before. */
int vq_qbuf_preview(const struct vq *q, unsigned index, struct v4l2_buffer *b);
/* The app's flags a QBUF keeps in its answer (vb2 keeps unknown bits). */
uint32_t vq_qbuf_kept_flags(void);
/* -EAGAIN when no buffer is done: the caller answers it for O_NONBLOCK or
 * parks the request and calls again once vq_done() ran. On success b is
 * filled and *buf (if not NULL) is the buffer, whose mem holds the frame
 * (for USERPTR the caller copies bytesused bytes of mem to b->m.userptr). */
int vq_dqbuf(struct vq *q, void *owner, struct v4l2_buffer *b, struct vq_buffer **buf);
/* What vq_dqbuf() would answer owner for the i-th done buffer (0: the next
 * one) once the i before it are dequeued, without dequeuing anything: 0,
 * or -EAGAIN (no such buffer) and vq_dqbuf's errors. */
int vq_dqbuf_peek(const struct vq *q, const void *owner, unsigned i, struct v4l2_buffer *b);
int vq_streamon(struct vq *q, void *owner, int type);
int vq_streamoff(struct vq *q, void *owner, int type);

/* The owner's file closed: stop read emulation, cancel and free all, as
 * vb2_fop_release (and uvc_v4l2_release for the privileged handle). */
void vq_release(struct vq *q, void *owner);

/* An MMAP mapping of 'size' bytes at 'offset' (vb2_mmap's checks): the
 * buffer, or -EINVAL (not MMAP memory, no buffer at that cookie, size
 * above the page-aligned buffer) or -EBUSY (read emulation owns them). */
int vq_mmap_find(const struct vq *q, uint64_t offset, size_t size,
		 struct vq_buffer **buf);

/* poll() of a capture queue (vb2_core_poll, for POLLIN requested):
 * POLLERR when not streaming, in error, or streaming before any QBUF
 * (waiting_for_buffers); POLLIN|POLLRDNORM when a buffer is done; else 0.
 * vb2 checks no owner: every file sees the queue (owner is unused).
 * vb2 starts read emulation when an idle queue is polled (num_buffers 0,
 * io_modes READ); this function does not: the caller calls vq_read_start()
 * first when it wants that (after it the queue streams with all buffers
 * queued, so poll answers 0 until a frame is done). */
unsigned vq_poll(const struct vq *q, const void *owner);

/* read() emulation (vb2_read / __vb2_perform_fileio for capture).
 *
 * vq_read_start(): as __vb2_init_fileio: -EBUSY when another file owns the
 * queue or it has buffers or streams; else count buffers (0: the default)
 * of sizeimage, all queued, streaming on, and owner is the file. 0 when
 * this owner's emulation already runs.
 *
 * vq_read_peek(): the buffer being read: a frame a previous read() call
 * did not finish continues from its read_pos (vb2 keeps the rest of a
 * frame for the next read(); nothing is dropped); otherwise the next done
 * frame is dequeued. *data and *len are what is left of it. -EAGAIN when no
 * frame is done, -EIO after vq_set_error, -EBUSY when another file owns
 * the queue, -EINVAL when the emulation is not running. No side effect
 * when a frame is being read, so calling it again returns the same.
 *
 * vq_read_consume(): n bytes of it were sent (call it also with n = 0:
 * an empty frame is requeued, vb2 returns 0 for it). When the frame is
 * read completely it is queued again. Returns true when bytes of the frame
 * are left, which is how a caller serving a read() in chunks (CUSE: at most
 * 128 KiB each) knows whether the next chunk of the same read() call may
 * continue: a read() never spans two frames, so a later chunk after a
 * false must answer 0 bytes (ending the call) instead of peeking; only the
 * first chunk of a read() call may wait for a frame. */
int vq_read_start(struct vq *q, void *owner, unsigned count);
int vq_read_peek(struct vq *q, void *owner, const uint8_t **data, size_t *len,
		 struct vq_buffer **buf);
bool vq_read_consume(struct vq *q, struct vq_buffer *buf, size_t n);

/* Driver side. vq_next(): the next queued buffer to fill (it becomes
 * ACTIVE), NULL when none is queued, not streaming or in error. The
 * pointer is valid until vq_done()/vq_requeue(), or until the queue stops
 * (STREAMOFF, REQBUFS, release, destroy: they take every buffer back, so
 * the driver must drop it when q->streaming goes false); vq_done() and
 * vq_requeue() ignore a buffer that is not ACTIVE (vb2_buffer_done WARNs).
 * vq_done(): the frame is in b->mem: sets bytesused (more than the buffer
 * holds is cut and flagged ERROR, as uvcvideo's overflow), flags
 * (V4L2_BUF_FLAG_ERROR marks the frame erroneous, KEYFRAME... are passed
 * on), sequence (the queue's counter, or the given one when 'sequence'
 * >= 0, the counter then continuing after it), timestamp, and makes it
 * DONE. vq_requeue(): give an ACTIVE buffer back unused (it goes to the
 * head of the queued list). */
struct vq_buffer *vq_next(struct vq *q);
void vq_done(struct vq *q, struct vq_buffer *b, uint32_t bytesused, uint32_t flags,
	     int64_t sequence, const struct timeval *timestamp);
void vq_requeue(struct vq *q, struct vq_buffer *b);
/* The caller could not hand a dequeued buffer to the app (its data did
 * not fit the reply): it is done again, first in line. */
void vq_undo_dqbuf(struct vq *q, struct vq_buffer *b);
/* STREAMON reached the queue but the camera did not start: not streaming,
 * buffers stay queued, as vb2 when start_streaming fails. */
void vq_streamon_failed(struct vq *q);
/* The camera is gone or the stream died: DQBUF and QBUF answer -EIO, poll
 * POLLERR, until STREAMOFF/REQBUFS clear it (vb2_queue_error). */
void vq_set_error(struct vq *q);
bool vq_has_done(const struct vq *q);

#endif
