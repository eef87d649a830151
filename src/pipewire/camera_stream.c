/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The node streaming to PipeWire (camera_priv.h): the negotiated mode set
 * on the node with its buffers (the daemon's memfds, and dma-bufs over them
 * where it makes them, which camera.c hands to PipeWire), QBUF of the ones PipeWire gives back and DQBUF of frames
 * into the graph, the node's fd watched only while a buffer is queued to
 * it.
 *
 * Buffer life: PipeWire owns a buffer until we dequeue it (pw_stream's
 * free list), then we QBUF it to the node; DQBUF hands it back to
 * PipeWire with pw_stream_queue_buffer, and pw_stream_trigger_process
 * runs the graph (we are its driver: the camera's frames are the clock).
 * Consumers map the memfd (or dma-buf) the daemon writes the frame into. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/videodev2.h>
#include <spa/buffer/meta.h>

#include "camera_priv.h"
#include "client/memfd_fetch.h"
#include "core/log.h"
#include "uvcuse/uvcuse.h"

static unsigned at_node(const struct bridge_camera *c)
{
	unsigned n = 0;
	for (unsigned i = 0; i < c->n_bufs; i++)
		n += c->bufs[i].owner == OWNER_NODE;
	return n;
}

/* The node's fd is watched only while a buffer is queued to it: a queue
 * with none polls POLLERR (vb2's rule), which must not spin the loop. */
static void update_watch(struct bridge_camera *c)
{
	bool on = c->io && at_node(c) > 0;
	if (c->io && on != c->io_on)
		pw_loop_update_io(c->loop, c->io, on ? SPA_IO_IN | SPA_IO_ERR | SPA_IO_HUP : 0);
	c->io_on = on;
	/* nothing at the node: no frame will come to trigger the graph that
	 * would give buffers back, so trigger it after a frame's time */
	if (!c->starved)
		return;
	if (c->streaming && !on) {
		uint32_t fps = c->mode.fps_num && c->mode.fps_den ? c->mode.fps_num / c->mode.fps_den : 0;
		camera_arm_ms(c->loop, c->starved, fps ? 1000 / fps : 100);
	} else {
		pw_loop_update_timer(c->loop, c->starved, NULL, NULL, false);
	}
}

void camera_stop_stream(struct bridge_camera *c)
{
	if (c->io) {
		pw_loop_destroy_source(c->loop, c->io);
		c->io = NULL;
		c->io_on = false;
	}
	if (c->streaming) {
		int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
		int err = camera_ioctl(c->fd, VIDIOC_STREAMOFF, &type);
		if (err < 0)
			log_warn("%s: STREAMOFF: %s", c->path, strerror(-err));
		log_info("%s: stream stopped after %llu frames", c->path,
			 (unsigned long long)c->frames);
		c->streaming = false;
	}
	if (c->starved)
		pw_loop_update_timer(c->loop, c->starved, NULL, NULL, false);
	/* STREAMOFF gave every queued buffer back */
	for (unsigned i = 0; i < c->n_bufs; i++)
		if (c->bufs[i].owner == OWNER_NODE)
			c->bufs[i].owner = OWNER_BRIDGE;
}

void camera_release_node(struct bridge_camera *c)
{
	camera_stop_stream(c);
	for (unsigned i = 0; i < c->n_bufs; i++) {
		if (c->bufs[i].memfd >= 0)
			close(c->bufs[i].memfd);
		if (c->bufs[i].dmabuf >= 0)
			close(c->bufs[i].dmabuf);
		c->bufs[i] = (struct camera_buf){ .memfd = -1, .dmabuf = -1 };
	}
	c->dmabufs = false;
	if (c->fd >= 0) {
		if (c->n_bufs) {
			struct v4l2_requestbuffers rb = { .count = 0,
							  .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
							  .memory = V4L2_MEMORY_MMAP };
			camera_ioctl(c->fd, VIDIOC_REQBUFS, &rb);
		}
		close(c->fd);
		c->fd = -1;
	}
	c->n_bufs = 0;
}

static void queue_to_node(struct bridge_camera *c, struct camera_buf *b)
{
	struct v4l2_buffer vb = { .index = (uint32_t)(b - c->bufs),
				  .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
				  .memory = V4L2_MEMORY_MMAP };
	int err = camera_ioctl(c->fd, VIDIOC_QBUF, &vb);
	if (err < 0) {
		log_warn("%s: QBUF %u: %s", c->path, vb.index, strerror(-err));
		b->owner = OWNER_BRIDGE;
		return;
	}
	b->owner = OWNER_NODE;
}

void camera_take_free_buffers(struct bridge_camera *c)
{
	struct pw_buffer *pwb;
	while ((pwb = pw_stream_dequeue_buffer(c->stream))) {
		struct camera_buf *b = pwb->user_data;
		if (!b || b->pwb != pwb || b->memfd < 0 || b->owner == OWNER_NODE)
			continue;
		b->owner = OWNER_BRIDGE;
		if (c->streaming)
			queue_to_node(c, b);
	}
	update_watch(c);
}

void camera_fail_stream(struct bridge_camera *c, int err, const char *what)
{
	log_warn("%s: %s: %s", c->path, what, strerror(-err));
	camera_release_node(c);
	pw_stream_set_error(c->stream, err, "%s: %s", what, strerror(-err));
}

/* Hands one filled buffer to PipeWire. */
static void deliver(struct bridge_camera *c, struct camera_buf *b, const struct v4l2_buffer *vb)
{
	struct spa_buffer *sb = b->pwb->buffer;
	struct spa_chunk *chunk = sb->datas[0].chunk;
	bool corrupted = vb->flags & V4L2_BUF_FLAG_ERROR;
	chunk->offset = 0;
	chunk->size = vb->bytesused <= b->length ? vb->bytesused : b->length;
	chunk->stride = (int32_t)c->bytesperline;
	chunk->flags = corrupted ? SPA_CHUNK_FLAG_CORRUPTED : 0;
	struct spa_meta_header *meta =
		spa_buffer_find_meta_data(sb, SPA_META_Header, sizeof(*meta));
	if (meta) {
		meta->flags = corrupted ? SPA_META_HEADER_FLAG_CORRUPTED : 0;
		/* the node's timestamps are CLOCK_MONOTONIC, PipeWire's clock */
		meta->pts = (int64_t)vb->timestamp.tv_sec * SPA_NSEC_PER_SEC +
			    (int64_t)vb->timestamp.tv_usec * SPA_NSEC_PER_USEC;
		meta->dts_offset = 0;
		meta->seq = vb->sequence;
	}
	b->owner = OWNER_PIPEWIRE;
	if (pw_stream_queue_buffer(c->stream, b->pwb) < 0)
		b->owner = OWNER_BRIDGE; /* PipeWire did not take it: it goes back to the node */
	c->frames++;
}

static void on_frame_ready(void *data, int fd, uint32_t mask)
{
	struct bridge_camera *c = data;
	(void)fd;
	if (mask & SPA_IO_HUP) {
		/* the daemon's answer for a camera gone for good */
		camera_fail_stream(c, -ENODEV, "the camera is gone");
		return;
	}
	/* Every frame done is taken; only the newest goes to PipeWire, the
	 * older ones straight back to the node: a consumer that fell behind
	 * gets the present, not a queue of the past. */
	struct camera_buf *newest = NULL;
	struct v4l2_buffer newest_vb;
	for (unsigned round = 0; round <= c->n_bufs; round++) {
		struct v4l2_buffer vb = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
		int err = camera_ioctl(c->fd, VIDIOC_DQBUF, &vb);
		if (err == -EAGAIN)
			break;
		if (err < 0) {
			camera_fail_stream(c, err, "DQBUF");
			return;
		}
		if (vb.index >= c->n_bufs || c->bufs[vb.index].owner != OWNER_NODE) {
			camera_fail_stream(c, -EPROTO, "DQBUF gave a buffer that is not queued");
			return;
		}
		struct camera_buf *b = &c->bufs[vb.index];
		b->owner = OWNER_BRIDGE;
		if (!b->pwb) {
			queue_to_node(c, b); /* no PipeWire buffer for it (yet) */
			continue;
		}
		if (newest)
			queue_to_node(c, newest);
		newest = b;
		newest_vb = vb;
	}
	if (newest) {
		deliver(c, newest, &newest_vb);
		if (newest->owner == OWNER_BRIDGE)
			queue_to_node(c, newest);
		pw_stream_trigger_process(c->stream);
	} else if ((mask & SPA_IO_ERR) && at_node(c)) {
		/* an error with buffers queued and no frame: the queue is broken */
		camera_fail_stream(c, -EIO, "the node's queue");
		return;
	}
	update_watch(c);
}

void camera_on_starved(void *data, uint64_t expirations)
{
	struct bridge_camera *c = data;
	(void)expirations;
	if (c->streaming && c->stream)
		pw_stream_trigger_process(c->stream); /* its process event takes buffers back */
}

void camera_start_stream(struct bridge_camera *c)
{
	if (c->fd < 0 || c->streaming)
		return;
	c->streaming = true;
	c->frames = 0;
	/* buffers first (vb2 takes them before STREAMON), then the stream */
	for (unsigned i = 0; i < c->n_bufs; i++)
		if (c->bufs[i].pwb && c->bufs[i].owner == OWNER_BRIDGE)
			queue_to_node(c, &c->bufs[i]);
	camera_take_free_buffers(c);
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	int err = camera_ioctl(c->fd, VIDIOC_STREAMON, &type);
	if (err < 0) {
		c->streaming = false;
		camera_fail_stream(c, err, "STREAMON");
		return;
	}
	c->io = pw_loop_add_io(c->loop, c->fd, 0, false, on_frame_ready, c);
	c->io_on = false;
	if (!c->io) {
		camera_fail_stream(c, -ENOMEM, "watching the node");
		return;
	}
	update_watch(c);
	c->revive_ms = REVIVE_MS; /* it works: a later failure starts afresh */
	char fcc[5] = { (char)(c->mode.fourcc & 0xff), (char)((c->mode.fourcc >> 8) & 0xff),
			(char)((c->mode.fourcc >> 16) & 0xff), (char)(c->mode.fourcc >> 24), 0 };
	log_info("%s: streaming %s %ux%u at %u/%u fps to PipeWire in %s", c->path, fcc,
		 c->mode.width, c->mode.height, c->mode.fps_num, c->mode.fps_den,
		 c->gave_dmabufs ? "dma-bufs" : "memfds");
}

/* A dma-buf over MMAP buffer index's memory, as VIDIOC_EXPBUF would give
 * (the daemon makes it through /dev/udmabuf), or -errno: -ENOTTY where the
 * daemon makes none (no udmabuf: Debian 12's 6.1 kernel). */
static int fetch_dmabuf(int fd, uint32_t index)
{
	struct v4l2_exportbuffer e = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .index = index,
				       .flags = O_RDONLY | O_CLOEXEC };
	int err = camera_ioctl(fd, UVCUSE_IOC_EXPBUF, &e);
	if (err < 0)
		return err;
	bool ours;
	return uvcuse_fetch_memfd(ioctl, fd, UVCUSE_DMABUF_FLAG | e.reserved[0], 0, &ours);
}

/* The memfd of each of the node's n_bufs buffers, and a dma-buf of each
 * where the daemon makes them: 0, or -errno (no memfd). */
static int take_buffers(struct bridge_camera *c, int fd)
{
	for (unsigned i = 0; i < c->n_bufs; i++)
		c->bufs[i] = (struct camera_buf){ .memfd = -1, .dmabuf = -1 };
	c->dmabufs = true;
	for (unsigned i = 0; i < c->n_bufs; i++) {
		struct v4l2_buffer vb = { .index = i, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
		int err = camera_ioctl(fd, VIDIOC_QUERYBUF, &vb);
		if (err < 0)
			return err;
		bool ours;
		int memfd = uvcuse_fetch_memfd(ioctl, fd, vb.m.offset, vb.length, &ours);
		if (memfd < 0)
			return memfd;
		c->bufs[i].memfd = memfd;
		c->bufs[i].length = vb.length;
		int dmabuf = c->dmabufs ? fetch_dmabuf(fd, i) : -ENOTTY;
		if (dmabuf < 0 && c->dmabufs) {
			log_debug("%s: no dma-buf of buffer %u (%s): memfds only", c->path, i,
				  strerror(-dmabuf));
			c->dmabufs = false;
		}
		c->bufs[i].dmabuf = dmabuf < 0 ? -1 : dmabuf;
	}
	return 0;
}

int camera_configure(struct bridge_camera *c, const struct bridge_mode *m)
{
	camera_release_node(c);
	int fd = camera_open_node(c->path);
	if (fd < 0)
		return fd;
	c->fd = fd;
	struct v4l2_format f = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	f.fmt.pix.pixelformat = m->fourcc;
	f.fmt.pix.width = m->width;
	f.fmt.pix.height = m->height;
	f.fmt.pix.field = V4L2_FIELD_NONE;
	int err = camera_ioctl(fd, VIDIOC_S_FMT, &f);
	if (err < 0)
		return err;
	if (f.fmt.pix.pixelformat != m->fourcc || f.fmt.pix.width != m->width ||
	    f.fmt.pix.height != m->height)
		return -EBUSY; /* another app streams the camera in another mode */
	if (m->fps_num) {
		struct v4l2_streamparm p = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
		p.parm.capture.timeperframe = (struct v4l2_fract){ m->fps_den, m->fps_num };
		err = camera_ioctl(fd, VIDIOC_S_PARM, &p);
		if (err < 0)
			return err;
	}
	struct v4l2_requestbuffers rb = { .count = CAMERA_BUFFERS,
					  .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
	err = camera_ioctl(fd, VIDIOC_REQBUFS, &rb);
	if (err < 0)
		return err;
	if (!rb.count)
		return -ENOMEM;
	c->n_bufs = rb.count < CAMERA_BUFFERS ? rb.count : CAMERA_BUFFERS;
	err = take_buffers(c, fd);
	if (err < 0)
		return err;
	c->mode = *m;
	c->sizeimage = f.fmt.pix.sizeimage;
	c->bytesperline = f.fmt.pix.bytesperline;
	return 0;
}
