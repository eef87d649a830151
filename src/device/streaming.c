/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Buffer memory and the stream: the queue's memfds, the commit and the
 * stream's start and stop (the node's camera operations, node_ops), and
 * the stream's errors. */
#include <errno.h>
#include <fcntl.h>
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
#include "cuse/cuse.h"
#include "device/internal.h"
#include "settings/settings_store.h"
#include "share/bufshare.h"
#include "share/channel.h"
#include "share/dmabuf_map.h"
#include "uvc/negotiate.h"
#include "uvc/payload.h"
#include "uvc/quirks.h"
#include "uvc/status.h"
#include "v4l2/node.h"


/* Buffer memory: one memfd per buffer, mapped here; a later preload
 * library maps the same memfd into the app. */
static int mem_alloc(void *data, struct vq_buffer *b, size_t size)
{
	(void)data;
	long page = sysconf(_SC_PAGESIZE);
	size_t length = (size + (size_t)page - 1) / (size_t)page * (size_t)page;
	if (!length)
		length = (size_t)page;
	int fd = memfd_create("uvcuse-buffer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)length) < 0) {
		int err = -errno;
		close(fd);
		return err;
	}
	void *mem = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED) {
		int err = -errno;
		close(fd);
		return err;
	}
	b->mem = mem;
	b->length = length;
	b->mem_priv = (void *)(intptr_t)fd;
	return 0;
}

static void mem_release(void *data, struct vq_buffer *b)
{
	frames_forget_buffer(data, b);
	if (b->mem)
		munmap(b->mem, b->length);
	close((int)(intptr_t)b->mem_priv);
	b->mem = NULL;
}

/* An imported dma-buf's writes, bracketed (mem_priv: the dma-buf). */
static void mem_sync(void *data, struct vq_buffer *b, bool start)
{
	(void)data;
	dmabuf_sync_write((int)(intptr_t)b->mem_priv, start);
}

/* Allocated memfds and imported dma-bufs alike: mem_priv is the fd, mem
 * its mapping of length bytes. */
const struct vq_mem_ops device_mem_ops = { .alloc = mem_alloc, .release = mem_release,
					   .sync = mem_sync };

/* The preload library's mmap (bufshare): the memfd of the MMAP buffer at
 * offset, for the queue's owner only. */
int device_queue_memfd(struct vq *q, const void *owner, uint64_t offset, uint64_t length,
		       int *memfd)
{
	struct vq_buffer *b;
	if (q->owner != owner)
		return -EACCES;
	if (offset & UVCUSE_STAGING_FLAG) { /* a USERPTR buffer's staging memory */
		uint64_t index = offset & ~UVCUSE_STAGING_FLAG;
		if (q->memory != V4L2_MEMORY_USERPTR || index >= q->n_buffers)
			return -EINVAL;
		b = &q->buffers[index];
		if (length > b->length)
			return -EINVAL;
		*memfd = (int)(intptr_t)b->mem_priv;
		return 0;
	}
	int err = vq_mmap_find(q, offset, length, &b);
	if (err < 0)
		return err;
	*memfd = (int)(intptr_t)b->mem_priv;
	return 0;
}

int device_buf_lookup(void *ctx, void *file, uint64_t offset, uint64_t length, int *memfd)
{
	(void)ctx;
	struct dev_file *df = file;
	int err = device_queue_memfd(&df->nf.proc->queue, &df->nf, offset, length, memfd);
	if (err != -EACCES)
		df->fetched_buffers = true;
	return err;
}

int device_buf_import(void *ctx, void *file, unsigned index, int app_fd, int dmabuf)
{
	static struct log_limit limit;
	(void)ctx;
	struct dev_file *df = file;
	/* the QBUFs posted before come first, as for a request; then the
	 * ring's QBUF answers go: they name the dma-buf this may replace */
	device_rings_apply(df);
	device_rings_apply_proc(df);
	device_rings_revoke(df);
	struct dmabuf_map m;
	int err = dmabuf_map(dmabuf, &m);
	if (err) {
		if (log_allowed(&limit, 2))
			log_info("a DMABUF QBUF's fd %d cannot be used: not a dma-buf, or one "
				 "its exporter does not let the CPU map for writing", app_fd);
		return err;
	}
	struct vq_dmabuf mem = { .mem = m.mem, .length = m.size, .priv = (void *)(intptr_t)dmabuf };
	err = vq_attach_dmabuf(&df->nf.proc->queue, &df->nf, index, app_fd, &mem);
	if (err)
		dmabuf_unmap(&m);
	return err;
}

static void on_stream_error(void *opaque, int err)
{
	struct device *dev = opaque;
	if (err == -ENODEV && dev->away.linger) {
		device_camera_unplugged(dev); /* no error: the stream goes on after a replug */
		return;
	}
	dev->stream.failed = true;
	node_set_error(&dev->node);
	device_wake_all(dev);
	if (err == -ENODEV) {
		device_camera_unplugged(dev);
		return;
	}
	log_error("stream stopped: %s", strerror(-err));
}

/* --- node_ops: the camera side of the V4L2 semantics --------------------- */

static void log_probe_note(void *ctx, const char *text)
{
	(void)ctx;
	log_warn("%s", text);
}

void streaming_probe_done(void *opaque, const struct uvc_probe *want, const struct uvc_probe *got,
			  int err, const struct uvc_probe_notes *notes)
{
	(void)opaque;
	uvc_probe_notes_describe(notes, got, log_probe_note, NULL);
	if (err)
		log_warn("probe of format %u frame %u refused: %s", want->format_index,
			 want->frame_index, strerror(-err));
}

static void on_committed(void *opaque, int result, const uint8_t *answer);

/* The STREAMONs waiting for the commit get its outcome. */
void device_answer_streamons(struct device *dev, int err)
{
	for (struct dev_file *df = dev->open.list; df; df = df->next) {
		for (struct parked **pp = &df->parked; *pp;) {
			struct parked *p = *pp;
			if (!p->streamon) {
				pp = &p->next;
				continue;
			}
			*pp = p->next;
			cuse_reply_ioctl(p->req, err, &p->arg);
			free(p);
		}
	}
}

int device_stream_on(void *opaque, const struct uvc_probe *probe)
{
	struct device *dev = opaque;
	/* a new stream counts from 0 (a resumed one: device_on_camera_arrived) */
	dev->stream.seq_offset = 0;
	dev->stream.next_sequence = 0;
	dev->stream.frames0 = dev->stats.frames;
	dev->stream.errors0 = dev->stats.frames_error;
	if (dev->away.detached) {
		clock_gettime(CLOCK_MONOTONIC, &dev->away.frames_lost_since);
		return 0; /* the stream starts when the camera comes back */
	}
	const struct uvc_format *format = node_current_fmt(&dev->node)->format;
	uvc_assembler_reset(&dev->frames.assembler);
	/* UVC 1.1 commits the clock's frequency; 1.0 names it in the header */
	uvc_stamper_init(&dev->frames.stamper,
			 probe->clock_frequency ? probe->clock_frequency
						: usb_camera_model(dev->cam)->clock_frequency,
			 dev->frames.camera_clock, (uint64_t)probe->interval * 100u);
	dev->frames.assembler.drop_errors = dev->frames.drop_errored;
	dev->frames.assembler.no_fid = usb_camera_model(dev->cam)->quirks & UVC_QUIRK_STREAM_NO_FID;
	uvc_assembler_set_expected(&dev->frames.assembler,
				   fmt_is_compressed(format) || format->kind != UVC_FORMAT_UNCOMPRESSED ?
					   0 :
					   probe->max_video_frame_size);
	dev->stream.failed = false;
	/* the converters of the processes streaming (after a replug: all) */
	int err = frames_start(dev);
	if (err)
		return err;
	/* the commit waits for the camera in line with the control requests;
	 * the stream starts when it is taken (on_committed) */
	uint8_t bytes[48];
	size_t size = uvc_probe_size(usb_camera_model(dev->cam)->bcd_uvc);
	uvc_probe_encode(probe, bytes, size);
	dev->stream.commit_probe = *probe;
	err = usb_vs_submit(dev->cam, 0, UVC_SET_CUR, UVC_VS_COMMIT_CONTROL, bytes,
				(uint16_t)size, on_committed, dev, &dev->stream.committing);
	if (err) {
		dev->stream.committing = NULL;
		log_error("cannot commit the stream: %s", strerror(-err));
		device_stop_frames(dev);
		return err == -ENODEV ? err : -EIO;
	}
	return 0;
}

static void on_restored(void *opaque, int result, const uint8_t *answer)
{
	(void)opaque, (void)answer;
	if (result < 0) /* uvcvideo ignores it too: the camera keeps its own value */
		log_warn("restoring a control after the stream start: %s", strerror(-result));
}

/* UVC_QUIRK_RESTORE_CTRLS_ON_INIT: cameras that reset some controls when
 * they start streaming get back every one an app changed, as uvcvideo
 * sends them after its URBs (uvc_ctrl_restore_values). */
static void restore_controls(struct device *dev)
{
	struct ctrls_request r;
	const uint8_t *bytes;
	unsigned sent = 0;
	for (unsigned i = 0; ctrls_restore_next(&dev->node.ctrls, i, &r, &bytes); i = r.ctrl + 1) {
		if (usb_ctrl_submit(dev->cam, UVC_SET_CUR, r.entity, r.selector, bytes, r.size,
				    on_restored, dev, NULL) == 0)
			sent++;
	}
	if (sent)
		log_info("restore_ctrls_on_init: %u controls sent again", sent);
}

/* The camera took the commit (or refused it, result < size): the stream
 * starts, or what waited for it (STREAMON, read(), poll()) hears why not. */
static void on_committed(void *opaque, int result, const uint8_t *answer)
{
	struct device *dev = opaque;
	(void)answer;
	dev->stream.committing = NULL;
	const struct uvc_probe *probe = &dev->stream.commit_probe;
	size_t size = uvc_probe_size(usb_camera_model(dev->cam)->bcd_uvc);
	int err = result < 0 ? result : (size_t)result == size ? 0 : -EIO;
	if (err) {
		log_warn("SET_CUR(COMMIT): %s", strerror(-err));
	} else {
		err = usb_stream_start(dev->cam, 0, probe, &dev->frames.assembler, on_stream_error, dev);
		if (err)
			log_error("cannot start the stream: %s", strerror(-err));
		else if (usb_camera_model(dev->cam)->quirks & UVC_QUIRK_RESTORE_CTRLS_ON_INIT)
			restore_controls(dev);
	}
	if (err == -ENODEV && dev->away.linger) {
		device_camera_unplugged(dev); /* answers the STREAMONs: on after a replug */
		return;
	}
	if (err == -ENODEV) {
		device_camera_unplugged(dev);
	} else if (err) {
		/* uvcvideo answers EIO for a commit the camera failed */
		err = err == -ENOSPC ? -ENOSPC : -EIO;
	} else {
		const struct node_fmt *run = node_current_fmt(&dev->node);
		uint32_t conv = run->conv_fourcc;
		char conv_text[160] = "";
		if (conv)
			snprintf(conv_text, sizeof(conv_text), " converted to %.4s (%s)",
				 (const char *)&conv, cfmt_reason_text(run->conv_reason));
		log_info("streaming %.4s %ux%u%s, %u us per frame",
			 (const char *)&run->format->fourcc, run->frame->width, run->frame->height,
			 conv_text, probe->interval / 10);
	}
	if (err) {
		device_stop_frames(dev);
		node_stream_failed(&dev->node);
	}
	device_answer_streamons(dev, err);
	device_wake_all(dev);
	device_changed(dev);
}

void streaming_off(void *opaque)
{
	struct device *dev = opaque;
	if (dev->stream.committing) { /* stopped before it started: STREAMON did its part */
		usb_ctrl_cancel(dev->stream.committing);
		dev->stream.committing = NULL;
		device_answer_streamons(dev, 0);
	}
	usb_stream_stop(dev->cam);
	device_stop_frames(dev);
	log_info("stream stopped after %llu frames (%llu with errors)",
		 (unsigned long long)(dev->stats.frames - dev->stream.frames0),
		 (unsigned long long)(dev->stats.frames_error - dev->stream.errors0));
}

/* Synchronous: for start-up only (GET_INFO, saved settings), before the
 * node is registered; once clients may come the node is asynchronous and
 * its requests go through the call queue (camera_call). */
int streaming_ctrl_request(void *opaque, const struct ctrls_request *r, uint8_t *data)
{
	struct device *dev = opaque;
	return usb_query_ctrl(dev->cam, r->query, r->entity, r->selector, data, r->size);
}

