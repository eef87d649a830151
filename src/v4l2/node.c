#include "v4l2/node.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/usb/video.h>

/* V4L2 priorities as the core keeps them (v4l2-dev.c v4l2_prio_*): every
 * open file starts at DEFAULT; ioctls that change state need a priority at
 * least the highest one held. */
static bool prio_valid(uint32_t p)
{
	return p == V4L2_PRIORITY_BACKGROUND || p == V4L2_PRIORITY_INTERACTIVE ||
	       p == V4L2_PRIORITY_RECORD;
}

static enum v4l2_priority prio_max(const struct node *n)
{
	for (int p = V4L2_PRIORITY_RECORD; p > V4L2_PRIORITY_UNSET; p--)
		if (n->prios[p])
			return p;
	return V4L2_PRIORITY_UNSET;
}

static int prio_check(const struct node *n, const struct node_file *f)
{
	return f->prio < prio_max(n) ? -EBUSY : 0;
}

static void prio_set(struct node *n, struct node_file *f, enum v4l2_priority p)
{
	if (prio_valid(f->prio))
		n->prios[f->prio]--;
	f->prio = p;
	if (prio_valid(p))
		n->prios[p]++;
}

static const struct uvc_frame *find_frame(const struct uvc_format *format, uint8_t index)
{
	for (unsigned i = 0; i < format->n_frames; i++)
		if (format->frames[i].index == index)
			return &format->frames[i];
	return NULL;
}

static const struct uvc_format *find_format(const struct uvc_streaming *s, uint8_t index)
{
	for (unsigned i = 0; i < s->n_formats; i++)
		if (s->formats[i].index == index && s->formats[i].fourcc)
			return &s->formats[i];
	return NULL;
}

/* The frame of the camera's start-up probe, as uvc_video_init picks it:
 * an unknown format index falls back to the first format, an unknown frame
 * index to the format's default frame (or its first). */
static void adopt_probe(struct node *n, const struct uvc_probe *probe)
{
	const struct uvc_format *format = find_format(n->stream, probe->format_index);
	if (!format)
		format = fmt_at(n->stream, 0);
	const struct uvc_frame *frame = find_frame(format, probe->frame_index);
	if (!frame)
		frame = find_frame(format, format->default_frame);
	if (!frame)
		frame = &format->frames[0];
	n->format = format;
	n->frame = frame;
	n->probe = *probe;
	n->probe.format_index = format->index;
	n->probe.frame_index = frame->index;
	if (!n->probe.interval)
		n->probe.interval = fmt_default_interval(frame);
	if (!n->probe.max_video_frame_size)
		n->probe.max_video_frame_size = fmt_frame_buffer_size(format, frame);
	vq_set_sizeimage(&n->queue, n->probe.max_video_frame_size);
}

int node_init(struct node *n, const struct uvc_camera *camera, const struct node_identity *id,
	      const struct uvc_probe *probe, const struct node_ops *ops, void *dev,
	      const struct vq_mem_ops *mem_ops, void *mem_data)
{
	memset(n, 0, sizeof(*n));
	if (!camera->n_streams || !fmt_count(&camera->streams[0]))
		return -EINVAL;
	n->camera = camera;
	n->stream = &camera->streams[0];
	n->id = *id;
	n->ops = ops;
	n->dev = dev;
	n->read_buffers = 4;
	n->max_userptr_copy = UINT32_MAX;
	vq_init(&n->queue, mem_ops, mem_data);
	adopt_probe(n, probe);
	n->def_format = n->format;
	return 0;
}

void node_destroy(struct node *n)
{
	if (n->queue.streaming)
		n->ops->stream_off(n->dev);
	vq_destroy(&n->queue);
}

void node_open(struct node *n, struct node_file *f)
{
	memset(f, 0, sizeof(*f));
	prio_set(n, f, V4L2_PRIORITY_DEFAULT);
}

/* The queue stopped streaming by itself (REQBUFS, release, read restart):
 * the camera must stop too. */
static void follow_queue(struct node *n, bool was_streaming)
{
	if (was_streaming && !n->queue.streaming)
		n->ops->stream_off(n->dev);
}

void node_release(struct node *n, struct node_file *f)
{
	bool was = n->queue.streaming;
	if (n->queue.owner == f && was)
		n->ops->stream_off(n->dev);
	vq_release(&n->queue, f);
	follow_queue(n, was && n->queue.owner == f);
	prio_set(n, f, V4L2_PRIORITY_UNSET);
}

static int querycap(struct node *n, struct v4l2_capability *cap)
{
	memset(cap, 0, sizeof(*cap));
	strncpy((char *)cap->driver, "uvcuse", sizeof(cap->driver) - 1);
	memcpy(cap->card, n->id.card, sizeof(cap->card));
	cap->card[sizeof(cap->card) - 1] = 0;
	memcpy(cap->bus_info, n->id.bus_info, sizeof(cap->bus_info));
	cap->bus_info[sizeof(cap->bus_info) - 1] = 0;
	cap->version = n->id.version;
	cap->device_caps = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING | V4L2_CAP_READWRITE |
			   V4L2_CAP_EXT_PIX_FORMAT;
	cap->capabilities = cap->device_caps | V4L2_CAP_DEVICE_CAPS;
	return 0;
}

/* The input terminal the stream's chain starts from (no selector unit
 * support yet: uvcvideo's single-input case). */
static const struct uvc_entity *input_terminal(const struct node *n)
{
	for (unsigned i = 0; i < n->camera->n_entities; i++)
		if (n->camera->entities[i].kind == UVC_ENTITY_INPUT_TERMINAL)
			return &n->camera->entities[i];
	return NULL;
}

static int enum_input(struct node *n, struct v4l2_input *in)
{
	uint32_t index = in->index;
	const struct uvc_entity *it = input_terminal(n);
	if (index != 0 || !it)
		return -EINVAL;
	memset(in, 0, sizeof(*in));
	in->index = index;
	/* uvcvideo names terminals without a string "Camera N" / "Media N" /
	 * "Input N" after their ID. */
	const char *kind = it->type == UVC_ITT_CAMERA ? "Camera" :
			   it->type == UVC_ITT_MEDIA_TRANSPORT_INPUT ? "Media" : "Input";
	snprintf((char *)in->name, sizeof(in->name), "%s %u", kind, it->id);
	if (it->type == UVC_ITT_CAMERA)
		in->type = V4L2_INPUT_TYPE_CAMERA;
	return 0;
}

/* TRY_FMT as uvc_v4l2_try_format: the choice from the descriptors, then a
 * probe with the camera, whose answer (format, frame, dwMaxVideoFrameSize)
 * is what the app sees. While streaming the probe control belongs to the
 * running stream, so the answer comes from the descriptors alone. */
static int try_format(struct node *n, struct v4l2_format *fmt, struct uvc_probe *out)
{
	struct fmt_choice choice;
	int err = fmt_try(n->stream, n->def_format, fmt, &choice);
	if (err)
		return err;
	struct uvc_probe want = { 0 };
	want.hint = 1; /* keep dwFrameInterval */
	want.format_index = choice.format->index;
	want.frame_index = choice.frame->index;
	want.interval = choice.interval;
	if (n->queue.streaming) {
		*out = want;
		out->max_video_frame_size = fmt_frame_buffer_size(choice.format, choice.frame);
		if (!out->max_video_frame_size)
			out->max_video_frame_size = n->probe.max_video_frame_size;
	} else {
		err = n->ops->probe(n->dev, &want, out);
		if (err)
			return err;
	}
	/* Cameras may answer other indexes; unknown ones mean "as asked". */
	const struct uvc_format *format = find_format(n->stream, out->format_index);
	if (!format)
		format = choice.format;
	const struct uvc_frame *frame = find_frame(format, out->frame_index);
	if (!frame)
		frame = format == choice.format ? choice.frame : &format->frames[0];
	out->format_index = format->index;
	out->frame_index = frame->index;
	if (!out->interval)
		out->interval = choice.interval;
	fmt_fill_pix(&fmt->fmt.pix, format, frame, out->max_video_frame_size);
	return 0;
}

static int g_fmt(struct node *n, struct v4l2_format *fmt)
{
	if (fmt->type != V4L2_BUF_TYPE_VIDEO_CAPTURE)
		return -EINVAL;
	memset(&fmt->fmt, 0, sizeof(fmt->fmt));
	fmt_fill_pix(&fmt->fmt.pix, n->format, n->frame, n->probe.max_video_frame_size);
	fmt->fmt.pix.priv = V4L2_PIX_FMT_PRIV_MAGIC;
	return 0;
}

static int s_fmt(struct node *n, struct node_file *f, struct v4l2_format *fmt)
{
	if (fmt->type != V4L2_BUF_TYPE_VIDEO_CAPTURE)
		return -EINVAL;
	int err = prio_check(n, f);
	if (err)
		return err;
	/* vb2_is_busy: buffers exist (whoever owns them) */
	if (n->queue.n_buffers || n->queue.streaming)
		return -EBUSY;
	struct uvc_probe probe;
	err = try_format(n, fmt, &probe);
	if (err)
		return err;
	adopt_probe(n, &probe);
	return 0;
}

static void fill_parm(const struct node *n, struct v4l2_streamparm *parm)
{
	uint32_t type = parm->type;
	memset(parm, 0, sizeof(*parm));
	parm->type = type;
	parm->parm.capture.capability = V4L2_CAP_TIMEPERFRAME;
	parm->parm.capture.timeperframe = fmt_interval_fract(n->probe.interval);
	/* uvcvideo says 0; with read() supported the spec wants the count */
	parm->parm.capture.readbuffers = n->read_buffers;
}

static int g_parm(struct node *n, struct v4l2_streamparm *parm)
{
	if (parm->type != V4L2_BUF_TYPE_VIDEO_CAPTURE)
		return -EINVAL;
	fill_parm(n, parm);
	return 0;
}

static int s_parm(struct node *n, struct node_file *f, struct v4l2_streamparm *parm)
{
	if (parm->type != V4L2_BUF_TYPE_VIDEO_CAPTURE)
		return -EINVAL;
	int err = prio_check(n, f);
	if (err)
		return err;
	if (n->queue.streaming)
		return -EBUSY;
	struct v4l2_fract t = parm->parm.capture.timeperframe;
	struct uvc_probe want = n->probe, got;
	want.interval = fmt_try_interval(n->frame, fmt_fract_to_interval(t.numerator, t.denominator));
	err = n->ops->probe(n->dev, &want, &got);
	if (err)
		return err;
	/* keep our format if the camera answers nonsense indexes */
	got.format_index = n->format->index;
	got.frame_index = n->frame->index;
	if (!got.interval)
		got.interval = want.interval;
	adopt_probe(n, &got);
	fill_parm(n, parm);
	return 0;
}

static int streamon(struct node *n, struct node_file *f, const int *type)
{
	int err = prio_check(n, f);
	if (err)
		return err;
	bool was = n->queue.streaming;
	err = vq_streamon(&n->queue, f, *type);
	if (err || was)
		return err;
	err = n->ops->stream_on(n->dev, &n->probe);
	if (err)
		vq_streamon_failed(&n->queue);
	return err;
}

static int streamoff(struct node *n, struct node_file *f, const int *type)
{
	int err = prio_check(n, f);
	if (err)
		return err;
	/* the queue decides (it refuses during read() emulation); the camera
	 * stops only when the queue did */
	bool was = n->queue.streaming;
	err = vq_streamoff(&n->queue, f, *type);
	if (!err && was)
		n->ops->stream_off(n->dev);
	return err;
}

int node_ioctl(struct node *n, struct node_file *f, unsigned int cmd, void *arg, bool nonblock,
	       const void **data, size_t *data_len)
{
	struct vq *q = &n->queue;
	bool was = q->streaming;
	int err;

	switch (cmd) {
	case VIDIOC_QUERYCAP:
		return querycap(n, arg);
	case VIDIOC_G_PRIORITY:
		*(uint32_t *)arg = prio_max(n);
		return 0;
	case VIDIOC_S_PRIORITY: {
		uint32_t p = *(uint32_t *)arg;
		err = prio_check(n, f);
		if (err)
			return err;
		if (!prio_valid(p))
			return -EINVAL;
		prio_set(n, f, p);
		return 0;
	}
	case VIDIOC_ENUMINPUT:
		return enum_input(n, arg);
	case VIDIOC_G_INPUT:
		*(int *)arg = 0;
		return 0;
	case VIDIOC_S_INPUT:
		err = prio_check(n, f);
		if (err)
			return err;
		return *(unsigned *)arg == 0 ? 0 : -EINVAL;
	case VIDIOC_ENUM_FMT:
		return fmt_enum(n->stream, arg);
	case VIDIOC_ENUM_FRAMESIZES:
		return fmt_enum_framesizes(n->stream, arg);
	case VIDIOC_ENUM_FRAMEINTERVALS:
		return fmt_enum_frameintervals(n->stream, arg);
	case VIDIOC_G_FMT:
		return g_fmt(n, arg);
	case VIDIOC_TRY_FMT: {
		struct uvc_probe probe;
		return try_format(n, arg, &probe);
	}
	case VIDIOC_S_FMT:
		return s_fmt(n, f, arg);
	case VIDIOC_G_PARM:
		return g_parm(n, arg);
	case VIDIOC_S_PARM:
		return s_parm(n, f, arg);
	case VIDIOC_REQBUFS:
		err = prio_check(n, f);
		if (!err)
			err = vq_reqbufs(q, f, arg);
		follow_queue(n, was);
		return err;
	case VIDIOC_CREATE_BUFS:
		err = prio_check(n, f);
		if (err)
			return err;
		return vq_create_bufs(q, f, arg, ((struct v4l2_create_buffers *)arg)->format.fmt.pix.sizeimage);
	case VIDIOC_QUERYBUF:
		return vq_querybuf(q, arg);
	case VIDIOC_PREPARE_BUF:
		return vq_prepare_buf(q, f, arg);
	case VIDIOC_QBUF:
		err = vq_qbuf(q, f, arg);
		if (!err && q->streaming)
			n->ops->buffer_queued(n->dev);
		return err;
	case VIDIOC_DQBUF: {
		struct vq_buffer *b = NULL;
		err = vq_dqbuf(q, f, arg, &b);
		if (err == -EAGAIN && !nonblock)
			return NODE_WAIT;
		if (!err && q->memory == V4L2_MEMORY_USERPTR) {
			/* the frame goes into the app's memory with the reply; one
			 * that cannot stays first in line instead of being lost */
			if (b->bytesused > n->max_userptr_copy) {
				vq_undo_dqbuf(q, b);
				return -E2BIG;
			}
			if (data) {
				*data = b->mem;
				*data_len = b->bytesused;
			}
		}
		return err;
	}
	case VIDIOC_STREAMON:
		return streamon(n, f, arg);
	case VIDIOC_STREAMOFF:
		return streamoff(n, f, arg);
	default:
		return -ENOTTY;
	}
}

/* read(): vb2's emulation over the same queue. */
int node_read(struct node *n, struct node_file *f, size_t size, bool first_chunk, bool nonblock,
	      const uint8_t **data, size_t *len)
{
	struct vq *q = &n->queue;
	*data = NULL;
	*len = 0;
	if (!first_chunk && !f->in_read)
		return 0; /* the frame ended with the previous chunk */
	if (first_chunk) {
		f->in_read = false;
		if (vq_is_busy(q, f))
			return -EBUSY;
		if (q->memory != VQ_MEMORY_READ) {
			int err = vq_read_start(q, f, n->read_buffers);
			if (err)
				return err;
			err = n->ops->stream_on(n->dev, &n->probe);
			if (err) {
				vq_release(q, f);
				return err;
			}
		}
	}
	struct vq_buffer *b;
	const uint8_t *p;
	size_t left;
	int err = vq_read_peek(q, f, &p, &left, &b);
	if (err == -EAGAIN) {
		if (!first_chunk)
			return 0;
		return nonblock ? -EAGAIN : NODE_WAIT;
	}
	if (err)
		return err;
	*data = p;
	*len = left < size ? left : size;
	return 0;
}

void node_read_done(struct node *n, struct node_file *f, size_t len)
{
	struct vq *q = &n->queue;
	struct vq_buffer *b;
	const uint8_t *p;
	size_t left;
	if (vq_read_peek(q, f, &p, &left, &b))
		return;
	vq_read_consume(q, b, len);
	/* more of this frame goes to the next chunk of the same read() call */
	f->in_read = len < left;
	if (!f->in_read)
		n->ops->buffer_queued(n->dev);
}

unsigned node_poll(struct node *n, struct node_file *f)
{
	struct vq *q = &n->queue;
	/* vb2_poll starts read() emulation for a poller of an idle queue */
	if (!q->owner && !q->n_buffers && !q->streaming) {
		if (!vq_read_start(q, f, n->read_buffers) && n->ops->stream_on(n->dev, &n->probe))
			vq_release(q, f);
	}
	return vq_poll(q, f);
}
