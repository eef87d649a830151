/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A camera's metadata capture node (meta_node.h). */
#include "v4l2/meta_node.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "uvc/metadata.h"

#define META V4L2_BUF_TYPE_META_CAPTURE
#define META_DEVICE_CAPS (V4L2_CAP_META_CAPTURE | V4L2_CAP_STREAMING | V4L2_CAP_EXT_PIX_FORMAT)

void meta_node_init(struct meta_node *m, const struct meta_node_config *cfg)
{
	memset(m, 0, sizeof(*m));
	vq_init(&m->queue, cfg->mem_ops, cfg->mem_data);
	vq_set_type(&m->queue, META);
	m->prios = cfg->prios;
	snprintf((char *)m->cap.driver, sizeof(m->cap.driver), "uvcuse");
	snprintf((char *)m->cap.card, sizeof(m->cap.card), "%s", cfg->card);
	snprintf((char *)m->cap.bus_info, sizeof(m->cap.bus_info), "%s", cfg->bus_info);
	m->cap.version = cfg->version;
	m->cap.device_caps = META_DEVICE_CAPS;
	/* the camera's whole: its video node's and this one's (chain->caps) */
	m->cap.capabilities = cfg->video_caps | META_DEVICE_CAPS | V4L2_CAP_DEVICE_CAPS;
	m->formats[m->n_formats++] = V4L2_META_FMT_UVC;
	if (cfg->msxu)
		m->formats[m->n_formats++] = V4L2_META_FMT_UVC_MSXU_1_5;
	m->format = V4L2_META_FMT_UVC;
	m->buffersize = META_BUFFERSIZE_MIN;
	m->input = cfg->input;
	m->input.index = 0;
	vq_set_sizeimage(&m->queue, m->buffersize);
}

void meta_node_destroy(struct meta_node *m)
{
	vq_destroy(&m->queue);
}

void meta_node_open(struct meta_node *m, struct meta_file *f)
{
	f->prio = V4L2_PRIORITY_UNSET;
	prio_change(m->prios, &f->prio, V4L2_PRIORITY_DEFAULT);
}

void meta_node_release(struct meta_node *m, struct meta_file *f)
{
	vq_release(&m->queue, f);
	prio_change(m->prios, &f->prio, V4L2_PRIORITY_UNSET);
}

/* --- formats -------------------------------------------------------------- */

static int enum_fmt(const struct meta_node *m, struct v4l2_fmtdesc *d)
{
	if (d->type != META || d->index >= m->n_formats)
		return -EINVAL;
	uint32_t index = d->index, fourcc = m->formats[index];
	memset(d, 0, sizeof(*d));
	d->index = index;
	d->type = META;
	d->pixelformat = fourcc;
	snprintf((char *)d->description, sizeof(d->description), "%s",
		 fourcc == V4L2_META_FMT_UVC ? "UVC Payload Header Metadata" : "UVC MSXU Metadata");
	return 0;
}

/* TRY_FMT's answer: a format the node offers (else UVCH), a buffer size
 * from the least up (7.1), to our ceiling. */
static int try_fmt(const struct meta_node *m, struct v4l2_format *f)
{
	if (f->type != META)
		return -EINVAL;
	uint32_t want = f->fmt.meta.dataformat, size = f->fmt.meta.buffersize, format = 0;
	for (unsigned i = 0; i < m->n_formats; i++)
		if (m->formats[i] == want)
			format = want;
	memset(&f->fmt, 0, sizeof(f->fmt));
	f->fmt.meta.dataformat = format ? format : V4L2_META_FMT_UVC;
	f->fmt.meta.buffersize = size < META_BUFFERSIZE_MIN ? META_BUFFERSIZE_MIN :
				 size > META_BUFFERSIZE_MAX ? META_BUFFERSIZE_MAX :
							      size;
	return 0;
}

static int g_fmt(const struct meta_node *m, struct v4l2_format *f)
{
	if (f->type != META)
		return -EINVAL;
	memset(&f->fmt, 0, sizeof(f->fmt));
	f->fmt.meta.dataformat = m->format;
	f->fmt.meta.buffersize = m->buffersize;
	return 0;
}

/* S_FMT: not while the queue has buffers (7.x: the meta queue busy). */
static int s_fmt(struct meta_node *m, struct v4l2_format *f)
{
	int err = try_fmt(m, f);
	if (err)
		return err;
	if (m->queue.n_buffers)
		return -EBUSY;
	m->format = f->fmt.meta.dataformat;
	m->buffersize = f->fmt.meta.buffersize;
	vq_set_sizeimage(&m->queue, m->buffersize);
	return 0;
}

/* --- the ioctls ------------------------------------------------------------ */

static int querycap(const struct meta_node *m, struct v4l2_capability *cap)
{
	*cap = m->cap;
	return 0;
}

static int enum_input(const struct meta_node *m, struct v4l2_input *in)
{
	if (in->index != 0)
		return -EINVAL;
	*in = m->input;
	return 0;
}

static int s_input(const uint32_t *index)
{
	return *index == 0 ? 0 : -EINVAL;
}

static int dqbuf(struct meta_node *m, struct meta_file *f, struct v4l2_buffer *b, bool nonblock,
		 struct vq_buffer **dequeued)
{
	int err = vq_dqbuf(&m->queue, f, b, dequeued);
	return err == -EAGAIN && !nonblock ? NODE_WAIT : err;
}

static int create_bufs(struct meta_node *m, struct meta_file *f, struct v4l2_create_buffers *cb)
{
	return vq_create_bufs(&m->queue, f, cb, cb->format.type == META ? cb->format.fmt.meta.buffersize : 0);
}

/* What needs a priority at least the highest held (the core's
 * INFO_FL_PRIO): S_FMT, REQBUFS, CREATE_BUFS, STREAMON, STREAMOFF. */
static bool needs_prio(unsigned cmd)
{
	return cmd == VIDIOC_S_FMT || cmd == VIDIOC_REQBUFS || cmd == VIDIOC_CREATE_BUFS ||
	       cmd == VIDIOC_STREAMON || cmd == VIDIOC_STREAMOFF || cmd == VIDIOC_S_PRIORITY ||
	       cmd == VIDIOC_S_INPUT;
}

static int s_priority(struct meta_node *m, struct meta_file *f, const uint32_t *p)
{
	if (!prio_valid(*p))
		return -EINVAL;
	prio_change(m->prios, &f->prio, *p);
	return 0;
}

static const unsigned meta_ioctls[] = {
	VIDIOC_QUERYCAP, VIDIOC_ENUM_FMT,   VIDIOC_G_FMT,	VIDIOC_TRY_FMT,
	VIDIOC_S_FMT,	 VIDIOC_REQBUFS,    VIDIOC_CREATE_BUFS, VIDIOC_QUERYBUF,
	VIDIOC_PREPARE_BUF, VIDIOC_QBUF,    VIDIOC_DQBUF,	VIDIOC_STREAMON,
	VIDIOC_STREAMOFF, VIDIOC_G_PRIORITY, VIDIOC_S_PRIORITY, VIDIOC_ENUMINPUT,
	VIDIOC_G_INPUT,	 VIDIOC_S_INPUT,
};

const unsigned *meta_node_commands(size_t *count)
{
	*count = sizeof(meta_ioctls) / sizeof(meta_ioctls[0]);
	return meta_ioctls;
}

int meta_node_ioctl(struct meta_node *m, struct meta_file *f, unsigned cmd, void *arg,
		    bool nonblock, struct vq_buffer **dequeued)
{
	if (needs_prio(cmd) && prio_check(m->prios, f->prio))
		return -EBUSY;
	switch (cmd) {
	case VIDIOC_QUERYCAP: return querycap(m, arg);
	case VIDIOC_ENUM_FMT: return enum_fmt(m, arg);
	case VIDIOC_G_FMT: return g_fmt(m, arg);
	case VIDIOC_TRY_FMT: return try_fmt(m, arg);
	case VIDIOC_S_FMT: return s_fmt(m, arg);
	case VIDIOC_REQBUFS: return vq_reqbufs(&m->queue, f, arg);
	case VIDIOC_CREATE_BUFS: return create_bufs(m, f, arg);
	case VIDIOC_QUERYBUF: return vq_querybuf(&m->queue, arg);
	case VIDIOC_PREPARE_BUF: return vq_prepare_buf(&m->queue, f, arg);
	case VIDIOC_QBUF: return vq_qbuf(&m->queue, f, arg);
	case VIDIOC_DQBUF: return dqbuf(m, f, arg, nonblock, dequeued);
	case VIDIOC_STREAMON: return vq_streamon(&m->queue, f, *(const int *)arg);
	case VIDIOC_STREAMOFF: return vq_streamoff(&m->queue, f, *(const int *)arg);
	case VIDIOC_G_PRIORITY: *(uint32_t *)arg = prio_max(m->prios); return 0;
	case VIDIOC_S_PRIORITY: return s_priority(m, f, arg);
	case VIDIOC_ENUMINPUT: return enum_input(m, arg);
	case VIDIOC_G_INPUT: *(uint32_t *)arg = 0; return 0;
	case VIDIOC_S_INPUT: return s_input(arg);
	default: return -ENOTTY;
	}
}

unsigned meta_node_poll(const struct meta_node *m, const struct meta_file *f)
{
	return vq_poll(&m->queue, f);
}

struct vq_buffer *meta_node_next(struct meta_node *m)
{
	return m->queue.streaming ? vq_next(&m->queue) : NULL;
}

void meta_node_done(struct meta_node *m, struct vq_buffer *b, uint32_t bytesused, bool errored,
		    uint32_t sequence, const struct timeval *timestamp)
{
	vq_done(&m->queue, b, bytesused, errored ? V4L2_BUF_FLAG_ERROR : 0, sequence, timestamp);
}
