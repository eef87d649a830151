/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The table of the node's ioctls (ioctls.h) and a handler for each: each
 * one takes its argument from struct node_ioc and calls the half of the
 * node that answers it (node.c: queues and streaming; node_fmt.c: formats;
 * node_ctrls.c: controls, events, extension units). */
#include "v4l2/ioctls.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <linux/uvcvideo.h>
#include <linux/videodev2.h>

#include "v4l2/node.h"
#include "v4l2/node_priv.h"

/* --- embedded pointers -------------------------------------------------------- */

/* The regions functions read the argument through a local copy: a
 * transport's buffer carries no alignment promise. */

/* v4l2-ioctl.c check_array_args(): count 0 touches no array (the pointer is
 * ignored), above V4L2_CID_MAX_CTRLS is EINVAL; the array is copied back
 * also on error. */
static int ext_ctrls_regions(const void *arg, struct iovec *iov, bool *out, unsigned max)
{
	struct v4l2_ext_controls c;
	memcpy(&c, arg, sizeof(c));
	if (c.count == 0)
		return 0;
	if (c.count > V4L2_CID_MAX_CTRLS || max < 1)
		return -EINVAL;
	iov[0] = (struct iovec){ c.controls, (size_t)c.count * sizeof(struct v4l2_ext_control) };
	out[0] = true;
	return 1;
}

/* uvc_ioctl_xu_ctrl_map(): only menu mappings carry menu_info, 1 to 32
 * entries (CTRLS_MAX_MENU, uvcvideo's UVC_MAX_CONTROL_MENU_ENTRIES), read in. */
static int ctrl_map_regions(const void *arg, struct iovec *iov, bool *out, unsigned max)
{
	struct uvc_xu_control_mapping m;
	memcpy(&m, arg, sizeof(m));
	if (m.v4l2_type != V4L2_CTRL_TYPE_MENU)
		return 0;
	if (m.menu_count == 0 || m.menu_count > CTRLS_MAX_MENU || max < 1)
		return -EINVAL;
	iov[0] = (struct iovec){ m.menu_info, (size_t)m.menu_count * sizeof(struct uvc_menu_info) };
	out[0] = false;
	return 1;
}

/* uvc_xu_ctrl_query(): size bytes at data, read for SET_CUR, written for
 * GET_*; copied both ways so one rule serves every query. */
static int ctrl_query_regions(const void *arg, struct iovec *iov, bool *out, unsigned max)
{
	struct uvc_xu_control_query q;
	memcpy(&q, arg, sizeof(q));
	if (q.size == 0)
		return 0;
	if (max < 1)
		return -EINVAL;
	iov[0] = (struct iovec){ q.data, q.size };
	out[0] = true;
	return 1;
}

/* __prepare_userptr(): get_user_pages() fails with EFAULT on an app buffer
 * that is not mapped. A transport that cannot pin pages has the first and
 * the last byte of [m.userptr, +length) read in: the same check for the
 * common mistakes (a stale or made-up pointer, a length beyond the
 * mapping), and EFAULT reaches the app before the node sees the QBUF. Read
 * only: a failure copying back out would come after the buffer was
 * queued. Multi-planar types carry m.planes; the node answers EINVAL for
 * them, so they get no region. */
static int userptr_regions(const void *arg, struct iovec *iov, bool *out, unsigned max)
{
	struct v4l2_buffer b;
	memcpy(&b, arg, sizeof(b));
	if (b.memory != V4L2_MEMORY_USERPTR || b.type != V4L2_BUF_TYPE_VIDEO_CAPTURE ||
	    !b.m.userptr || !b.length)
		return 0;
	if (max < 2)
		return -EINVAL;
	iov[0] = (struct iovec){ (void *)b.m.userptr, 1 };
	iov[1] = (struct iovec){ (void *)(b.m.userptr + b.length - 1), 1 };
	out[0] = out[1] = false;
	return 2;
}

/* --- handlers ----------------------------------------------------------------- */

static int querycap(struct node *n, struct node_file *f, struct node_ioc *a)
{
	(void)f;
	return node_querycap(n, a->arg);
}

static int g_priority(struct node *n, struct node_file *f, struct node_ioc *a)
{
	(void)f;
	*(uint32_t *)a->arg = node_prio_max(n);
	return 0;
}

static int s_priority(struct node *n, struct node_file *f, struct node_ioc *a)
{
	uint32_t prio = *(uint32_t *)a->arg;
	if (!node_prio_valid(prio))
		return -EINVAL;
	node_prio_set(n, f, prio);
	return 0;
}

static int enum_input(struct node *n, struct node_file *f, struct node_ioc *a)
{
	(void)f;
	return node_enum_input(n, a->arg);
}

static int g_input(struct node *n, struct node_file *f, struct node_ioc *a)
{
	(void)f;
	return node_g_input(n, a->arg);
}

static int s_input(struct node *n, struct node_file *f, struct node_ioc *a)
{
	(void)f;
	return node_s_input(n, *(unsigned *)a->arg);
}

/* ENUM_FMT, ENUM_FRAMESIZES, ENUM_FRAMEINTERVALS: the camera's formats,
 * with the converted ones after them unless --no-convert. */
static int enum_fmt(struct node *n, struct node_file *f, struct node_ioc *a)
{
	(void)f;
	return n->convert ? cfmt_enum(n->stream, a->arg) : fmt_enum(n->stream, a->arg);
}

static int enum_framesizes(struct node *n, struct node_file *f, struct node_ioc *a)
{
	(void)f;
	return n->convert ? cfmt_enum_framesizes(n->stream, a->arg) :
			    fmt_enum_framesizes(n->stream, a->arg);
}

static int enum_frameintervals(struct node *n, struct node_file *f, struct node_ioc *a)
{
	(void)f;
	return n->convert ? cfmt_enum_frameintervals(n->stream, a->arg) :
			    fmt_enum_frameintervals(n->stream, a->arg);
}

static int g_fmt(struct node *n, struct node_file *f, struct node_ioc *a)
{
	return node_g_fmt(n, f->proc, a->arg);
}

static int try_fmt(struct node *n, struct node_file *f, struct node_ioc *a)
{
	struct uvc_probe probe;
	struct cfmt_choice conv;
	return node_try_format(n, f->proc, a->arg, &probe, &conv);
}

static int s_fmt(struct node *n, struct node_file *f, struct node_ioc *a)
{
	return node_s_fmt(n, f, a->arg);
}

static int g_parm(struct node *n, struct node_file *f, struct node_ioc *a)
{
	return node_g_parm(n, f->proc, a->arg);
}

static int s_parm(struct node *n, struct node_file *f, struct node_ioc *a)
{
	return node_s_parm(n, f, a->arg);
}

static int reqbufs(struct node *n, struct node_file *f, struct node_ioc *a)
{
	struct node_proc *p = f->proc;
	int err = vq_reqbufs(node_proc_queue(n, p), f, a->arg);
	node_follow_queue(n, p);
	return err;
}

static int create_bufs(struct node *n, struct node_file *f, struct node_ioc *a)
{
	struct v4l2_create_buffers *cb = a->arg;
	return vq_create_bufs(node_proc_queue(n, f->proc), f, cb, cb->format.fmt.pix.sizeimage);
}

static int querybuf(struct node *n, struct node_file *f, struct node_ioc *a)
{
	(void)n;
	return vq_querybuf(&f->proc->queue, a->arg);
}

static int prepare_buf(struct node *n, struct node_file *f, struct node_ioc *a)
{
	(void)n;
	return vq_prepare_buf(&f->proc->queue, f, a->arg);
}

static int qbuf(struct node *n, struct node_file *f, struct node_ioc *a)
{
	struct vq *q = &f->proc->queue;
	int err = vq_qbuf(q, f, a->arg);
	if (!err && q->streaming)
		n->ops->buffer_queued(n->dev);
	return err;
}

static int dqbuf(struct node *n, struct node_file *f, struct node_ioc *a)
{
	struct vq *q = &f->proc->queue;
	struct vq_buffer *b = NULL;
	int err = vq_dqbuf(q, f, a->arg, &b);
	if (err == -EAGAIN && !a->nonblock)
		return NODE_WAIT;
	if (err || q->memory != V4L2_MEMORY_USERPTR || !a->data)
		return err;
	/* the frame goes into the app's memory with the reply; one that
	 * cannot stays first in line instead of being lost. (Without data,
	 * the caller leaves it in b->mem for the app to fetch: the preload
	 * library's staged DQBUF.) */
	if (b->bytesused > n->max_userptr_copy) {
		vq_undo_dqbuf(q, b);
		return -E2BIG;
	}
	*a->data = b->mem;
	*a->data_len = b->bytesused;
	return 0;
}

static int streamon(struct node *n, struct node_file *f, struct node_ioc *a)
{
	return node_streamon(n, f, a->arg);
}

static int streamoff(struct node *n, struct node_file *f, struct node_ioc *a)
{
	return node_streamoff(n, f, a->arg);
}

static int queryctrl(struct node *n, struct node_file *f, struct node_ioc *a)
{
	(void)f;
	int err;
	CTRL_RUN(n, err, ctrls_queryctrl(&n->ctrls, a->arg));
	return err;
}

static int query_ext_ctrl(struct node *n, struct node_file *f, struct node_ioc *a)
{
	(void)f;
	int err;
	CTRL_RUN(n, err, ctrls_query_ext_ctrl(&n->ctrls, a->arg));
	return err;
}

static int querymenu(struct node *n, struct node_file *f, struct node_ioc *a)
{
	(void)f;
	int err;
	CTRL_RUN(n, err, ctrls_querymenu(&n->ctrls, a->arg));
	return err;
}

static int g_s_ctrl(struct node *n, struct node_file *f, struct node_ioc *a)
{
	return node_g_s_ctrl(n, f, a->cmd, a->arg);
}

static int ext_ctrls(struct node *n, struct node_file *f, struct node_ioc *a)
{
	return node_ext_ctrls(n, f, a->cmd, a->arg, a->extra, a->extra_len);
}

static int subscribe_event(struct node *n, struct node_file *f, struct node_ioc *a)
{
	return node_subscribe(n, f, a->arg);
}

static int unsubscribe_event(struct node *n, struct node_file *f, struct node_ioc *a)
{
	(void)n;
	return node_unsubscribe(f, a->arg);
}

static int dqevent(struct node *n, struct node_file *f, struct node_ioc *a)
{
	(void)n;
	return node_dqevent(f, a->arg, a->nonblock);
}

/* uvcvideo has none (ENOTTY); v4l2-ctl --log-status users expect the
 * state logged and 0 */
static int log_status(struct node *n, struct node_file *f, struct node_ioc *a)
{
	(void)f, (void)a;
	if (n->ops->log_status)
		n->ops->log_status(n->dev);
	return 0;
}

static int xu_query(struct node *n, struct node_file *f, struct node_ioc *a)
{
	(void)f;
	return node_xu_query(n, a->arg, a->extra, a->extra_len);
}

static int xu_map(struct node *n, struct node_file *f, struct node_ioc *a)
{
	(void)f;
	return node_xu_map(n, a->arg, a->extra, a->extra_len);
}

/* --- the table ---------------------------------------------------------------- */

#define IOC(c, fl, fn, rg) { .cmd = (c), .name = #c, .flags = (fl), .run = (fn), .regions = (rg) }
#define PRIO NODE_IOC_PRIO
#define CAMERA NODE_IOC_CAMERA
#define WAKES NODE_IOC_WAKES
#define STATUS NODE_IOC_STATUS
#define COPY_ON_ERROR NODE_IOC_COPY_ON_ERROR
#define MAY_WAIT NODE_IOC_MAY_WAIT

static const struct node_ioctl table[] = {
	IOC(VIDIOC_QUERYCAP, 0, querycap, NULL),
	IOC(VIDIOC_ENUM_FMT, 0, enum_fmt, NULL),
	IOC(VIDIOC_G_FMT, 0, g_fmt, NULL),
	IOC(VIDIOC_S_FMT, PRIO | CAMERA | STATUS, s_fmt, NULL),
	IOC(VIDIOC_TRY_FMT, CAMERA, try_fmt, NULL),
	IOC(VIDIOC_REQBUFS, PRIO | WAKES, reqbufs, NULL),
	IOC(VIDIOC_QUERYBUF, 0, querybuf, NULL),
	IOC(VIDIOC_QBUF, 0, qbuf, userptr_regions),
	IOC(VIDIOC_DQBUF, MAY_WAIT, dqbuf, NULL),
	IOC(VIDIOC_PREPARE_BUF, 0, prepare_buf, userptr_regions),
	IOC(VIDIOC_CREATE_BUFS, PRIO, create_bufs, NULL),
	IOC(VIDIOC_STREAMON, PRIO | STATUS, streamon, NULL),
	IOC(VIDIOC_STREAMOFF, PRIO | WAKES | STATUS, streamoff, NULL),
	IOC(VIDIOC_G_PARM, 0, g_parm, NULL),
	IOC(VIDIOC_S_PARM, PRIO | CAMERA | STATUS, s_parm, NULL),
	IOC(VIDIOC_G_PRIORITY, 0, g_priority, NULL),
	IOC(VIDIOC_S_PRIORITY, PRIO, s_priority, NULL),
	IOC(VIDIOC_ENUMINPUT, 0, enum_input, NULL),
	IOC(VIDIOC_G_INPUT, CAMERA, g_input, NULL),
	IOC(VIDIOC_S_INPUT, PRIO | CAMERA, s_input, NULL),
	IOC(VIDIOC_ENUM_FRAMESIZES, 0, enum_framesizes, NULL),
	IOC(VIDIOC_ENUM_FRAMEINTERVALS, 0, enum_frameintervals, NULL),
	IOC(VIDIOC_QUERYCTRL, CAMERA, queryctrl, NULL),
	IOC(VIDIOC_QUERY_EXT_CTRL, CAMERA, query_ext_ctrl, NULL),
	IOC(VIDIOC_QUERYMENU, CAMERA, querymenu, NULL),
	IOC(VIDIOC_G_CTRL, CAMERA, g_s_ctrl, NULL),
	IOC(VIDIOC_S_CTRL, PRIO | CAMERA, g_s_ctrl, NULL),
	IOC(VIDIOC_G_EXT_CTRLS, CAMERA | COPY_ON_ERROR, ext_ctrls, ext_ctrls_regions),
	IOC(VIDIOC_S_EXT_CTRLS, PRIO | CAMERA | COPY_ON_ERROR, ext_ctrls, ext_ctrls_regions),
	IOC(VIDIOC_TRY_EXT_CTRLS, CAMERA | COPY_ON_ERROR, ext_ctrls, ext_ctrls_regions),
	IOC(VIDIOC_SUBSCRIBE_EVENT, CAMERA, subscribe_event, NULL),
	IOC(VIDIOC_UNSUBSCRIBE_EVENT, 0, unsubscribe_event, NULL),
	IOC(VIDIOC_DQEVENT, MAY_WAIT, dqevent, NULL),
	IOC(VIDIOC_LOG_STATUS, CAMERA, log_status, NULL),
	IOC(UVCIOC_CTRL_MAP, CAMERA, xu_map, ctrl_map_regions),
	IOC(UVCIOC_CTRL_QUERY, CAMERA, xu_query, ctrl_query_regions),
};

const struct node_ioctl *node_ioctl_find(unsigned int cmd)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].cmd == cmd)
			return &table[i];
	return NULL;
}

const struct node_ioctl *node_ioctl_table(size_t *count)
{
	*count = sizeof(table) / sizeof(table[0]);
	return table;
}
