/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The camera's metadata node, as uvcvideo's (v4l2/meta_node.h says what
 * it answers): a second CUSE node with its own files, its own buffer
 * socket for the preload library's mmap, and the buffer the assembler
 * writes each frame's payload headers into (uvc/metadata.h), done with
 * the video frame's sequence, timestamp and error. Its files share the
 * video node's priority; nothing else of the video node. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "cuse/cuse.h"
#include "cuse/ioctl_table.h"
#include "device/internal.h"
#include "share/bufshare.h"
#include "uvcuse/uvcuse.h"
#include "v4l2/ioctls.h"

/* --- the buffer being filled ---------------------------------------------- */

static void writer_detach(struct dev_meta *m)
{
	m->filling = NULL;
	uvc_meta_begin(&m->writer, NULL, 0);
}

/* The next queued buffer, when none is being filled. */
static void take_buffer(struct dev_meta *m)
{
	if (m->filling)
		return;
	m->filling = meta_node_next(&m->node);
	if (m->filling)
		uvc_meta_begin(&m->writer, m->filling->mem, m->node.buffersize);
	m->writer.whole_headers = m->node.format == V4L2_META_FMT_UVC_MSXU_1_5;
}

/* The buffer being filled is valid only while the queue streams: after
 * STREAMOFF, REQBUFS or the owner's close it is the app's again, or gone. */
static void check_filling(struct dev_meta *m)
{
	if (m->filling && (!m->node.queue.streaming || m->filling->state != VQ_ACTIVE))
		writer_detach(m);
}

static void wake_files(struct dev_meta *m);

void meta_frame_end(struct device *dev, bool delivered, bool errored, uint32_t sequence,
		    const struct timeval *timestamp)
{
	struct dev_meta *m = &dev->meta;
	if (!m->on)
		return;
	check_filling(m);
	if (m->filling && delivered) {
		meta_node_done(&m->node, m->filling, (uint32_t)m->writer.used,
			       errored || m->writer.error, sequence, timestamp);
		writer_detach(m);
		wake_files(m);
	} else if (m->filling) { /* a frame no app got: its headers go too */
		uvc_meta_begin(&m->writer, m->filling->mem, m->node.buffersize);
	}
	take_buffer(m);
}

void meta_stream_start(struct device *dev)
{
	if (dev->meta.on) {
		check_filling(&dev->meta);
		take_buffer(&dev->meta);
	}
}

void meta_stream_stop(struct device *dev)
{
	struct dev_meta *m = &dev->meta;
	if (!m->on)
		return;
	check_filling(m);
	if (m->filling)
		vq_requeue(&m->node.queue, m->filling);
	writer_detach(m);
}

/* Buffer memory as the video node's (a memfd each), forgotten by the
 * writer before it goes. */
static int mem_alloc(void *data, struct vq_buffer *b, size_t size)
{
	struct device *dev = data;
	return device_mem_ops.alloc(dev, b, size);
}

static void mem_release(void *data, struct vq_buffer *b)
{
	struct device *dev = data;
	if (dev->meta.filling == b)
		writer_detach(&dev->meta);
	device_mem_ops.release(dev, b);
}

static const struct vq_mem_ops meta_mem_ops = { .alloc = mem_alloc, .release = mem_release };

/* --- waiting DQBUFs ----------------------------------------------------- */

static void reply_dqbuf(struct cuse_req *req, struct v4l2_buffer *arg, int res,
			const struct vq_buffer *b, bool staged)
{
	if (res == 0 && b && arg->memory == V4L2_MEMORY_USERPTR && !staged && arg->bytesused) {
		cuse_reply_ioctl_data(req, 0, arg, arg->m.userptr, b->mem, arg->bytesused);
		return;
	}
	cuse_reply_ioctl(req, res, arg);
}

/* Runs the file's waiting DQBUFs again: answered unless still none done. */
static void wake_file(struct dev_meta *m, struct dev_meta_file *f)
{
	struct meta_parked **pp = &f->parked;
	while (*pp) {
		struct meta_parked *p = *pp;
		struct vq_buffer *b = NULL;
		int res = meta_node_ioctl(&m->node, &f->mf, VIDIOC_DQBUF, &p->buf, false, &b);
		if (res == NODE_WAIT) {
			pp = &p->next;
			continue;
		}
		*pp = p->next;
		reply_dqbuf(p->req, &p->buf, res, b, p->staged);
		free(p);
	}
	if (f->cuse)
		cuse_file_notify_poll(f->cuse);
}

static void wake_files(struct dev_meta *m)
{
	for (struct dev_meta_file *f = m->files; f; f = f->next)
		wake_file(m, f);
}

static void park(struct dev_meta_file *f, struct cuse_req *req, const struct v4l2_buffer *arg,
		 bool staged)
{
	struct meta_parked *p = calloc(1, sizeof(*p));
	if (!p) {
		cuse_reply_ioctl(req, -ENOMEM, arg);
		return;
	}
	p->req = req;
	p->staged = staged;
	p->buf = *arg;
	p->next = f->parked;
	f->parked = p;
	cuse_req_park(req); /* may call meta_interrupt at once */
}

/* --- the CUSE requests ----------------------------------------------------- */

/* Files of one user: the video node's limit per user applies here too. */
static unsigned files_of(const struct dev_meta *m, uid_t uid)
{
	unsigned n = 0;
	for (const struct dev_meta_file *f = m->files; f; f = f->next)
		n += f->uid == uid;
	return n;
}

static int meta_open(void *ctx, struct cuse_file *file, int flags, void **data)
{
	struct device *dev = ctx;
	struct dev_meta *m = &dev->meta;
	static struct log_limit limit;
	(void)flags;
	if (dev->away.unplugged)
		return -ENODEV;
	uid_t uid = cuse_file_opener_uid(file);
	if (files_of(m, uid) >= dev->open.limits.opens_per_user) {
		if (log_allowed(&limit, 2))
			log_warn("uid %u: open of /dev/%s refused (EMFILE): max-opens-per-user",
				 (unsigned)uid, m->name);
		return -EMFILE;
	}
	struct dev_meta_file *f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->cuse = file;
	f->uid = uid;
	meta_node_open(&m->node, &f->mf);
	f->next = m->files;
	m->files = f;
	*data = f;
	return 0;
}

static void meta_release(void *ctx, void *data)
{
	struct device *dev = ctx;
	struct dev_meta *m = &dev->meta;
	struct dev_meta_file *f = data;
	while (f->parked) { /* CUSE answers every request before release */
		struct meta_parked *p = f->parked;
		f->parked = p->next;
		cuse_reply_error(p->req, EINTR);
		free(p);
	}
	if (m->bufshare)
		bufshare_forget(m->bufshare, f);
	meta_node_release(&m->node, &f->mf);
	check_filling(m);
	for (struct dev_meta_file **pp = &m->files; *pp; pp = &(*pp)->next) {
		if (*pp == f) {
			*pp = f->next;
			break;
		}
	}
	free(f);
	wake_files(m); /* a released queue: others' DQBUFs answer EINVAL */
}

static void meta_ioctl(void *ctx, void *data, struct cuse_req *req, unsigned int cmd, void *arg,
		       void *extra, size_t extra_len)
{
	struct device *dev = ctx;
	struct dev_meta *m = &dev->meta;
	struct dev_meta_file *f = data;
	(void)extra, (void)extra_len;
	dev->stats.cuse_requests++;
	if (dev->away.unplugged) {
		cuse_reply_error(req, ENODEV);
		return;
	}
	struct private_target target = { m->bufshare, f, f->cuse, m->name, &m->share_warned,
					  &m->node.queue, &f->mf, dev->share.udmabuf };
	if (requests_private_ioctl(&target, req, cmd, arg))
		return;
	bool staged = cmd == UVCUSE_IOC_DQBUF_STAGED;
	if (staged)
		cmd = VIDIOC_DQBUF;
	struct vq_buffer *b = NULL;
	bool nonblock = cuse_file_flags(f->cuse) & O_NONBLOCK;
	int res = meta_node_ioctl(&m->node, &f->mf, cmd, arg, nonblock, &b);
	if (res == NODE_WAIT)
		park(f, req, arg, staged);
	else if (cmd == VIDIOC_DQBUF)
		reply_dqbuf(req, arg, res, b, staged);
	else
		cuse_reply_ioctl(req, res, arg);
	/* a STREAMOFF, REQBUFS or S_PRIORITY may change what others wait for;
	 * a STREAMON or QBUF while the camera streams gives the writer a
	 * buffer at the next frame */
	check_filling(m);
	if (res == 0 && cmd != VIDIOC_DQBUF && cmd != VIDIOC_QBUF)
		wake_files(m);
}

static unsigned meta_poll(void *ctx, void *data, unsigned requested)
{
	struct device *dev = ctx;
	struct dev_meta_file *f = data;
	(void)requested;
	dev->stats.cuse_requests++;
	if (dev->away.unplugged)
		return POLLERR | POLLHUP;
	return meta_node_poll(&dev->meta.node, &f->mf);
}

static void meta_interrupt(void *ctx, void *data, struct cuse_req *req)
{
	struct dev_meta_file *f = data;
	(void)ctx;
	for (struct meta_parked **pp = &f->parked; *pp; pp = &(*pp)->next) {
		struct meta_parked *p = *pp;
		if (p->req == req) {
			*pp = p->next;
			cuse_reply_error(req, EINTR);
			free(p);
			return;
		}
	}
}

/* A USERPTR DQBUF whose bytes never reached the app: done again. */
static void meta_answer_lost(void *ctx, void *data, unsigned int cmd, const void *arg)
{
	struct device *dev = ctx;
	const struct v4l2_buffer *b = arg;
	(void)data;
	if (cmd == VIDIOC_DQBUF && b->index < dev->meta.node.queue.n_buffers)
		vq_undo_dqbuf(&dev->meta.node.queue, &dev->meta.node.queue.buffers[b->index]);
}

/* No read(): uvcvideo's metadata node has none (no V4L2_CAP_READWRITE). */
static void meta_read(void *ctx, void *data, struct cuse_req *req, size_t size, off_t off,
		      int flags)
{
	(void)ctx, (void)data, (void)size, (void)off, (void)flags;
	cuse_reply_error(req, EINVAL);
}

static const struct cuse_server_ops meta_cuse_ops = {
	.open = meta_open,
	.release = meta_release,
	.ioctl = meta_ioctl,
	.read = meta_read,
	.poll = meta_poll,
	.interrupt = meta_interrupt,
	.answer_lost = meta_answer_lost,
};

/* --- set-up ------------------------------------------------------------- */

static size_t ioctl_layouts(struct cuse_ioctl_desc *out, size_t max)
{
	size_t count, n = 0;
	const unsigned *cmds = meta_node_commands(&count);
	for (size_t i = 0; i < count && n < max; i++) {
		const struct node_ioctl *t = node_ioctl_find(cmds[i]);
		if (t) /* the video node's layout: the same struct */
			out[n++] = cuse_ioctl_describe(t->cmd, t->name, false, NULL);
	}
	n += requests_private_layouts(out + n, max - n);
	return requests_compat_layouts(out, n, max);
}

static void node_config(struct device *dev, struct meta_node_config *mc)
{
	struct v4l2_capability vcap;
	node_querycap(&dev->node, &vcap);
	struct v4l2_input input = { .index = 0 };
	node_enum_input(&dev->node, &input);
	*mc = (struct meta_node_config){
		.card = dev->node.id.card,
		.bus_info = dev->node.id.bus_info,
		.version = dev->node.id.version,
		.video_caps = vcap.device_caps,
		.msxu = startup_msxu(dev->cam),
		.input = input,
		.prios = &dev->node.prios,
		.mem_ops = &meta_mem_ops,
		.mem_data = dev,
	};
}

int meta_setup(struct device *dev, const struct device_config *cfg)
{
	struct dev_meta *m = &dev->meta;
	if (!cfg->meta_name)
		return 0;
	snprintf(m->name, sizeof(m->name), "%s", cfg->meta_name);
	struct meta_node_config mc;
	node_config(dev, &mc);
	meta_node_init(&m->node, &mc);
	writer_detach(m);
	struct cuse_server_config cc = { .devname = m->name, .debug = cfg->debug_cuse,
					 .ioctls = m->ioctls, .control_fd = cfg->meta_cuse_fd,
					 .optional = true };
	cc.n_ioctls = ioctl_layouts(m->ioctls, DEV_META_MAX_IOCTLS);
	int res = cuse_server_new(dev->loop, &cc, &meta_cuse_ops, dev, &m->cuse);
	if (res) {
		log_error("cannot register the metadata node /dev/%s: %s", m->name, strerror(-res));
		meta_node_destroy(&m->node);
		return res;
	}
	m->on = true;
	log_info("metadata node /dev/%s", m->name);
	dev->node.meta_caps = V4L2_CAP_META_CAPTURE;
	dev->frames.assembler.meta = &m->writer;
	return 0;
}

static int buf_lookup(void *ctx, void *file, uint64_t offset, uint64_t length, int *memfd)
{
	struct device *dev = ctx;
	struct dev_meta_file *f = file;
	return device_queue_memfd(&dev->meta.node.queue, &f->mf, offset, length, memfd);
}

void meta_share_buffers(struct device *dev, struct loop *loop)
{
	struct dev_meta *m = &dev->meta;
	if (m->on && bufshare_new(loop, NULL, m->name, buf_lookup, dev, &m->bufshare) < 0)
		log_warn("no buffer socket for /dev/%s: its MMAP through uvcuse-run disabled",
			 m->name);
	else if (m->on)
		bufshare_set_dmabuf(m->bufshare, dev->share.udmabuf);
}

void meta_free(struct device *dev)
{
	struct dev_meta *m = &dev->meta;
	if (!m->on)
		return;
	dev->frames.assembler.meta = NULL;
	cuse_server_free(m->cuse);
	bufshare_free(m->bufshare);
	while (m->files) {
		struct dev_meta_file *f = m->files;
		m->files = f->next;
		while (f->parked) {
			struct meta_parked *p = f->parked;
			f->parked = p->next;
			free(p);
		}
		free(f);
	}
	writer_detach(m);
	meta_node_destroy(&m->node);
	m->on = false;
}
