/* One uvcuse node as a PipeWire Video/Source node (camera.h).
 *
 * Buffer life: PipeWire owns a buffer until we dequeue it (pw_stream's
 * free list), then we QBUF it to the node; DQBUF hands it back to
 * PipeWire with pw_stream_queue_buffer, and pw_stream_trigger_process
 * runs the graph (we are its driver: the camera's frames are the clock).
 * Consumers map the memfd the daemon writes the frame into. */
#include "camera.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/videodev2.h>
#include <spa/buffer/meta.h>
#include <spa/param/buffers.h>
#include <spa/param/video/format-utils.h>
#include <systemd/sd-device.h>

#include "core/log.h"
#include "client/memfd_fetch.h"
#include "modes.h"
#include "uvcuse/uvcuse.h"

/* Buffers asked of the node; PipeWire's consumers agree on as many or
 * fewer (pipewiresrc keeps a few, the graph one in flight). */
#define CAMERA_BUFFERS 8
/* A daemon that never ends an enumeration is cut short here: per list,
 * in modes offered and in ioctls spent on it all. */
#define ENUM_MAX 256
#define MODES_MAX 1024
#define ENUM_IOCTLS_MAX 20000
/* After an error the node is published again this late (ms), doubling up
 * to REVIVE_MAX_MS while it keeps failing. */
#define REVIVE_MS 500
#define REVIVE_MAX_MS 10000

enum buf_owner {
	OWNER_PIPEWIRE, /* in pw_stream's free list, or with a consumer */
	OWNER_BRIDGE,   /* dequeued from pw_stream, not queued to the node */
	OWNER_NODE,     /* queued to the node (QBUF) */
};

struct camera_buf {
	int memfd;
	uint32_t length;
	struct pw_buffer *pwb; /* NULL until PipeWire adds it */
	enum buf_owner owner;
};

struct bridge_camera {
	char path[PATH_MAX];
	char card[33];
	char name[160];   /* node.name */
	char vendor[8], product[8], serial[128];
	struct pw_core *core;
	struct pw_loop *loop;
	struct pw_stream *stream;
	struct spa_hook listener;
	struct spa_source *revive; /* republishes after an error */
	unsigned revive_ms;
	/* while every buffer is with PipeWire, a cycle of the graph now and
	 * then gives back the ones consumers are done with (a driving
	 * pw_stream recycles them only when it runs) */
	struct spa_source *starved;
	unsigned enum_ioctls;
	struct bridge_modes modes;
	int fd; /* -1 while no format is negotiated */
	struct spa_source *io;
	bool io_on; /* the node's fd is watched (some buffer is queued to it) */
	struct bridge_mode mode;
	uint32_t sizeimage, bytesperline;
	unsigned n_bufs;
	struct camera_buf bufs[CAMERA_BUFFERS];
	bool streaming;
	uint64_t frames;
};

static int xioctl(int fd, unsigned long req, void *arg)
{
	int r;
	do
		r = ioctl(fd, req, arg);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : 0;
}

static int open_node(const char *path)
{
	int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* --- what the camera is ---------------------------------------------- */

/* An enumeration ioctl, within the budget (-E2BIG beyond: a daemon that
 * lists without end does not hold the bridge). */
static int enum_ioctl(struct bridge_camera *c, int fd, unsigned long req, void *arg)
{
	if (++c->enum_ioctls > ENUM_IOCTLS_MAX || c->modes.n >= MODES_MAX)
		return -E2BIG;
	return xioctl(fd, req, arg);
}

static int add_interval(struct bridge_camera *c, uint32_t fourcc, uint32_t w, uint32_t h,
			const struct v4l2_fract *interval)
{
	if (!interval->numerator || !interval->denominator)
		return 0;
	struct bridge_mode m = { .fourcc = fourcc, .width = w, .height = h,
				 .fps_num = interval->denominator, .fps_den = interval->numerator };
	return bridge_modes_add(&c->modes, &m);
}

static int enum_intervals(struct bridge_camera *c, int fd, uint32_t fourcc, uint32_t w, uint32_t h)
{
	for (uint32_t k = 0; k < ENUM_MAX; k++) {
		struct v4l2_frmivalenum fi = { .index = k, .pixel_format = fourcc,
					       .width = w, .height = h };
		int r = enum_ioctl(c, fd, VIDIOC_ENUM_FRAMEINTERVALS, &fi);
		if (r == -E2BIG)
			return r;
		if (r < 0)
			return 0;
		int err = 0;
		if (fi.type == V4L2_FRMIVAL_TYPE_DISCRETE) {
			err = add_interval(c, fourcc, w, h, &fi.discrete);
		} else {
			/* continuous or stepwise: its fastest and slowest rates */
			err = add_interval(c, fourcc, w, h, &fi.stepwise.min);
			if (!err)
				err = add_interval(c, fourcc, w, h, &fi.stepwise.max);
		}
		if (err < 0 || fi.type != V4L2_FRMIVAL_TYPE_DISCRETE)
			return err;
	}
	return 0;
}

static int enum_modes(struct bridge_camera *c, int fd)
{
	for (uint32_t i = 0; i < ENUM_MAX; i++) {
		struct v4l2_fmtdesc fd_ = { .index = i, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
		if (enum_ioctl(c, fd, VIDIOC_ENUM_FMT, &fd_) < 0)
			break;
		if (!bridge_mode_fourcc_known(fd_.pixelformat))
			continue;
		for (uint32_t j = 0; j < ENUM_MAX; j++) {
			struct v4l2_frmsizeenum fs = { .index = j, .pixel_format = fd_.pixelformat };
			if (enum_ioctl(c, fd, VIDIOC_ENUM_FRAMESIZES, &fs) < 0)
				break;
			if (fs.type != V4L2_FRMSIZE_TYPE_DISCRETE) {
				/* UVC cameras list discrete sizes; offer the largest */
				int err = enum_intervals(c, fd, fd_.pixelformat, fs.stepwise.max_width,
							 fs.stepwise.max_height);
				if (err < 0 && err != -E2BIG)
					return err;
				break;
			}
			int err = enum_intervals(c, fd, fd_.pixelformat, fs.discrete.width,
						 fs.discrete.height);
			if (err < 0 && err != -E2BIG)
				return err;
		}
	}
	if (c->enum_ioctls > ENUM_IOCTLS_MAX || c->modes.n >= MODES_MAX)
		log_warn("%s: the node lists too much: %zu modes kept", c->path, c->modes.n);
	return c->modes.n ? 0 : -ENODATA;
}

/* udev's IDs of the node (our rule imports them from `uvcuse
 * --udev-properties`); left empty without udev. */
static void read_identity(struct bridge_camera *c, dev_t rdev)
{
	sd_device *d = NULL;
	if (sd_device_new_from_devnum(&d, 'c', rdev) < 0)
		return;
	const char *v;
	if (sd_device_get_property_value(d, "ID_VENDOR_ID", &v) >= 0)
		snprintf(c->vendor, sizeof(c->vendor), "%s", v);
	if (sd_device_get_property_value(d, "ID_MODEL_ID", &v) >= 0)
		snprintf(c->product, sizeof(c->product), "%s", v);
	if (sd_device_get_property_value(d, "ID_SERIAL", &v) >= 0)
		snprintf(c->serial, sizeof(c->serial), "%s", v);
	sd_device_unref(d);
}

/* Reads what the node offers. -EACCES: not ours to open; -ENOTTY: not a
 * uvcuse capture node. */
static int probe(struct bridge_camera *c)
{
	int fd = open_node(c->path);
	if (fd < 0)
		return fd;
	struct stat st;
	struct v4l2_capability cap;
	struct uvcuse_hello hello;
	memset(&cap, 0, sizeof(cap));
	memset(&hello, 0, sizeof(hello));
	int err = fstat(fd, &st) < 0 ? -errno : 0;
	if (!err && !S_ISCHR(st.st_mode))
		err = -ENOTTY;
	if (!err)
		err = xioctl(fd, VIDIOC_QUERYCAP, &cap);
	uint32_t caps = (cap.capabilities & V4L2_CAP_DEVICE_CAPS) ? cap.device_caps
								   : cap.capabilities;
	if (!err && (!(caps & V4L2_CAP_VIDEO_CAPTURE) || !(caps & V4L2_CAP_STREAMING)))
		err = -ENOTTY;
	/* only uvcuse answers its private HELLO (ENOTTY elsewhere) */
	if (!err && (xioctl(fd, UVCUSE_IOC_HELLO, &hello) < 0 || hello.magic != UVCUSE_MAGIC))
		err = -ENOTTY;
	if (!err)
		err = enum_modes(c, fd);
	close(fd);
	if (err < 0)
		return err;
	memcpy(c->card, cap.card, sizeof(cap.card));
	c->card[sizeof(c->card) - 1] = 0;
	read_identity(c, st.st_rdev);
	const char *base = strrchr(c->path, '/');
	base = base ? base + 1 : c->path;
	/* stable across replugs when the camera has a serial, as PipeWire's
	 * own v4l2 nodes are named after the device */
	if (c->serial[0])
		snprintf(c->name, sizeof(c->name), "uvcuse_input.%s", c->serial);
	else
		snprintf(c->name, sizeof(c->name), "uvcuse_input.%.64s", base);
	return 0;
}

/* --- streaming --------------------------------------------------------- */

static unsigned at_node(const struct bridge_camera *c)
{
	unsigned n = 0;
	for (unsigned i = 0; i < c->n_bufs; i++)
		n += c->bufs[i].owner == OWNER_NODE;
	return n;
}

/* The node's fd is watched only while a buffer is queued to it: a queue
 * with none polls POLLERR (vb2's rule), which must not spin the loop. */
/* A one-shot timer ms from now. */
static void arm_ms(struct pw_loop *loop, struct spa_source *timer, unsigned ms)
{
	struct timespec t = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };
	pw_loop_update_timer(loop, timer, &t, NULL, false);
}

/* A fresh node after revive_ms, later and later while publishing keeps
 * failing. */
static void schedule_revive(struct bridge_camera *c)
{
	arm_ms(c->loop, c->revive, c->revive_ms);
	c->revive_ms = c->revive_ms * 2 > REVIVE_MAX_MS ? REVIVE_MAX_MS : c->revive_ms * 2;
}

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
		arm_ms(c->loop, c->starved, fps ? 1000 / fps : 100);
	} else {
		pw_loop_update_timer(c->loop, c->starved, NULL, NULL, false);
	}
}

static void stop_stream(struct bridge_camera *c)
{
	if (c->io) {
		pw_loop_destroy_source(c->loop, c->io);
		c->io = NULL;
		c->io_on = false;
	}
	if (c->streaming) {
		int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
		int err = xioctl(c->fd, VIDIOC_STREAMOFF, &type);
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

/* Gives the node's buffers back and closes it: the daemon may stop the
 * camera, and leave after an unplug. */
static void release_node(struct bridge_camera *c)
{
	stop_stream(c);
	for (unsigned i = 0; i < c->n_bufs; i++) {
		if (c->bufs[i].memfd >= 0)
			close(c->bufs[i].memfd);
		c->bufs[i] = (struct camera_buf){ .memfd = -1 };
	}
	if (c->fd >= 0) {
		if (c->n_bufs) {
			struct v4l2_requestbuffers rb = { .count = 0,
							  .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
							  .memory = V4L2_MEMORY_MMAP };
			xioctl(c->fd, VIDIOC_REQBUFS, &rb);
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
	int err = xioctl(c->fd, VIDIOC_QBUF, &vb);
	if (err < 0) {
		log_warn("%s: QBUF %u: %s", c->path, vb.index, strerror(-err));
		b->owner = OWNER_BRIDGE;
		return;
	}
	b->owner = OWNER_NODE;
}

/* Takes every buffer consumers are done with; queues them to the node
 * while streaming. */
static void take_free_buffers(struct bridge_camera *c)
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

static void fail_stream(struct bridge_camera *c, int err, const char *what)
{
	log_warn("%s: %s: %s", c->path, what, strerror(-err));
	release_node(c);
	pw_stream_set_error(c->stream, err, "%s: %s", what, strerror(-err));
}

/* Hands one filled buffer to PipeWire. */
static void deliver(struct bridge_camera *c, struct camera_buf *b, const struct v4l2_buffer *vb)
{
	struct spa_buffer *sb = b->pwb->buffer;
	struct spa_chunk *chunk = sb->datas[0].chunk;
	chunk->offset = 0;
	chunk->size = vb->bytesused <= b->length ? vb->bytesused : b->length;
	chunk->stride = (int32_t)c->bytesperline;
	chunk->flags = (vb->flags & V4L2_BUF_FLAG_ERROR) ? SPA_CHUNK_FLAG_CORRUPTED : 0;
	struct spa_meta_header *h = spa_buffer_find_meta_data(sb, SPA_META_Header, sizeof(*h));
	if (h) {
		h->flags = (vb->flags & V4L2_BUF_FLAG_ERROR) ? SPA_META_HEADER_FLAG_CORRUPTED : 0;
		/* the node's timestamps are CLOCK_MONOTONIC, PipeWire's clock */
		h->pts = (int64_t)vb->timestamp.tv_sec * SPA_NSEC_PER_SEC +
			 (int64_t)vb->timestamp.tv_usec * SPA_NSEC_PER_USEC;
		h->dts_offset = 0;
		h->seq = vb->sequence;
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
		fail_stream(c, -ENODEV, "the camera is gone");
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
		int err = xioctl(c->fd, VIDIOC_DQBUF, &vb);
		if (err == -EAGAIN)
			break;
		if (err < 0) {
			fail_stream(c, err, "DQBUF");
			return;
		}
		if (vb.index >= c->n_bufs || c->bufs[vb.index].owner != OWNER_NODE) {
			fail_stream(c, -EPROTO, "DQBUF gave a buffer that is not queued");
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
		fail_stream(c, -EIO, "the node's queue");
		return;
	}
	update_watch(c);
}

static void on_starved(void *data, uint64_t expirations)
{
	struct bridge_camera *c = data;
	(void)expirations;
	if (c->streaming && c->stream)
		pw_stream_trigger_process(c->stream); /* its process event takes buffers back */
}

static void start_stream(struct bridge_camera *c)
{
	if (c->fd < 0 || c->streaming)
		return;
	c->streaming = true;
	c->frames = 0;
	/* buffers first (vb2 takes them before STREAMON), then the stream */
	for (unsigned i = 0; i < c->n_bufs; i++)
		if (c->bufs[i].pwb && c->bufs[i].owner == OWNER_BRIDGE)
			queue_to_node(c, &c->bufs[i]);
	take_free_buffers(c);
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	int err = xioctl(c->fd, VIDIOC_STREAMON, &type);
	if (err < 0) {
		c->streaming = false;
		fail_stream(c, err, "STREAMON");
		return;
	}
	c->io = pw_loop_add_io(c->loop, c->fd, 0, false, on_frame_ready, c);
	c->io_on = false;
	if (!c->io) {
		fail_stream(c, -ENOMEM, "watching the node");
		return;
	}
	update_watch(c);
	c->revive_ms = REVIVE_MS; /* it works: a later failure starts afresh */
	char fcc[5] = { (char)(c->mode.fourcc & 0xff), (char)((c->mode.fourcc >> 8) & 0xff),
			(char)((c->mode.fourcc >> 16) & 0xff), (char)(c->mode.fourcc >> 24), 0 };
	log_info("%s: streaming %s %ux%u at %u/%u fps to PipeWire", c->path, fcc, c->mode.width,
		 c->mode.height, c->mode.fps_num, c->mode.fps_den);
}

/* S_FMT, S_PARM and buffers for a negotiated mode. */
static int configure(struct bridge_camera *c, const struct bridge_mode *m)
{
	release_node(c);
	int fd = open_node(c->path);
	if (fd < 0)
		return fd;
	c->fd = fd;
	struct v4l2_format f = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	f.fmt.pix.pixelformat = m->fourcc;
	f.fmt.pix.width = m->width;
	f.fmt.pix.height = m->height;
	f.fmt.pix.field = V4L2_FIELD_NONE;
	int err = xioctl(fd, VIDIOC_S_FMT, &f);
	if (err < 0)
		return err;
	if (f.fmt.pix.pixelformat != m->fourcc || f.fmt.pix.width != m->width ||
	    f.fmt.pix.height != m->height)
		return -EBUSY; /* another app streams the camera in another mode */
	if (m->fps_num) {
		struct v4l2_streamparm p = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
		p.parm.capture.timeperframe = (struct v4l2_fract){ m->fps_den, m->fps_num };
		err = xioctl(fd, VIDIOC_S_PARM, &p);
		if (err < 0)
			return err;
	}
	struct v4l2_requestbuffers rb = { .count = CAMERA_BUFFERS,
					  .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
	err = xioctl(fd, VIDIOC_REQBUFS, &rb);
	if (err < 0)
		return err;
	if (!rb.count)
		return -ENOMEM;
	c->n_bufs = rb.count < CAMERA_BUFFERS ? rb.count : CAMERA_BUFFERS;
	for (unsigned i = 0; i < c->n_bufs; i++)
		c->bufs[i] = (struct camera_buf){ .memfd = -1 };
	for (unsigned i = 0; i < c->n_bufs; i++) {
		struct v4l2_buffer vb = { .index = i, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					  .memory = V4L2_MEMORY_MMAP };
		err = xioctl(fd, VIDIOC_QUERYBUF, &vb);
		if (err < 0)
			return err;
		bool ours;
		int memfd = uvcuse_fetch_memfd(ioctl, fd, vb.m.offset, vb.length, &ours);
		if (memfd < 0)
			return memfd;
		c->bufs[i].memfd = memfd;
		c->bufs[i].length = vb.length;
	}
	c->mode = *m;
	c->sizeimage = f.fmt.pix.sizeimage;
	c->bytesperline = f.fmt.pix.bytesperline;
	return 0;
}

/* --- the pw_stream's events -------------------------------------------- */

static void on_param_changed(void *data, uint32_t id, const struct spa_pod *param)
{
	struct bridge_camera *c = data;
	if (id != SPA_PARAM_Format)
		return;
	if (!param) {
		/* no consumer any more: let the camera go */
		release_node(c);
		return;
	}
	struct bridge_mode m;
	if (bridge_mode_from_format(param, &m) < 0) {
		pw_stream_set_error(c->stream, -EINVAL, "not a format this camera offers");
		return;
	}
	if (bridge_modes_find(&c->modes, &m) < 0 && m.fourcc == V4L2_PIX_FMT_MJPEG) {
		/* SPA has one name for both: the camera's own is JPEG */
		m.fourcc = V4L2_PIX_FMT_JPEG;
		if (bridge_modes_find(&c->modes, &m) < 0)
			m.fourcc = V4L2_PIX_FMT_MJPEG;
	}
	int err = configure(c, &m);
	if (err < 0) {
		fail_stream(c, err, "setting the format");
		return;
	}
	uint8_t space[1024];
	struct spa_pod_builder b = SPA_POD_BUILDER_INIT(space, sizeof(space));
	const struct spa_pod *params[2];
	params[0] = spa_pod_builder_add_object(
		&b, SPA_TYPE_OBJECT_ParamBuffers, SPA_PARAM_Buffers, SPA_PARAM_BUFFERS_buffers,
		SPA_POD_CHOICE_RANGE_Int((int)c->n_bufs, 1, (int)c->n_bufs),
		SPA_PARAM_BUFFERS_blocks, SPA_POD_Int(1), SPA_PARAM_BUFFERS_size,
		SPA_POD_Int((int)c->sizeimage), SPA_PARAM_BUFFERS_stride,
		SPA_POD_Int((int)c->bytesperline), SPA_PARAM_BUFFERS_dataType,
		SPA_POD_CHOICE_FLAGS_Int(1 << SPA_DATA_MemFd));
	params[1] = spa_pod_builder_add_object(&b, SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta,
					       SPA_PARAM_META_type, SPA_POD_Id(SPA_META_Header),
					       SPA_PARAM_META_size,
					       SPA_POD_Int(sizeof(struct spa_meta_header)));
	pw_stream_update_params(c->stream, params, 2);
}

static void on_add_buffer(void *data, struct pw_buffer *pwb)
{
	struct bridge_camera *c = data;
	struct spa_data *d = &pwb->buffer->datas[0];
	pwb->user_data = NULL;
	for (unsigned i = 0; i < c->n_bufs; i++) {
		struct camera_buf *b = &c->bufs[i];
		if (b->pwb || b->memfd < 0 || b->owner == OWNER_NODE)
			continue;
		b->pwb = pwb;
		b->owner = OWNER_PIPEWIRE;
		pwb->user_data = b;
		d->type = SPA_DATA_MemFd;
		d->flags = SPA_DATA_FLAG_READABLE;
		d->fd = b->memfd;
		d->mapoffset = 0;
		d->maxsize = b->length;
		d->data = NULL; /* never touched here: the daemon writes, consumers read */
		return;
	}
	log_warn("%s: PipeWire wants more buffers than the node gave (%u)", c->path, c->n_bufs);
}

static void on_remove_buffer(void *data, struct pw_buffer *pwb)
{
	(void)data;
	struct camera_buf *b = pwb->user_data;
	if (b && b->pwb == pwb) {
		b->pwb = NULL;
		/* one still queued to the node stays so until DQBUF or STREAMOFF */
		if (b->owner != OWNER_NODE)
			b->owner = OWNER_PIPEWIRE;
	}
}

static void on_process(void *data)
{
	take_free_buffers(data);
}

static void on_state_changed(void *data, enum pw_stream_state old, enum pw_stream_state state,
			     const char *error)
{
	struct bridge_camera *c = data;
	(void)old;
	log_debug("%s: stream %s%s%s", c->path, pw_stream_state_as_string(state),
		  error ? ": " : "", error ? error : "");
	if (state == PW_STREAM_STATE_STREAMING) {
		start_stream(c);
		return;
	}
	stop_stream(c);
	if (state == PW_STREAM_STATE_ERROR) {
		/* this stream is dead; a fresh node serves the next consumer */
		schedule_revive(c);
	}
}

static const struct pw_stream_events stream_events = {
	PW_VERSION_STREAM_EVENTS,
	.state_changed = on_state_changed,
	.param_changed = on_param_changed,
	.add_buffer = on_add_buffer,
	.remove_buffer = on_remove_buffer,
	.process = on_process,
};

static int publish(struct bridge_camera *c)
{
	struct pw_properties *props = pw_properties_new(
		PW_KEY_MEDIA_CLASS, "Video/Source", PW_KEY_MEDIA_ROLE, "Camera",
		PW_KEY_MEDIA_CATEGORY, "Capture", PW_KEY_NODE_NAME, c->name,
		PW_KEY_NODE_DESCRIPTION, c->card, PW_KEY_NODE_NICK, c->card,
		PW_KEY_MEDIA_NAME, c->card, PW_KEY_OBJECT_PATH, c->path, "api.v4l2.path",
		c->path, "device.api", "v4l2", NULL);
	if (!props)
		return -ENOMEM;
	if (c->vendor[0])
		pw_properties_setf(props, PW_KEY_DEVICE_VENDOR_ID, "0x%s", c->vendor);
	if (c->product[0])
		pw_properties_setf(props, PW_KEY_DEVICE_PRODUCT_ID, "0x%s", c->product);
	if (c->serial[0])
		pw_properties_set(props, PW_KEY_DEVICE_SERIAL, c->serial);
	c->stream = pw_stream_new(c->core, c->card, props);
	if (!c->stream)
		return -errno;
	pw_stream_add_listener(c->stream, &c->listener, &stream_events, c);
	/* one fixed format per mode; ~100 bytes each */
	size_t cap = c->modes.n * 160 + 256;
	uint8_t *space = malloc(cap);
	const struct spa_pod **params = calloc(c->modes.n, sizeof(*params));
	int err = -ENOMEM;
	if (space && params) {
		struct spa_pod_builder b = SPA_POD_BUILDER_INIT(space, (uint32_t)cap);
		uint32_t n = 0;
		for (size_t i = 0; i < c->modes.n; i++) {
			const struct spa_pod *p = bridge_mode_enum_format(&b, &c->modes.v[i]);
			if (p)
				params[n++] = p;
		}
		err = pw_stream_connect(c->stream, PW_DIRECTION_OUTPUT, PW_ID_ANY,
					PW_STREAM_FLAG_DRIVER | PW_STREAM_FLAG_ALLOC_BUFFERS,
					params, n);
		if (err >= 0)
			log_info("%s: published as PipeWire node %s (\"%s\", %u modes)", c->path,
				 c->name, c->card, n);
	}
	free(space);
	free(params);
	return err < 0 ? err : 0;
}

static void unpublish(struct bridge_camera *c)
{
	if (!c->stream)
		return;
	spa_hook_remove(&c->listener);
	release_node(c);
	pw_stream_destroy(c->stream);
	c->stream = NULL;
}

static void on_revive(void *data, uint64_t expirations)
{
	struct bridge_camera *c = data;
	(void)expirations;
	unpublish(c);
	int err = publish(c);
	if (err < 0) {
		log_warn("%s: publishing again: %s; next try in %u ms", c->path, strerror(-err),
			 c->revive_ms);
		schedule_revive(c);
	}
}

int bridge_camera_new(struct pw_core *core, struct pw_loop *loop, const char *path,
		      struct bridge_camera **out)
{
	struct bridge_camera *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->fd = -1;
	c->core = core;
	c->loop = loop;
	snprintf(c->path, sizeof(c->path), "%s", path);
	for (unsigned i = 0; i < CAMERA_BUFFERS; i++)
		c->bufs[i].memfd = -1;
	int err = probe(c);
	if (err < 0) {
		if (err == -EACCES || err == -ENOTTY || err == -EPERM)
			log_debug("%s: not published: %s", path, strerror(-err));
		else
			log_warn("%s: not published: %s", path, strerror(-err));
		bridge_modes_clear(&c->modes);
		free(c);
		return err;
	}
	c->revive_ms = REVIVE_MS;
	c->revive = pw_loop_add_timer(loop, on_revive, c);
	c->starved = pw_loop_add_timer(loop, on_starved, c);
	err = c->revive && c->starved ? publish(c) : -ENOMEM;
	if (err < 0) {
		log_warn("%s: publishing: %s", path, strerror(-err));
		bridge_camera_free(c);
		return err;
	}
	*out = c;
	return 0;
}

void bridge_camera_free(struct bridge_camera *c)
{
	if (!c)
		return;
	unpublish(c);
	if (c->revive)
		pw_loop_destroy_source(c->loop, c->revive);
	if (c->starved)
		pw_loop_destroy_source(c->loop, c->starved);
	log_info("%s: node removed", c->path);
	bridge_modes_clear(&c->modes);
	free(c);
}

const char *bridge_camera_path(const struct bridge_camera *c)
{
	return c->path;
}
