/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "v4l2/node.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>

#include <linux/usb/video.h>
#include <linux/uvcvideo.h>

#include "convert/catalogue.h"
#include "uvc/quirks.h"
#include "v4l2/conv_formats.h"
#include "v4l2/ioctls.h"
#include "v4l2/node_call.h"
#include "v4l2/node_priv.h"

/* V4L2 priorities as the core keeps them (v4l2-dev.c v4l2_prio_*): every
 * open file starts at DEFAULT; ioctls that change state need a priority at
 * least the highest one held. */
bool node_prio_valid(uint32_t p)
{
	return prio_valid(p);
}

enum v4l2_priority node_prio_max(const struct node *n)
{
	return prio_max(&n->prios);
}

int node_prio_check(const struct node *n, const struct node_file *f)
{
	return f->daemon ? 0 : prio_check(&n->prios, f->prio);
}

void node_prio_set(struct node *n, struct node_file *f, enum v4l2_priority p)
{
	prio_change(&n->prios, &f->prio, p);
}

/* A format V4L2 sees (known fourcc) by its bFormatIndex. */
const struct node_fmt *node_current_fmt(const struct node *n)
{
	return n->streamers ? &n->run : &n->fmt;
}

const struct node_fmt *node_proc_fmt(const struct node *n, const struct node_proc *p)
{
	return p->own_fmt ? &p->fmt : node_current_fmt(n);
}

bool node_streaming(const struct node *n)
{
	return n->streamers > 0;
}

/* The queue's buffers take the size of the format its process sees now. */
struct vq *node_proc_queue(struct node *n, struct node_proc *p)
{
	vq_set_sizeimage(&p->queue, node_proc_fmt(n, p)->sizeimage);
	return &p->queue;
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
	/* read() emulation's buffers: a frame is lost only when the reader is
	 * this many frames behind. Each read() costs several CUSE round trips,
	 * so give the reader more slack than vb2's few (~270 ms at 30 fps). */
	n->read_buffers = 8;
	n->max_userptr_copy = UINT32_MAX;
	n->mem_ops = mem_ops;
	n->mem_data = mem_data;
	node_adopt_probe(n, &n->fmt, probe, NULL);
	n->def_format = n->fmt.format;
	/* cannot overflow with uvcvideo's tables; a camera without controls
	 * is still a camera */
	if (ctrls_init(&n->ctrls, camera))
		memset(&n->ctrls, 0, sizeof(n->ctrls));
	return 0;
}

/* Process p's queue gets no more frames; the camera stops after the last
 * one. Before its buffers may go (the device lets go of them). */
static void proc_stop(struct node *n, struct node_proc *p)
{
	if (!p->fed)
		return;
	if (n->ops->consumer_off)
		n->ops->consumer_off(n->dev, p);
	p->fed = false;
	if (--n->streamers == 0)
		n->ops->stream_off(n->dev);
}

/* Whether process p may stream the running mode: the format it sees has
 * the same format and frame (its conversion of them is its own; one that
 * set none sees the running one), and its buffers hold such a frame. */
static bool fits_running(const struct node *n, const struct node_proc *p)
{
	const struct node_fmt *f = node_proc_fmt(n, p);
	if (f->format != n->run.format || f->frame != n->run.frame)
		return false;
	/* buffers made for another format may be too small */
	for (unsigned i = 0; i < p->queue.n_buffers; i++)
		if (p->queue.buffers[i].plane_size < f->sizeimage)
			return false;
	return true;
}

/* p's queue started streaming (STREAMON, read emulation): it is fed the
 * camera's frames, the camera starting in its format when it is the
 * first. -EBUSY when another process streams a mode p's format differs
 * from, as a kernel node answers while another file owns it. */
static int proc_start(struct node *n, struct node_proc *p)
{
	if (p->fed)
		return 0;
	if (!n->streamers) {
		n->run = *node_proc_fmt(n, p);
		int err = n->ops->stream_on(n->dev, &n->run.probe);
		if (err)
			return err;
	} else if (!fits_running(n, p)) {
		return -EBUSY;
	} else if (p->own_fmt) {
		p->fmt.probe = n->run.probe; /* the camera's interval */
	}
	p->fed = true;
	n->streamers++;
	int err = n->ops->consumer_on ? n->ops->consumer_on(n->dev, p) : 0;
	if (err)
		proc_stop(n, p);
	return err;
}

static void proc_free(struct node *n, struct node_proc *p)
{
	proc_stop(n, p);
	vq_destroy(&p->queue);
	for (struct node_proc **pp = &n->procs; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	}
	free(p);
}

void node_destroy(struct node *n)
{
	while (n->procs)
		proc_free(n, n->procs);
	ctrls_free(&n->ctrls);
	call_free(n);
}

int node_open_process(struct node *n, struct node_file *f, pid_t pid, uint64_t start)
{
	memset(f, 0, sizeof(*f));
	if (n->exclusive)
		pid = 0, start = 0;
	struct node_proc *p = n->procs;
	while (p && (p->pid != pid || p->start != start))
		p = p->next;
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		p->pid = pid;
		p->start = start;
		vq_init(&p->queue, n->mem_ops, n->mem_data);
		vq_offer_dmabuf(&p->queue); /* as uvcvideo's video queue */
		p->next = n->procs;
		n->procs = p;
	}
	p->files++;
	f->proc = p;
	f->sequence = UINT32_MAX; /* v4l2_fh_init: the first event is 0 */
	node_prio_set(n, f, V4L2_PRIORITY_DEFAULT);
	f->next = n->files;
	n->files = f;
	return 0;
}

int node_open(struct node *n, struct node_file *f)
{
	return node_open_process(n, f, 0, 0);
}

/* The queue stopped streaming by itself (REQBUFS, read restart): its
 * process is fed no more. */
void node_follow_queue(struct node *n, struct node_proc *p)
{
	if (p->fed && !p->queue.streaming)
		proc_stop(n, p);
}

void node_release(struct node *n, struct node_file *f)
{
	struct node_proc *p = f->proc;
	if (p->queue.owner == f)
		proc_stop(n, p);
	vq_release(&p->queue, f);
	node_follow_queue(n, p);
	if (--p->files == 0)
		proc_free(n, p);
	f->proc = NULL;
	node_prio_set(n, f, V4L2_PRIORITY_UNSET);
	/* uvc_ctrl_cleanup_fh: a status report of its asynchronous control
	 * now goes to everyone */
	for (unsigned i = 0; i < n->ctrls.n_uvc; i++)
		if (n->ctrls.uvc[i].owner == f)
			n->ctrls.uvc[i].owner = NULL;
	for (struct node_file **pp = &n->files; *pp; pp = &(*pp)->next) {
		if (*pp == f) {
			*pp = f->next;
			break;
		}
	}
	f->n_subs = 0;
	f->navailable = 0;
}

int node_streamon(struct node *n, struct node_file *f, const int *type)
{
	struct node_proc *p = f->proc;
	bool was = p->queue.streaming;
	int err = vq_streamon(&p->queue, f, *type);
	if (err || was)
		return err;
	err = proc_start(n, p);
	if (err)
		vq_streamon_failed(&p->queue);
	return err;
}

int node_streamoff(struct node *n, struct node_file *f, const int *type)
{
	int err;
	/* the queue decides (it refuses during read() emulation); the
	 * process is fed no more only when the queue stopped */
	struct node_proc *p = f->proc;
	err = vq_streamoff(&p->queue, f, *type);
	if (!err)
		node_follow_queue(n, p);
	return err;
}

bool node_uses_camera(unsigned int cmd)
{
	const struct node_ioctl *info = node_ioctl_find(cmd);
	return info && (info->flags & NODE_IOC_CAMERA);
}

/* The handler, after the priority check of the commands that need one (as
 * the V4L2 core, before anything else is looked at). */
static int ioctl_run(struct node *n, struct node_file *f, const struct node_ioctl *info,
		     struct node_ioc *a)
{
	if (info->flags & NODE_IOC_PRIO) {
		int err = node_prio_check(n, f);
		if (err)
			return err;
	}
	int res = info->run(n, f, a);
	if (res == 0 && (info->flags & NODE_IOC_WAKES) && n->ops->waiters_changed)
		n->ops->waiters_changed(n->dev);
	return res;
}

/* The end of a run in asynchronous mode: NODE_CAMERA, or its answer with
 * the events it queued delivered now. */
static int call_finish(struct node *n, int ret)
{
	struct call_event *events;
	unsigned count;

	if (call_end(n, &events, &count))
		return NODE_CAMERA;
	for (unsigned i = 0; i < count; i++)
		node_event_queue(n, events[i].f, events[i].s, &events[i].ev);
	return ret;
}

int node_ioctl(struct node *n, struct node_file *f, unsigned int cmd, void *arg, void *extra,
	       size_t extra_len, bool nonblock, const void **data, size_t *data_len)
{
	const struct node_ioctl *info = node_ioctl_find(cmd);
	if (!info)
		return -ENOTTY;
	struct node_ioc a = { .cmd = cmd, .arg = arg, .extra = extra, .extra_len = extra_len,
			      .nonblock = nonblock, .data = data, .data_len = data_len };
	if (!n->async || !(info->flags & NODE_IOC_CAMERA))
		return ioctl_run(n, f, info, &a);
	int err = call_begin(n);
	if (err)
		return err;
	int ret = ioctl_run(n, f, info, &a);
	return call_finish(n, ret);
}

int node_status_event(struct node *n, uint8_t originator, uint8_t selector, const uint8_t *value,
		      size_t len)
{
	if (!n->async)
		return node_ctrl_status_event(n, originator, selector, value, len);
	int err = call_begin(n);
	if (err)
		return err;
	int ret = node_ctrl_status_event(n, originator, selector, value, len);
	return call_finish(n, ret);
}

void node_source_change(struct node *n)
{
	struct v4l2_event ev = { .type = V4L2_EVENT_SOURCE_CHANGE, .id = 0 };
	ev.u.src_change.changes = V4L2_EVENT_SRC_CH_RESOLUTION;
	for (struct node_file *f = n->files; f; f = f->next) {
		struct node_sub *sub = node_sub_find(f, V4L2_EVENT_SOURCE_CHANGE, 0);
		if (sub)
			node_event_queue(n, f, sub, &ev);
	}
}

void node_stream_failed(struct node *n)
{
	for (struct node_proc *p = n->procs; p; p = p->next) {
		struct vq *q = &p->queue;
		if (!p->fed)
			continue;
		if (n->ops->consumer_off)
			n->ops->consumer_off(n->dev, p);
		p->fed = false;
		if (q->memory == VQ_MEMORY_READ)
			vq_set_error(q);
		else
			vq_streamon_failed(q);
	}
	n->streamers = 0;
}

void node_set_error(struct node *n)
{
	for (struct node_proc *p = n->procs; p; p = p->next)
		if (p->fed)
			vq_set_error(&p->queue);
}

int node_dqbuf_peek(struct node *n, struct node_file *f, unsigned i, struct v4l2_buffer *b)
{
	(void)n;
	const struct vq *q = &f->proc->queue;
	if (q->memory != V4L2_MEMORY_MMAP && q->memory != V4L2_MEMORY_DMABUF)
		return -EOPNOTSUPP;
	return vq_dqbuf_peek(q, f, i, b);
}

bool node_poll_plain(struct node *n, struct node_file *f)
{
	(void)n;
	if (!f->proc)
		return false;
	const struct vq *q = &f->proc->queue;
	/* f's own queue: another file's done buffers are no DQBUF of f's,
	 * so no entry of f's ring would announce them */
	return q->owner == f &&
	       (q->memory == V4L2_MEMORY_MMAP || q->memory == V4L2_MEMORY_DMABUF) &&
	       !(vq_poll(q, f) & POLLERR);
}

int node_qbuf_preview(struct node *n, struct node_file *f, unsigned index, struct v4l2_buffer *b)
{
	(void)n;
	return vq_qbuf_preview(&f->proc->queue, index, b);
}

void node_dqbuf_lost(struct node *n, struct node_file *f, const struct v4l2_buffer *b)
{
	(void)n;
	struct vq *q = &f->proc->queue;
	if (q->memory != V4L2_MEMORY_USERPTR || b->index >= q->n_buffers)
		return;
	vq_undo_dqbuf(q, &q->buffers[b->index]);
}

/* read(): vb2's emulation over the same queue. */
int node_read(struct node *n, struct node_file *f, size_t size, bool first_chunk, bool nonblock,
	      const uint8_t **data, size_t *len)
{
	struct node_proc *pr = f->proc;
	struct vq *q = &pr->queue;
	*data = NULL;
	*len = 0;
	if (!first_chunk && !f->in_read)
		return 0; /* the frame ended with the previous chunk */
	if (first_chunk) {
		f->in_read = false;
		if (vq_is_busy(q, f))
			return -EBUSY;
		if (q->memory != VQ_MEMORY_READ) {
			int err = vq_read_start(node_proc_queue(n, pr), f, n->read_buffers);
			if (err)
				return err;
			err = proc_start(n, pr);
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
	struct vq *q = &f->proc->queue;
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

unsigned node_poll(struct node *n, struct node_file *f, unsigned requested)
{
	struct node_proc *p = f->proc;
	struct vq *q = &p->queue;
	unsigned events = f->navailable ? POLLPRI : 0;
	/* vb2_core_poll: the queue answers only pollers of POLLIN, and the
	 * first such poller of an idle queue starts read() emulation. */
	if (!(requested & (POLLIN | POLLRDNORM)))
		return events;
	if (!q->owner && !q->n_buffers && !q->streaming) {
		if (!vq_read_start(node_proc_queue(n, p), f, n->read_buffers) && proc_start(n, p))
			vq_release(q, f);
	}
	return vq_poll(q, f) | events;
}

