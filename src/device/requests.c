/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The apps' requests through CUSE: open and release, ioctl, read and
 * poll; the requests that wait (a blocking DQBUF, a read() chunk, a
 * STREAMON waiting for the commit) parked and answered again when frames
 * or events change what they would get. */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/timerfd.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <linux/usb/video.h>
#include <linux/version.h>

#include "core/log.h"
#include "core/loop.h"
#include "core/process.h"
#include "cuse/cuse.h"
#include "cuse/ioctl_table.h"
#include "device/internal.h"
#include "settings/settings_store.h"
#include "share/bufshare.h"
#include "share/channel.h"
#include "uvc/negotiate.h"
#include "uvc/payload.h"
#include "uvc/quirks.h"
#include "uvc/status.h"
#include "v4l2/compat32.h"
#include "v4l2/ioctls.h"
#include "v4l2/node.h"


/* CUSE has no mmap: the kernel answers an app's mmap() of our node with
 * ENODEV without asking us. A file that queried MMAP buffers and never had
 * one fetched by the preload library most likely met that: say once what
 * fixes it (called when the file gives its buffers up or closes). */
static void hint_mmap(struct device *dev, struct dev_file *df)
{
	if (!df->mmap_pid || df->fetched_buffers || df->mmap_pid == dev->open.hinted_pid)
		return;
	dev->open.hinted_pid = df->mmap_pid; /* once per process, not per open */
	log_warn("pid %d (%s) asked for MMAP buffers but never mapped one: mmap() of a CUSE node "
		 "fails (ENODEV) unless the app runs under the preload library: uvcuse-run %s ...",
		 (int)df->mmap_pid, df->mmap_comm, df->mmap_comm);
}

static void note_mmap_query(struct dev_file *df, struct cuse_req *req)
{
	if (df->mmap_pid)
		return;
	df->mmap_pid = cuse_req_pid(req);
	snprintf(df->mmap_comm, sizeof(df->mmap_comm), "?");
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)df->mmap_pid);
	FILE *f = fopen(path, "re");
	if (f) {
		if (fgets(df->mmap_comm, sizeof(df->mmap_comm), f))
			df->mmap_comm[strcspn(df->mmap_comm, "\n")] = 0;
		fclose(f);
	}
}

/* --- cuse ops: requests of the apps ------------------------------------ */

int requests_open(void *ctx, struct cuse_file *file, int flags, void **data)
{
	struct device *dev = ctx;
	(void)flags;
	if (dev->away.unplugged)
		return -ENODEV;
	/* the file joins its process's queue: several processes stream at
	 * once, each on its own (node.h, node_proc); a process is its ID and
	 * its start time, which a later one with the same ID does not share
	 * (an opener already gone has start 0: its file closes soon) */
	struct process_id who = { .tgid = cuse_file_opener(file) };
	process_identify(who.tgid, &who);
	uid_t uid = cuse_file_opener_uid(file);
	int err = limits_may_open(dev, &who, uid);
	if (err)
		return err;
	struct dev_file *df = calloc(1, sizeof(*df));
	if (!df)
		return -ENOMEM;
	df->dev = dev;
	df->cuse = file;
	df->opener = who;
	df->uid = uid;
	if (node_open_process(&dev->node, &df->nf, who.tgid, who.start)) {
		free(df);
		return -ENOMEM;
	}
	df->next = dev->open.list;
	dev->open.list = df;
	dev->open.count++;
	*data = df;
	device_linger_update(dev);
	device_changed(dev);
	return 0;
}

/* The last app's file closed: the memory its buffers, staging areas and
 * conversions took goes back to the system. glibc keeps freed memory of
 * frame size for reuse (its mmap threshold rises to the largest chunk
 * freed), so that an idle daemon would hold the peak of its last burst. */
static void release_idle_memory(void)
{
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}

/* The rest of a release, once no call of the file runs. */
void requests_release_finish(struct device *dev, struct dev_file *df)
{
	hint_mmap(dev, df);
	node_release(&dev->node, &df->nf);
	for (struct dev_file **pp = &dev->open.list; *pp; pp = &(*pp)->next) {
		if (*pp == df) {
			*pp = df->next;
			break;
		}
	}
	dev->open.count--;
	free(df);
	if (!dev->open.count)
		release_idle_memory();
	if (dev->away.unplugged && !dev->open.count) {
		log_info("the last file closed: removing /dev/%s", dev->name);
		loop_quit(dev->loop, 0);
	}
	device_linger_update(dev);
	/* a released queue may let another file's read() start */
	device_wake_all(dev);
	device_changed(dev);
}

void requests_release(void *ctx, void *data)
{
	struct device *dev = ctx;
	struct dev_file *df = data;
	device_channels_close(df);
	while (df->parked) { /* CUSE answers every request before release */
		struct parked *p = df->parked;
		df->parked = p->next;
		device_parked_fail(p, EINTR);
	}
	if (dev->share.bufshare)
		bufshare_forget(dev->share.bufshare, df);
	/* a call of the file may still wait for the camera: the file goes
	 * when it ends, as the kernel's release waits for ioctls in progress */
	bool running = calls_release_file(dev, df);
	df->cuse = NULL;
	if (running) {
		df->releasing = true;
		return;
	}
	requests_release_finish(dev, df);
}

/* The buffer socket opens to whoever may open the node (udev may have
 * changed its group or ACL since the last HELLO). */
static void bufshare_sync_node(struct bufshare *bs, const char *name, bool *warned)
{
	char node[80];
	snprintf(node, sizeof(node), "/dev/%s", name);
	int r = bufshare_follow_node(bs, node);
	if (r < 0 && !*warned) {
		*warned = true;
		log_warn("buffer socket: cannot give it the permissions of %s: %s", node,
			 strerror(-r));
	}
}

/* The preload library's private ioctls (include/uvcuse/uvcuse.h): the
 * device answers them, the node knows nothing of them. DQBUF_STAGED is
 * the node's DQBUF with the frame left in staging memory. */
static const struct {
	unsigned int cmd;
	const char *name;
} private_ioctls[] = {
	{ UVCUSE_IOC_HELLO, "UVCUSE_IOC_HELLO" },
	{ UVCUSE_IOC_SET_FLAGS, "UVCUSE_IOC_SET_FLAGS" },
	{ UVCUSE_IOC_DQBUF_STAGED, "UVCUSE_IOC_DQBUF_STAGED" },
	{ UVCUSE_IOC_EXPBUF, "UVCUSE_IOC_EXPBUF" },
};

size_t requests_private_layouts(struct cuse_ioctl_desc *out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < sizeof(private_ioctls) / sizeof(private_ioctls[0]) && n < max;
	     i++, n++)
		out[n] = cuse_ioctl_describe(private_ioctls[i].cmd, private_ioctls[i].name, false,
					     NULL);
	return n;
}

size_t requests_ioctl_layouts(struct cuse_ioctl_desc *out, size_t max)
{
	size_t n = 0, count;
	const struct node_ioctl *t = node_ioctl_table(&count);
	for (size_t i = 0; i < count && n < max; i++, n++)
		out[n] = cuse_ioctl_describe(t[i].cmd, t[i].name,
					     t[i].flags & NODE_IOC_COPY_ON_ERROR, t[i].regions);
	n += requests_private_layouts(out + n, max - n);
	return requests_compat_layouts(out, n, max);
}

/* A 32-bit form of the command laid out by native. */
static struct cuse_ioctl_desc compat_layout(const struct cuse_ioctl_desc *native,
					    const struct compat32_form *form)
{
	struct cuse_ioctl_desc d = *native;
	d.cmd = form->cmd;
	d.name = form->name;
	d.size = _IOC_SIZE(form->cmd);
	d.native_cmd = native->cmd;
	d.native_size = native->size;
	d.to_native = form->to_native;
	d.from_native = form->from_native;
	return d;
}

size_t requests_compat_layouts(struct cuse_ioctl_desc *out, size_t n, size_t max)
{
	size_t count, total = n;
	const struct compat32_form *forms = compat32_forms(&count);
	struct compat32_form staged[2];
	compat32_buffer_forms(UVCUSE_IOC_DQBUF_STAGED, "UVCUSE_IOC_DQBUF_STAGED (32-bit)",
			      "UVCUSE_IOC_DQBUF_STAGED (32-bit, 32-bit time)", staged);
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < count + 2 && total < max; k++) {
			const struct compat32_form *f = k < count ? &forms[k] : &staged[k - count];
			if (f->native_cmd == out[i].cmd)
				out[total++] = compat_layout(&out[i], f);
		}
	}
	return total;
}

bool requests_private_ioctl(const struct private_target *t, struct cuse_req *req,
			    unsigned int cmd, void *arg)
{
	if (cmd == UVCUSE_IOC_HELLO) {
		int r = t->bufshare ? bufshare_hello(t->bufshare, t->file, cuse_req_pid(req),
						     cuse_req_uid(req), arg)
				    : -ENOTTY;
		if (r == 0)
			bufshare_sync_node(t->bufshare, t->node_name, t->warned);
		cuse_reply_ioctl(req, r, arg);
		return true;
	}
	if (cmd == UVCUSE_IOC_EXPBUF) {
		/* without udmabuf no dma-buf can be made: ENOTTY, as from a
		 * driver that cannot export, before the argument is looked at */
		struct v4l2_exportbuffer *e = arg;
		uint32_t offset = 0;
		int r = t->udmabuf < 0 || !t->queue ? -ENOTTY :
						      vq_expbuf(t->queue, t->owner, e, &offset);
		if (r == 0) {
			e->fd = -1;
			e->reserved[0] = offset;
		}
		cuse_reply_ioctl(req, r, arg);
		return true;
	}
	if (cmd == UVCUSE_IOC_SET_FLAGS) {
		const struct uvcuse_file_flags *ff = arg;
		if (ff->magic != UVCUSE_MAGIC) {
			cuse_reply_ioctl(req, -EINVAL, arg);
			return true;
		}
		int flags = cuse_file_flags(t->cuse) & ~O_NONBLOCK;
		cuse_file_set_flags(t->cuse, flags | ((int)ff->flags & O_NONBLOCK));
		cuse_reply_ioctl(req, 0, arg);
		return true;
	}
	return false;
}

/* A request that waits: a DQBUF or DQEVENT for a frame or an event, or a
 * STREAMON for the camera to take the commit. */
static void park_ioctl(struct dev_file *df, struct cuse_req *req, unsigned int cmd, void *arg,
		       bool staged, bool streamon)
{
	struct parked *p = calloc(1, sizeof(*p));
	if (!p) {
		cuse_reply_ioctl(req, -ENOMEM, arg);
		return;
	}
	p->req = req;
	p->cmd = cmd;
	p->staged = staged;
	p->streamon = streamon;
	memcpy(&p->arg, arg, streamon ? sizeof(int) : _IOC_SIZE(cmd));
	waiters_park(df, p);
}

/* What an answered ioctl brings about besides its reply: the MMAP hint,
 * the values apps set remembered (arg dies with the reply). */
static void ioctl_answered(struct device *dev, struct dev_file *df, struct cuse_req *req,
			   unsigned int cmd, const void *arg, const void *extra)
{
	if (cmd == VIDIOC_QUERYBUF && ((const struct v4l2_buffer *)arg)->memory == V4L2_MEMORY_MMAP)
		note_mmap_query(df, req);
	if (cmd == VIDIOC_REQBUFS && !((const struct v4l2_requestbuffers *)arg)->count)
		hint_mmap(dev, df);
	settings_store_note(dev->settings, cmd, arg, extra);
}

static void run_ioctl(struct device *dev, struct dev_file *df, struct cuse_req *req,
		      unsigned int cmd, void *arg, void *extra, size_t extra_len)
{
	dev->stats.cuse_requests++;
	if (dev->away.unplugged) {
		cuse_reply_error(req, ENODEV);
		return;
	}
	struct private_target target = { dev->share.bufshare, df, df->cuse, dev->name,
					  &dev->share.warned, df->nf.proc ? &df->nf.proc->queue : NULL,
					  &df->nf,
					  dev->share.udmabuf };
	if (requests_private_ioctl(&target, req, cmd, arg))
		return;
	/* The library's DQBUF: a USERPTR frame stays in the buffer's staging
	 * memory, which the library fetches through the buffer socket. */
	bool staged = cmd == UVCUSE_IOC_DQBUF_STAGED;
	if (staged)
		cmd = VIDIOC_DQBUF;
	/* looked up once: what it needs (the camera) and brings about (status) */
	const struct node_ioctl *info = node_ioctl_find(cmd);
	unsigned flags = info ? info->flags : 0;
	if (dev->node.async && (flags & NODE_IOC_CAMERA)) {
		calls_ioctl(dev, df, req, cmd, arg, extra, extra_len);
		return;
	}
	const void *out = NULL;
	size_t out_len = 0;
	int res = limits_buffer_memory(dev, df, cmd, arg);
	if (res == 0)
		res = node_ioctl(&dev->node, &df->nf, cmd, arg, extra, extra_len,
				 device_file_nonblocking(df), staged ? NULL : &out, &out_len);
	if (res == NODE_WAIT && _IOC_SIZE(cmd) > sizeof(((struct parked *)NULL)->arg))
		res = -EINVAL; /* cannot happen: only DQBUF and DQEVENT wait */
	if (res == NODE_WAIT || (res == 0 && cmd == VIDIOC_STREAMON && dev->stream.committing)) {
		park_ioctl(df, req, cmd, arg, staged, res == 0);
		if (res == 0)
			device_changed(dev);
		return;
	}
	if (res == 0)
		ioctl_answered(dev, df, req, cmd, arg, extra);
	waiters_reply_ioctl(dev, df, req, cmd, arg, res, out, out_len);
	if (res == 0 && (flags & NODE_IOC_STATUS))
		device_changed(dev);
}

/* Every CUSE request of a file first runs the QBUFs posted for its
 * process's queue, revokes its fast-path rings (what they published, and
 * the QBUF answers they keep, may be about to change) and republishes
 * after. */
void requests_ioctl(void *ctx, void *data, struct cuse_req *req, unsigned int cmd, void *arg,
		    void *extra, size_t extra_len)
{
	struct dev_file *df = data;
	device_rings_apply_proc(df);
	device_rings_revoke(df);
	run_ioctl(ctx, df, req, cmd, arg, extra, extra_len);
	/* buffers queued reach the camera; a parked DQBUF of this or another
	 * thread must see a stream that stopped or buffers that vanished (vb2
	 * wakes its waiters); events queued (a control set, a subscription)
	 * wake DQEVENT and POLLPRI */
	frames_request_done(df->dev);
	device_rings_publish(df);
}

static void run_read(struct device *dev, struct dev_file *df, struct cuse_req *req, size_t size,
		     off_t off, int flags)
{
	const uint8_t *buf;
	size_t len;
	int res = node_read(&dev->node, &df->nf, size, off == 0, flags & O_NONBLOCK, &buf, &len);
	if (res == NODE_WAIT) {
		struct parked *p = calloc(1, sizeof(*p));
		if (!p) {
			cuse_reply_error(req, ENOMEM);
			return;
		}
		p->req = req;
		p->is_read = true;
		p->size = size;
		waiters_park(df, p);
		return;
	}
	if (res < 0) {
		cuse_reply_error(req, -res);
		return;
	}
	cuse_reply_read(req, buf, len);
	node_read_done(&dev->node, &df->nf, len);
}

void requests_read(void *ctx, void *data, struct cuse_req *req, size_t size, off_t off, int flags)
{
	struct device *dev = ctx;
	struct dev_file *df = data;
	dev->stats.cuse_requests++;
	if (dev->away.unplugged) {
		cuse_reply_error(req, ENODEV);
		return;
	}
	device_rings_apply_proc(df);
	device_rings_revoke(df); /* read() emulation takes the queue */
	run_read(dev, df, req, size, off, flags);
	frames_request_done(dev);
}

unsigned requests_poll(void *ctx, void *data, unsigned requested)
{
	struct device *dev = ctx;
	struct dev_file *df = data;
	dev->stats.cuse_requests++;
	if (dev->away.unplugged) /* as v4l2_poll on an unregistered node */
		return POLLERR | POLLHUP | POLLPRI;
	device_rings_apply_proc(df);
	device_rings_apply(df); /* entries taken are no longer done buffers */
	frames_request_done(dev);
	unsigned events = node_poll(&dev->node, &df->nf, requested);
	device_rings_publish(df);
	return events;
}

void requests_interrupt(void *ctx, void *data, struct cuse_req *req)
{
	struct dev_file *df = data;
	if (calls_interrupt(ctx, req))
		return;
	for (struct parked **pp = &df->parked; *pp; pp = &(*pp)->next) {
		struct parked *p = *pp;
		if (p->req == req) {
			*pp = p->next;
			cuse_reply_error(req, EINTR);
			free(p);
			return;
		}
	}
}

/* A USERPTR DQBUF answered with frame bytes that never reached the app:
 * the buffer goes back, done, rather than being lost until STREAMOFF. */
void requests_answer_lost(void *ctx, void *data, unsigned int cmd, const void *arg)
{
	struct device *dev = ctx;
	struct dev_file *df = data;
	if (cmd != VIDIOC_DQBUF || !df || !df->nf.proc)
		return;
	const struct v4l2_buffer *b = arg;
	log_debug("DQBUF of buffer %u not delivered (interrupted): it stays done", b->index);
	/* No wake-up from here (we may be inside a reply): a DQBUF parked
	 * meanwhile gets it with the next frame, in order. */
	node_dqbuf_lost(&dev->node, &df->nf, b);
}

