#include "device/device.h"

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

#include "share/bufshare.h"
#include "share/channel.h"
#include "cuse/cuse.h"
#include "core/log.h"
#include "device/convert_stream.h"
#include "device/device_priv.h"
#include "core/loop.h"
#include "settings/settings_store.h"
#include "uvc/negotiate.h"
#include "uvc/payload.h"
#include "uvc/status.h"
#include "v4l2/node.h"
#include "uvc/quirks.h"

void device_changed(struct device *dev)
{
	if (dev->on_change)
		dev->on_change(dev->change_data);
}

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

static const struct vq_mem_ops mem_ops = { .alloc = mem_alloc, .release = mem_release };

/* The preload library's mmap (bufshare): the memfd of the MMAP buffer at
 * offset, for the queue's owner only. */
int device_buf_lookup(void *ctx, void *file, uint64_t offset, uint64_t length, int *memfd)
{
	(void)ctx;
	struct dev_file *df = file;
	struct vq *q = &df->nf.proc->queue;
	struct vq_buffer *b;
	if (q->owner != &df->nf)
		return -EACCES;
	df->fetched_buffers = true;
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

/* --- frames: device_frames.c --------------------------------------------- */

/* Frames dropped: errored ones (by the assembler, as uvcvideo drops them;
 * most never reach the device, their buffer reused at once) and those lost
 * after assembly. */
static uint64_t frames_dropped_total(const struct device *dev)
{
	return dev->assembler.stats.frames_dropped + dev->frames_dropped;
}

static void answer_parked(struct device *dev, struct dev_file *df, struct parked *p);

/* Frames or errors changed what waiting requests would get: run them
 * again, and wake pollers. */
void device_wake_all(struct device *dev)
{
	for (struct dev_file *df = dev->files; df; df = df->next) {
		/* a parked DQBUF takes the queue's head, which a ring may hold */
		if (df->parked)
			device_rings_revoke(df);
		struct parked *list = df->parked;
		df->parked = NULL;
		/* answer_parked puts back the ones that still wait */
		while (list) {
			struct parked *p = list;
			list = p->next;
			answer_parked(dev, df, p);
		}
		/* before the poller wakes: it may take the new frames at once */
		device_rings_publish(df);
		if (df->cuse)
			cuse_file_notify_poll(df->cuse);
	}
}

static void on_stream_error(void *opaque, int err)
{
	struct device *dev = opaque;
	if (err == -ENODEV && dev->linger) {
		device_camera_unplugged(dev); /* no error: the stream goes on after a replug */
		return;
	}
	dev->stream_failed = true;
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

static void op_probe_done(void *opaque, const struct uvc_probe *want, const struct uvc_probe *got,
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
	for (struct dev_file *df = dev->files; df; df = df->next) {
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
	dev->seq_offset = 0;
	dev->next_sequence = 0;
	dev->stream_frames0 = dev->frames;
	dev->stream_errors0 = dev->frames_error;
	if (dev->detached) {
		clock_gettime(CLOCK_MONOTONIC, &dev->frames_lost_since);
		return 0; /* the stream starts when the camera comes back */
	}
	const struct uvc_format *format = node_current_fmt(&dev->node)->format;
	uvc_assembler_reset(&dev->assembler);
	dev->assembler.drop_errors = true; /* as uvcvideo without nodrop */
	dev->assembler.no_fid = usb_camera_model(dev->cam)->quirks & UVC_QUIRK_STREAM_NO_FID;
	uvc_assembler_set_expected(&dev->assembler,
				   fmt_is_compressed(format) || format->kind != UVC_FORMAT_UNCOMPRESSED ?
					   0 :
					   probe->max_video_frame_size);
	dev->stream_failed = false;
	/* the converters of the processes streaming (after a replug: all) */
	int err = frames_start(dev);
	if (err)
		return err;
	/* the commit waits for the camera in line with the control requests;
	 * the stream starts when it is taken (on_committed) */
	uint8_t bytes[48];
	size_t size = uvc_probe_size(usb_camera_model(dev->cam)->bcd_uvc);
	uvc_probe_encode(probe, bytes, size);
	dev->commit_probe = *probe;
	err = usb_vs_submit(dev->cam, 0, UVC_SET_CUR, UVC_VS_COMMIT_CONTROL, bytes,
				(uint16_t)size, on_committed, dev, &dev->committing);
	if (err) {
		dev->committing = NULL;
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
	dev->committing = NULL;
	const struct uvc_probe *probe = &dev->commit_probe;
	size_t size = uvc_probe_size(usb_camera_model(dev->cam)->bcd_uvc);
	int err = result < 0 ? result : (size_t)result == size ? 0 : -EIO;
	if (err) {
		log_warn("SET_CUR(COMMIT): %s", strerror(-err));
	} else {
		err = usb_stream_start(dev->cam, 0, probe, &dev->assembler, on_stream_error, dev);
		if (err)
			log_error("cannot start the stream: %s", strerror(-err));
		else if (usb_camera_model(dev->cam)->quirks & UVC_QUIRK_RESTORE_CTRLS_ON_INIT)
			restore_controls(dev);
	}
	if (err == -ENODEV && dev->linger) {
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

static void op_stream_off(void *opaque)
{
	struct device *dev = opaque;
	if (dev->committing) { /* stopped before it started: STREAMON did its part */
		usb_ctrl_cancel(dev->committing);
		dev->committing = NULL;
		device_answer_streamons(dev, 0);
	}
	usb_stream_stop(dev->cam);
	device_stop_frames(dev);
	log_info("stream stopped after %llu frames (%llu with errors)",
		 (unsigned long long)(dev->frames - dev->stream_frames0),
		 (unsigned long long)(dev->frames_error - dev->stream_errors0));
}

/* Synchronous: for start-up only (GET_INFO, saved settings), before the
 * node is registered; once clients may come the node is asynchronous and
 * its requests go through the call queue (camera_call). */
static int op_ctrl_request(void *opaque, const struct ctrls_request *r, uint8_t *data)
{
	struct device *dev = opaque;
	return usb_query_ctrl(dev->cam, r->query, r->entity, r->selector, data, r->size);
}

static void op_log_status(void *opaque);

static const struct node_ops node_ops = {
	.probe_done = op_probe_done,
	.stream_on = device_stream_on,
	.stream_off = op_stream_off,
	.consumer_on = frames_consumer_on,
	.consumer_off = frames_consumer_off,
	.buffer_queued = frames_buffer_queued,
	.ctrl_request = op_ctrl_request,
	.log_status = op_log_status,
};

/* --- status endpoint: the camera's own control changes --------------------- */

static void calls_add(struct device *dev, struct camera_call *c);

/* From the loop (usb/ defers it out of libusb's event handling), so the
 * control events may read the camera. */
static void on_status_packet(void *opaque, const uint8_t *packet, size_t len)
{
	struct device *dev = opaque;
	struct uvc_status st;
	char what[160];

	uvc_status_parse(packet, len, &st);
	uvc_status_describe(&st, what, sizeof(what));
	if (st.kind == UVC_STATUS_IGNORED) {
		if (st.malformed && dev->status_malformed < 5)
			log_warn("status packet of %zu bytes ignored: %s%s", len, st.why,
				 ++dev->status_malformed == 5 ? " (further ones at debug level)" : "");
		else
			log_debug("status packet of %zu bytes ignored: %s", len, st.why);
		return;
	}
	log_debug("status: %s", what);
	/* uvcvideo acts on value changes only (info, failure, min and max
	 * changes, buttons and stream errors are logged) */
	if (st.kind != UVC_STATUS_CONTROL || st.attribute != UVC_STATUS_ATTR_VALUE)
		return;
	struct camera_call *c = calloc(1, sizeof(*c));
	if (!c) {
		log_warn("status: no memory for the change of control %u/%u", st.originator,
			 st.selector);
		return;
	}
	c->originator = st.originator;
	c->selector = st.selector;
	c->value_len = st.value_len < sizeof(c->value) ? st.value_len : sizeof(c->value);
	if (st.value && c->value_len)
		memcpy(c->value, st.value, c->value_len);
	calls_add(dev, c);
}

static void on_status_error(void *opaque, int err)
{
	struct device *dev = opaque;
	dev->status_running = false;
	if (err == -ENODEV) {
		device_camera_unplugged(dev);
		return;
	}
	log_warn("status endpoint stopped (%s): the camera's own control changes no longer "
		 "become events", strerror(-err));
}

void device_status_start(struct device *dev)
{
	int err = usb_status_start(dev->cam, on_status_packet, on_status_error, dev);
	dev->status_running = err == 0;
	if (err == -ENOENT)
		log_debug("camera has no status endpoint: no events of its own changes");
	else if (err)
		log_warn("status endpoint: %s: no events of the camera's own changes", strerror(-err));
}

/* --- VIDIOC_LOG_STATUS ------------------------------------------------------ */

/* The block goes to our log and, when we may write it, to the kernel log,
 * where v4l2-ctl --log-status looks for it (after the last "START STATUS")
 * as for a kernel driver. /dev/kmsg ratelimits ten writes per open (so it
 * is opened once, at start: reopening would reset the limit), and a
 * reader gets at most 1 KiB of a record with each line's "<N>[time] "
 * prefix added: lines are packed into records that stay under that. */
#define KMSG_PREFIX 24
#define KMSG_RECORD 960

struct status_log {
	struct device *dev;
	int kmsg;
	char rec[KMSG_RECORD];
	size_t len, shown; /* bytes, and as a reader sees them */
};

static void status_kmsg_flush(struct status_log *sl)
{
	if (sl->kmsg >= 0 && sl->len && write(sl->kmsg, sl->rec, sl->len) < 0) {
		log_debug("/dev/kmsg: %s", strerror(errno));
		sl->kmsg = -1; /* the rest of this block; the fd stays the device's */
	}
	sl->len = 0;
	sl->shown = 0;
}

/* One line to our log and the kernel's. */
static void status_write(struct status_log *sl, const char *text)
{
	char line[256];
	snprintf(line, sizeof(line), "%s", text);
	log_info("%s: %s", sl->dev->name, line);
	if (sl->kmsg < 0)
		return;
	/* app-given text (mapped control names) must not forge kernel lines */
	char raw[sizeof(line)];
	memcpy(raw, line, sizeof(raw));
	log_escape(line, sizeof(line), raw);
	/* every line ends in a newline: the kernel keeps a record without
	 * one open (unreadable) until the next record comes */
	char full[300];
	int n = snprintf(full, sizeof(full), "%suvcuse %s: %s\n", sl->len ? "" : "<6>",
			 sl->dev->name, line);
	if (n < 0)
		return;
	if (sl->len + (size_t)n >= sizeof(sl->rec) ||
	    sl->shown + (size_t)n + KMSG_PREFIX >= KMSG_RECORD) {
		status_kmsg_flush(sl);
		n = snprintf(full, sizeof(full), "<6>uvcuse %s: %s\n", sl->dev->name, line);
		if (n < 0)
			return;
	}
	size_t len = (size_t)n < sizeof(full) ? (size_t)n : sizeof(full) - 1;
	memcpy(sl->rec + sl->len, full, len);
	sl->len += len;
	sl->shown += len + KMSG_PREFIX;
}

/* A run of LOG_STATUS may be undone (it waits for the camera and runs
 * again): its lines are kept, one string each, and written once it
 * answers (status_emit). */
static void status_line(void *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void status_line(void *ctx, const char *fmt, ...)
{
	struct status_log *sl = ctx;
	struct device *dev = sl->dev;
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	size_t n = strlen(line) + 1;
	if (dev->status_len + n > dev->status_cap) {
		size_t cap = dev->status_cap ? 2 * dev->status_cap : 4096;
		while (cap < dev->status_len + n)
			cap *= 2;
		char *t = realloc(dev->status_text, cap);
		if (!t)
			return;
		dev->status_text = t;
		dev->status_cap = cap;
	}
	memcpy(dev->status_text + dev->status_len, line, n);
	dev->status_len += n;
}

static void status_emit(struct device *dev)
{
	struct status_log sl = { .dev = dev, .kmsg = dev->kmsg };
	for (size_t off = 0; off < dev->status_len; off += strlen(dev->status_text + off) + 1)
		status_write(&sl, dev->status_text + off);
	status_kmsg_flush(&sl);
	dev->status_len = 0;
}

static void op_log_status(void *opaque)
{
	struct device *dev = opaque;
	const struct usb_camera_id *id = usb_camera_id(dev->cam);
	const struct uvc_camera *model = usb_camera_model(dev->cam);
	struct status_log sl = { .dev = dev, .kmsg = -1 };
	struct usb_stream_stats ss;
	struct usb_status_stats st;

	dev->status_len = 0; /* what an undone run wrote */
	usb_stream_get_stats(dev->cam, &ss);
	usb_status_get_stats(dev->cam, &st);
	status_line(&sl, "=================  START STATUS  =================");
	/* first what uvcuse --status shows, in the same words */
	struct device_status summary;
	char summary_line[512];
	device_get_status(dev, &summary);
	status_msg_line(&summary, summary_line, sizeof(summary_line));
	status_line(&sl, "%s", summary_line);
	status_line(&sl, "camera: %s%s%s, %04x:%04x, serial %s, %s", dev->node.id.card,
		    id->manufacturer[0] ? " by " : "", id->manufacturer, id->vid, id->pid,
		    id->serial[0] ? id->serial : "(none)", id->bus_info);
	status_line(&sl, "USB %x.%02x, UVC %x.%02x, status endpoint %s (%llu packets, %llu errors)",
		    id->bcd_usb >> 8, id->bcd_usb & 0xff, model->bcd_uvc >> 8, model->bcd_uvc & 0xff,
		    !model->status_endpoint ? "none" : dev->status_running ? "running" : "stopped",
		    (unsigned long long)st.packets, (unsigned long long)st.errors);
	node_log_status(&dev->node, status_line, &sl);
	char conv[160] = "";
	/* the counters stay once the converting streams stopped; threads: those
	 * of each converter (one per converting process) */
	unsigned threads, converters = frames_converters(dev, &threads);
	if (converters || dev->frames_converted || dev->frames_undecodable)
		snprintf(conv, sizeof(conv),
			 "; converted: %llu on %u threads, undecodable: %llu, no app buffer: %llu",
			 (unsigned long long)dev->frames_converted, threads,
			 (unsigned long long)dev->frames_undecodable,
			 (unsigned long long)dev->frames_no_app_buffer);
	/* "no buffer queued": frames lost because an app had given back no
	 * buffer in time (its own lateness, as with any driver): before
	 * assembly (one app), or at its copy or conversion */
	status_line(&sl, "frames: %llu, with errors: %llu, dropped: %llu, no buffer queued: %llu%s%s",
		    (unsigned long long)dev->frames, (unsigned long long)dev->frames_error,
		    (unsigned long long)frames_dropped_total(dev),
		    (unsigned long long)(dev->assembler.stats.frames_no_buffer +
					 dev->frames_no_app_buffer), conv,
		    dev->stream_failed ? "; stream failed" : "");
	status_line(&sl, "copies: %.2f per frame (%llu frames assembled straight into an app's "
			 "buffer, %llu bytes assembled, %llu copied after)",
		    dev->bytes_assembled
			    ? (double)(dev->bytes_assembled + dev->bytes_copied_after) /
				      (double)dev->bytes_assembled
			    : 0.0,
		    (unsigned long long)dev->frames_into_app,
		    (unsigned long long)dev->bytes_assembled,
		    (unsigned long long)dev->bytes_copied_after);
	status_line(&sl, "requests: %llu through CUSE, %llu through the fast path (and %llu DQBUFs "
			 "taken from its rings, %llu QBUFs posted)",
		    (unsigned long long)dev->cuse_requests, (unsigned long long)dev->chan_requests,
		    (unsigned long long)dev->ring_takes, (unsigned long long)dev->posted_qbufs);
	status_line(&sl, "transfers: %llu, packets: %llu (%llu failed), %llu bytes",
		    (unsigned long long)ss.transfers, (unsigned long long)ss.packets,
		    (unsigned long long)ss.packet_errors, (unsigned long long)ss.bytes);
	status_line(&sl, "==================  END STATUS  ==================");
}

/* --- cuse ops: requests of the apps ------------------------------------ */

bool device_file_nonblocking(const struct dev_file *df)
{
	return df->cuse && (cuse_file_flags(df->cuse) & O_NONBLOCK);
}

static bool nonblocking(const struct dev_file *df)
{
	return device_file_nonblocking(df);
}

void device_parked_fail(struct parked *p, int err)
{
	if (p->chan)
		channel_answer(p->chan, -err, &p->arg.buf, -1);
	else
		cuse_reply_error(p->req, err);
	free(p);
}

static void park(struct dev_file *df, struct parked *p)
{
	p->next = df->parked;
	df->parked = p;
	cuse_req_park(p->req); /* may call op_interrupt at once */
}

static void reply_ioctl(struct device *dev, struct dev_file *df, struct cuse_req *req,
			unsigned int cmd, void *arg, int res, const void *data, size_t len)
{
	if (res == -E2BIG && cmd == VIDIOC_DQBUF && !df->warned_userptr) {
		log_warn("pid %d: USERPTR frames larger than %u bytes cannot go through CUSE "
			 "(one ioctl moves at most %zu bytes); run the app under uvcuse-run",
			 (int)cuse_req_pid(req), dev->node.max_userptr_copy, cuse_max_chunk());
		df->warned_userptr = true;
	}
	if (res == 0 && data && cmd == VIDIOC_DQBUF) {
		const struct v4l2_buffer *b = arg;
		cuse_reply_ioctl_data(req, 0, arg, b->m.userptr, data, len);
		return;
	}
	cuse_reply_ioctl(req, res, arg);
}

/* CUSE has no mmap: the kernel answers an app's mmap() of our node with
 * ENODEV without asking us. A file that queried MMAP buffers and never had
 * one fetched by the preload library most likely met that: say once what
 * fixes it (called when the file gives its buffers up or closes). */
static void hint_mmap(struct device *dev, struct dev_file *df)
{
	if (!df->mmap_pid || df->fetched_buffers || df->mmap_pid == dev->hinted_pid)
		return;
	dev->hinted_pid = df->mmap_pid; /* once per process, not per open */
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

static void answer_parked(struct device *dev, struct dev_file *df, struct parked *p)
{
	if (p->streamon) { /* only the commit's outcome answers it (device_answer_streamons) */
		p->next = df->parked;
		df->parked = p;
		return;
	}
	if (p->is_read) {
		const uint8_t *data;
		size_t len;
		int res = node_read(&dev->node, &df->nf, p->size, true, false, &data, &len);
		if (res == NODE_WAIT) {
			p->next = df->parked;
			df->parked = p;
			return;
		}
		if (res < 0) {
			cuse_reply_error(p->req, -res);
		} else {
			cuse_reply_read(p->req, data, len);
			node_read_done(&dev->node, &df->nf, len);
		}
		free(p);
		return;
	}
	const void *data = NULL;
	size_t len = 0;
	int res = node_ioctl(&dev->node, &df->nf, p->cmd, &p->arg, NULL, 0, false,
			     p->staged ? NULL : &data, &len);
	if (res == NODE_WAIT) {
		p->next = df->parked;
		df->parked = p;
		return;
	}
	if (p->chan) {
		device_channel_reply(dev, df, p->chan, p->cmd, &p->arg.buf, res);
		free(p);
		return;
	}
	reply_ioctl(dev, df, p->req, p->cmd, &p->arg, res, data, len);
	free(p);
}

/* --- camera calls: requests that wait for the camera ------------------------ */

static void call_free(struct camera_call *c)
{
	free(c->orig);
	free(c->work);
	free(c);
}

static void release_finish(struct device *dev, struct dev_file *df);

/* The head call answered: its reply (if its caller still waits), what an
 * answered ioctl brings about, and the release it held back. */
static void call_done(struct device *dev, struct camera_call *c, int res, unsigned events)
{
	struct dev_file *df = c->df;
	void *arg = c->work, *extra = c->extra_len ? c->work + c->arg_size : NULL;
	if (!df) {
		if (res < 0)
			log_debug("status: control %u/%u has no V4L2 control", c->originator,
				  c->selector);
	} else {
		if (c->cmd == VIDIOC_LOG_STATUS)
			status_emit(dev);
		/* the camera has the values even when the caller gave up */
		if (res == 0)
			settings_store_note(dev->settings, c->cmd, arg, extra);
		if (c->req) {
			if (c->arg_size)
				memcpy(c->req_arg, arg, c->arg_size);
			if (c->extra_len)
				memcpy(c->req_extra, extra, c->extra_len);
			cuse_reply_ioctl(c->req, res, c->req_arg);
		}
	}
	if (dev->node.events_queued != events)
		device_wake_all(dev);
	if (df && res == 0 && (c->cmd == VIDIOC_S_FMT || c->cmd == VIDIOC_S_PARM))
		device_changed(dev);
	if (df && df->releasing) {
		bool more = false;
		for (struct camera_call *o = dev->calls; o; o = o->next)
			more |= o->df == df;
		if (!more)
			release_finish(dev, df);
	}
}

static void on_call_answer(void *opaque, int result, const uint8_t *answer);

/* Runs the calls in line while none waits for the camera. */
static void calls_pump(struct device *dev)
{
	if (dev->pumping)
		return; /* a call answered inside another's reply: the loop below goes on */
	dev->pumping = true;
	while (dev->calls && !dev->inflight) {
		struct camera_call *c = dev->calls;
		unsigned events = dev->node.events_queued;
		int res;
		if (c->arg_size + c->extra_len) /* a status event has none */
			memcpy(c->work, c->orig, c->arg_size + c->extra_len);
		if (!c->df)
			res = node_status_event(&dev->node, c->originator, c->selector, c->value,
						c->value_len);
		else
			res = node_ioctl(&dev->node, &c->df->nf, c->cmd, c->work,
					 c->extra_len ? c->work + c->arg_size : NULL, c->extra_len,
					 nonblocking(c->df), NULL, NULL);
		const struct node_camera_req *need =
			res == NODE_CAMERA ? node_camera_need(&dev->node) : NULL;
		if (res == NODE_CAMERA && !need)
			res = -EIO; /* cannot happen: a call waits for a request it names */
		if (need) {
			int err = need->ctrl.streaming ?
					  usb_vs_submit(dev->cam, 0, need->ctrl.query,
							need->ctrl.selector, need->out, need->ctrl.size,
							on_call_answer, dev, &dev->inflight) :
					  usb_ctrl_submit(dev->cam, need->ctrl.query, need->ctrl.entity,
							  need->ctrl.selector, need->out, need->ctrl.size,
							  on_call_answer, dev, &dev->inflight);
			if (err) {
				node_camera_answer(&dev->node, err, NULL);
				continue;
			}
			if (c->req && !c->parked) {
				c->parked = true;
				cuse_req_park(c->req); /* may answer it (op_interrupt) at once */
			}
			continue;
		}
		dev->calls = c->next;
		call_done(dev, c, res, events);
		call_free(c);
	}
	dev->pumping = false;
}

static void on_call_answer(void *opaque, int result, const uint8_t *answer)
{
	struct device *dev = opaque;
	dev->inflight = NULL;
	if (node_camera_answer(&dev->node, result, answer) < 0) {
		/* no memory for the journal: the call cannot go on */
		struct camera_call *c = dev->calls;
		log_warn("camera request: no memory to keep its answer");
		node_call_abandon(&dev->node);
		dev->calls = c->next;
		if (c->req)
			cuse_reply_ioctl(c->req, -ENOMEM, c->req_arg);
		call_done(dev, c, -ENOMEM, dev->node.events_queued);
		call_free(c);
	}
	calls_pump(dev);
}

static void calls_add(struct device *dev, struct camera_call *c)
{
	struct camera_call **pp = &dev->calls;
	while (*pp)
		pp = &(*pp)->next;
	*pp = c;
	calls_pump(dev);
}

/* An ioctl that may need the camera: in line behind the others. */
static void call_ioctl(struct device *dev, struct dev_file *df, struct cuse_req *req,
		       unsigned int cmd, void *arg, void *extra, size_t extra_len)
{
	struct camera_call *c = calloc(1, sizeof(*c));
	size_t size = _IOC_SIZE(cmd) + extra_len;
	if (c) {
		c->orig = malloc(size ? size : 1);
		c->work = malloc(size ? size : 1);
	}
	if (!c || !c->orig || !c->work) {
		if (c)
			call_free(c);
		cuse_reply_ioctl(req, -ENOMEM, arg);
		return;
	}
	c->df = df;
	c->req = req;
	c->cmd = cmd;
	c->arg_size = _IOC_SIZE(cmd);
	c->extra_len = extra_len;
	c->req_arg = arg;
	c->req_extra = extra;
	if (c->arg_size)
		memcpy(c->orig, arg, c->arg_size);
	if (extra_len)
		memcpy(c->orig + c->arg_size, extra, extra_len);
	if (dev->calls) { /* waits for the camera's other requests */
		c->parked = true;
		calls_add(dev, c);
		cuse_req_park(req);
		return;
	}
	calls_add(dev, c);
}

/* A caller interrupted while its call waits: answered now. A call not yet
 * run leaves the line; the one running goes on (the camera has its
 * request) with nobody to answer. */
static bool call_interrupt(struct device *dev, struct cuse_req *req)
{
	for (struct camera_call **pp = &dev->calls; *pp; pp = &(*pp)->next) {
		struct camera_call *c = *pp;
		if (c->req != req)
			continue;
		cuse_reply_error(req, EINTR);
		c->req = NULL;
		if (c != dev->calls || !node_call_pending(&dev->node)) {
			*pp = c->next;
			call_free(c);
		}
		return true;
	}
	return false;
}

static int op_open(void *ctx, struct cuse_file *file, int flags, void **data)
{
	struct device *dev = ctx;
	(void)flags;
	if (dev->unplugged)
		return -ENODEV;
	struct dev_file *df = calloc(1, sizeof(*df));
	if (!df)
		return -ENOMEM;
	df->dev = dev;
	df->cuse = file;
	/* the file joins its process's queue: several processes stream at
	 * once, each on its own (node.h, node_proc) */
	pid_t tgid = bufshare_tgid(cuse_file_opener(file));
	if (node_open_pid(&dev->node, &df->nf, tgid > 0 ? tgid : cuse_file_opener(file))) {
		free(df);
		return -ENOMEM;
	}
	df->next = dev->files;
	dev->files = df;
	dev->n_files++;
	*data = df;
	device_linger_update(dev);
	device_changed(dev);
	return 0;
}

/* The rest of a release, once no call of the file runs. */
static void release_finish(struct device *dev, struct dev_file *df)
{
	hint_mmap(dev, df);
	node_release(&dev->node, &df->nf);
	for (struct dev_file **pp = &dev->files; *pp; pp = &(*pp)->next) {
		if (*pp == df) {
			*pp = df->next;
			break;
		}
	}
	dev->n_files--;
	free(df);
	if (dev->unplugged && !dev->n_files) {
		log_info("the last file closed: removing /dev/%s", dev->name);
		loop_quit(dev->loop, 0);
	}
	device_linger_update(dev);
	/* a released queue may let another file's read() start */
	device_wake_all(dev);
	device_changed(dev);
}

static void op_release(void *ctx, void *data)
{
	struct device *dev = ctx;
	struct dev_file *df = data;
	device_channels_close(df);
	while (df->parked) { /* CUSE answers every request before release */
		struct parked *p = df->parked;
		df->parked = p->next;
		device_parked_fail(p, EINTR);
	}
	if (dev->bufshare)
		bufshare_forget(dev->bufshare, df);
	/* Its calls were answered (interrupted) before the release came; one
	 * may still wait for the camera, and uses the file when it runs
	 * again: the file goes when it ends, as the kernel's release waits
	 * for the ioctls in progress. Those not started just leave. */
	bool running = false;
	for (struct camera_call **pp = &dev->calls; *pp;) {
		struct camera_call *c = *pp;
		if (c->df != df) {
			pp = &c->next;
			continue;
		}
		if (c->req) { /* cannot happen: CUSE answers every request first */
			cuse_reply_error(c->req, EINTR);
			c->req = NULL;
		}
		if (c == dev->calls && node_call_pending(&dev->node)) {
			running = true;
			pp = &c->next;
			continue;
		}
		*pp = c->next;
		call_free(c);
	}
	df->cuse = NULL;
	if (running) {
		df->releasing = true;
		return;
	}
	release_finish(dev, df);
}

/* The buffer socket opens to whoever may open the node (udev may have
 * changed its group or ACL since the last HELLO). */
static void bufshare_sync_node(struct device *dev)
{
	char node[sizeof(dev->name) + 8];
	snprintf(node, sizeof(node), "/dev/%s", dev->name);
	int r = bufshare_follow_node(dev->bufshare, node);
	if (r < 0 && !dev->bufshare_warned) {
		dev->bufshare_warned = true;
		log_warn("buffer socket: cannot give it the permissions of %s: %s", node,
			 strerror(-r));
	}
}

static void run_ioctl(struct device *dev, struct dev_file *df, struct cuse_req *req,
		      unsigned int cmd, void *arg, void *extra, size_t extra_len);

/* Every CUSE request of a file first runs the QBUFs posted for its
 * process's queue, revokes its fast-path rings (what they published, and
 * the QBUF answers they keep, may be about to change) and republishes
 * after. */
static void op_ioctl(void *ctx, void *data, struct cuse_req *req, unsigned int cmd, void *arg,
		     void *extra, size_t extra_len)
{
	struct dev_file *df = data;
	device_rings_apply_proc(df);
	device_rings_revoke(df);
	run_ioctl(ctx, df, req, cmd, arg, extra, extra_len);
	device_rings_publish(df);
}

static void run_ioctl(struct device *dev, struct dev_file *df, struct cuse_req *req,
		      unsigned int cmd, void *arg, void *extra, size_t extra_len)
{
	dev->cuse_requests++;
	if (dev->unplugged) {
		cuse_reply_error(req, ENODEV);
		return;
	}
	if (cmd == UVCUSE_IOC_HELLO) {
		int r = dev->bufshare ? bufshare_hello(dev->bufshare, df, cuse_req_pid(req),
						       cuse_req_uid(req), arg)
				      : -ENOTTY;
		if (r == 0)
			bufshare_sync_node(dev);
		cuse_reply_ioctl(req, r, arg);
		return;
	}
	if (cmd == UVCUSE_IOC_SET_FLAGS) {
		const struct uvcuse_file_flags *ff = arg;
		if (ff->magic != UVCUSE_MAGIC) {
			cuse_reply_ioctl(req, -EINVAL, arg);
			return;
		}
		int flags = cuse_file_flags(df->cuse) & ~O_NONBLOCK;
		cuse_file_set_flags(df->cuse, flags | ((int)ff->flags & O_NONBLOCK));
		cuse_reply_ioctl(req, 0, arg);
		return;
	}
	if (dev->node.async && node_uses_camera(cmd)) {
		call_ioctl(dev, df, req, cmd, arg, extra, extra_len);
		return;
	}
	/* The library's DQBUF: a USERPTR frame stays in the buffer's staging
	 * memory, which the library fetches through the buffer socket. */
	bool staged = cmd == UVCUSE_IOC_DQBUF_STAGED;
	if (staged)
		cmd = VIDIOC_DQBUF;
	const void *out = NULL;
	size_t out_len = 0;
	unsigned events = dev->node.events_queued;
	int res = node_ioctl(&dev->node, &df->nf, cmd, arg, extra, extra_len, nonblocking(df),
			     staged ? NULL : &out, &out_len);
	if (res == NODE_WAIT && _IOC_SIZE(cmd) > sizeof(((struct parked *)NULL)->arg))
		res = -EINVAL; /* cannot happen: only DQBUF and DQEVENT wait */
	if (res == NODE_WAIT) {
		struct parked *p = calloc(1, sizeof(*p));
		if (!p) {
			cuse_reply_ioctl(req, -ENOMEM, arg);
			return;
		}
		p->req = req;
		p->cmd = cmd;
		p->staged = staged;
		memcpy(&p->arg, arg, _IOC_SIZE(cmd));
		park(df, p);
		return;
	}
	if (res == 0 && cmd == VIDIOC_STREAMON && dev->committing) {
		/* answered when the camera took the commit (or refused it) */
		struct parked *p = calloc(1, sizeof(*p));
		if (p) {
			p->req = req;
			p->cmd = cmd;
			p->streamon = true;
			memcpy(&p->arg, arg, sizeof(int));
			park(df, p);
			device_changed(dev);
			return;
		}
	}
	if (res == 0 && cmd == VIDIOC_QUERYBUF &&
	    ((struct v4l2_buffer *)arg)->memory == V4L2_MEMORY_MMAP)
		note_mmap_query(df, req);
	if (res == 0 && cmd == VIDIOC_REQBUFS && !((struct v4l2_requestbuffers *)arg)->count)
		hint_mmap(dev, df);
	if (res == 0) /* an app set controls: remember them (arg dies with the reply) */
		settings_store_note(dev->settings, cmd, arg, extra);
	reply_ioctl(dev, df, req, cmd, arg, res, out, out_len);
	/* A parked DQBUF of this or another thread must see a stream that
	 * stopped or buffers that vanished (vb2 wakes its waiters); events
	 * queued (a control set, a subscription) wake DQEVENT and POLLPRI. */
	if ((res == 0 && (cmd == VIDIOC_STREAMOFF || cmd == VIDIOC_REQBUFS)) ||
	    dev->node.events_queued != events)
		device_wake_all(dev);
	if (res == 0 && (cmd == VIDIOC_S_FMT || cmd == VIDIOC_S_PARM || cmd == VIDIOC_STREAMON ||
			 cmd == VIDIOC_STREAMOFF))
		device_changed(dev);
}

static void op_read(void *ctx, void *data, struct cuse_req *req, size_t size, off_t off, int flags)
{
	struct device *dev = ctx;
	struct dev_file *df = data;
	const uint8_t *buf;
	size_t len;
	dev->cuse_requests++;
	if (dev->unplugged) {
		cuse_reply_error(req, ENODEV);
		return;
	}
	device_rings_apply_proc(df);
	device_rings_revoke(df); /* read() emulation takes the queue */
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
		park(df, p);
		return;
	}
	if (res < 0) {
		cuse_reply_error(req, -res);
		return;
	}
	cuse_reply_read(req, buf, len);
	node_read_done(&dev->node, &df->nf, len);
}

static unsigned op_poll(void *ctx, void *data, unsigned requested)
{
	struct device *dev = ctx;
	struct dev_file *df = data;
	dev->cuse_requests++;
	if (dev->unplugged) /* as v4l2_poll on an unregistered node */
		return POLLERR | POLLHUP | POLLPRI;
	device_rings_apply_proc(df);
	device_rings_apply(df); /* entries taken are no longer done buffers */
	unsigned events = node_poll(&dev->node, &df->nf, requested);
	device_rings_publish(df);
	return events;
}

static void op_interrupt(void *ctx, void *data, struct cuse_req *req)
{
	struct dev_file *df = data;
	if (call_interrupt(ctx, req))
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
static void op_answer_lost(void *ctx, void *data, unsigned int cmd, const void *arg)
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

static const struct cuse_server_ops cuse_ops = {
	.open = op_open,
	.release = op_release,
	.ioctl = op_ioctl,
	.read = op_read,
	.poll = op_poll,
	.interrupt = op_interrupt,
	.answer_lost = op_answer_lost,
};

/* --- set-up ------------------------------------------------------------ */

static uint32_t running_kernel_version(void)
{
	struct utsname u;
	unsigned a = 0, b = 0, c = 0;
	if (uname(&u) == 0)
		sscanf(u.release, "%u.%u.%u", &a, &b, &c);
	return KERNEL_VERSION(a, b, c > 255 ? 255 : c);
}

/* The start-up probe, as uvc_video_init: SET_CUR with the camera's
 * defaults (GET_DEF) when it has them, then GET_CUR. */
static void startup_probe(struct device *dev, struct uvc_probe *probe)
{
	struct uvc_probe def;
	memset(probe, 0, sizeof(*probe));
	if (usb_probe_get(dev->cam, 0, UVC_GET_DEF, &def) == 0)
		usb_probe_set(dev->cam, 0, false, &def);
	if (usb_probe_get(dev->cam, 0, UVC_GET_CUR, probe) < 0)
		log_warn("camera refuses GET_CUR of the probe control: starting with its first format");
}

/* The camera's controls with the flags it reports (GET_INFO of each), read
 * before the start-up probe as uvcvideo does when it binds. */
static void startup_controls(struct device *dev, struct ctrls *c)
{
	struct ctrls_request r;
	unsigned failed = 0;
	if (ctrls_init(c, usb_camera_model(dev->cam))) {
		log_warn("too many controls: the camera is served without controls");
		memset(c, 0, sizeof(*c));
		return;
	}
	while (ctrls_next_info(c, &r)) {
		uint8_t info = 0;
		int res = usb_query_ctrl(dev->cam, UVC_GET_INFO, r.entity, r.selector, &info, 1);
		if (res < 0)
			failed++;
		ctrls_feed(c, &r, &info, res);
	}
	if (failed)
		log_warn("GET_INFO refused for %u of %u controls: using uvcvideo's flags for them",
			 failed, c->n_uvc);
	log_debug("%u UVC controls, %u V4L2 controls", c->n_uvc, c->n_maps);
}

int device_new(struct loop *loop, struct usb_ctx *usb, const struct device_config *cfg,
	       struct device **out)
{
	struct device *dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	dev->loop = loop;
	dev->usb = usb;
	dev->linger_fd = -1;
	dev->on_change = cfg->on_change;
	dev->change_data = cfg->change_data;
	char err[256] = "";
	int res = usb_camera_open(usb, &cfg->match, &dev->cam, err, sizeof(err));
	if (res) {
		/* say which camera was asked for: "... (asked for serial X)" */
		const struct usb_match *m = &cfg->match;
		char what[200] = "";
		size_t w = 0;
		if (m->by_id)
			w += (size_t)snprintf(what + w, sizeof(what) - w, " device %04x:%04x", m->vid, m->pid);
		if (m->port_path && w < sizeof(what))
			w += (size_t)snprintf(what + w, sizeof(what) - w, " bus path %s", m->port_path);
		if (m->serial && w < sizeof(what))
			snprintf(what + w, sizeof(what) - w, " serial %s", m->serial);
		if (what[0])
			log_error("%s (asked for%s)", err[0] ? err : strerror(-res), what);
		else
			log_error("%s", err[0] ? err : strerror(-res));
		free(dev);
		return res;
	}
	const struct usb_camera_id *id = usb_camera_id(dev->cam);
	const char *quirk_entry;
	uint32_t quirks = usb_camera_apply_quirks(dev->cam, cfg->has_quirks ? &cfg->quirks : NULL,
						  &quirk_entry);
	if (quirks || quirk_entry || cfg->has_quirks) {
		char names[256];
		uvc_quirks_format(quirks, names, sizeof(names));
		log_info("quirks: %s (%s%s)", names,
			 cfg->has_quirks ? "set by the configuration" : "uvcvideo's device table: ",
			 cfg->has_quirks ? "" : quirk_entry ? quirk_entry : "no entry");
		if (quirks & ~UVC_QUIRKS_APPLIED) {
			uvc_quirks_format(quirks & ~UVC_QUIRKS_APPLIED, names, sizeof(names));
			log_warn("quirks uvcuse does not apply yet: %s", names);
		}
	}
	struct node_identity ident = { .version = running_kernel_version() };
	/* cut to the V4L2 fields' size, as the kernel's strscpy does */
	if (id->product[0])
		memcpy(ident.card, id->product, sizeof(ident.card) - 1);
	else
		snprintf(ident.card, sizeof(ident.card), "UVC Camera (%04x:%04x)", id->vid, id->pid);
	/* uvcvideo (6.1) tells a device's functions apart by their name: ": "
	 * and the string, whenever the function has one, even unreadable */
	if (id->function_index) {
		size_t n = strlen(ident.card);
		if (n + 2 < sizeof(ident.card)) {
			memcpy(ident.card + n, ": ", 3);
			n += 2;
		}
		/* whole characters only, as the kernel's usb_string() writes it */
		for (const char *s = id->function; *s;) {
			size_t c = 1;
			while ((s[c] & 0xc0) == 0x80)
				c++;
			if (n + c >= sizeof(ident.card))
				break;
			memcpy(ident.card + n, s, c);
			n += c;
			s += c;
		}
		ident.card[n] = '\0';
	}
	memcpy(ident.bus_info, id->bus_info, sizeof(ident.bus_info) - 1);

	struct ctrls *ctrls = malloc(sizeof(*ctrls));
	if (!ctrls) {
		usb_camera_close(dev->cam);
		free(dev);
		return -ENOMEM;
	}
	startup_controls(dev, ctrls);
	struct uvc_probe probe;
	startup_probe(dev, &probe);
	uvc_assembler_init(&dev->assembler, frames_on_frame, dev);
	dev->assembler.need_buffer = frames_need_buffer;
	res = node_init(&dev->node, usb_camera_model(dev->cam), &ident, &probe, &node_ops, dev,
			&mem_ops, dev);
	if (res) {
		log_error("camera %04x:%04x has no format V4L2 knows", id->vid, id->pid);
		free(ctrls);
		usb_camera_close(dev->cam);
		free(dev);
		return res;
	}
	dev->node.ctrls = *ctrls;
	free(ctrls);
	dev->node.convert = cfg->convert;
	dev->node.exclusive = cfg->exclusive;
	dev->convert_threads = cfg->convert_threads;
	/* what a DQBUF reply can carry besides its struct v4l2_buffer */
	dev->node.max_userptr_copy = (uint32_t)(cuse_max_chunk() - sizeof(struct v4l2_buffer));
	snprintf(dev->name, sizeof(dev->name), "%s", cfg->name);
	/* saved controls go to the camera before any app can open the node */
	struct settings_camera scam = { .vid = id->vid, .pid = id->pid, .serial = id->serial,
					.port_path = id->port_path, .product = id->product };
	settings_store_open(loop, &dev->node, &cfg->settings, &scam, &dev->settings);
	/* from here on clients may come: camera requests no longer block */
	dev->node.async = true;
	struct cuse_server_config cc = { .devname = cfg->name, .debug = cfg->debug_cuse };
	res = cuse_server_new(loop, &cc, &cuse_ops, dev, &dev->cuse);
	if (res) {
		if (res == -EEXIST)
			log_error("name %s is taken (/dev/%s exists)", cfg->name, cfg->name);
		else if (res == -ENOENT)
			log_error("no /dev/cuse: load the cuse module (modprobe cuse)");
		else
			log_error("cannot register /dev/%s: %s", cfg->name, strerror(-res));
		settings_store_close(dev->settings);
		node_destroy(&dev->node);
		usb_camera_close(dev->cam);
		free(dev);
		return res;
	}
	/* Opened once, now, before any privilege drop (see status_log). */
	dev->kmsg = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NONBLOCK);
	if (dev->kmsg < 0)
		log_debug("/dev/kmsg: %s: LOG_STATUS goes to our log only", strerror(errno));
	device_status_start(dev);
	dev->linger = cfg->linger;
	if (dev->linger) {
		dev->linger_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		if (dev->linger_fd < 0 || loop_add(loop, dev->linger_fd, EPOLLIN, device_on_linger, dev) < 0)
			log_warn("linger timer: %s: the node stays while the camera is away",
				 strerror(errno));
	}
	/* the daemon hears of an unplug and of the camera coming back from
	 * udev through libusb (without udevd, unplugs still show in requests) */
	res = usb_ctx_watch(usb, id->vid, id->pid, device_on_camera_arrived, device_on_camera_left, dev);
	if (res)
		log_debug("no USB hotplug events (%s)", strerror(-res));
	log_info("camera %04x:%04x '%s' (%s) served as /dev/%s", id->vid, id->pid, ident.card,
		 id->bus_info, cfg->name);
	*out = dev;
	return 0;
}

void device_share_buffers(struct device *dev, struct loop *loop, const char *name)
{
	/* Without the socket the node still serves read() and USERPTR. */
	if (bufshare_new(loop, NULL, name, device_buf_lookup, dev, &dev->bufshare) < 0)
		log_warn("no buffer socket: MMAP streaming through uvcuse-run disabled");
	else
		bufshare_set_channel(dev->bufshare, device_channel_open);
}

void device_free(struct device *dev)
{
	if (!dev)
		return;
	usb_status_stop(dev->cam); /* its callbacks use dev */
	usb_ctx_unwatch(dev->usb);
	if (dev->linger_fd >= 0) {
		loop_remove(dev->loop, dev->linger_fd);
		close(dev->linger_fd);
	}
	cuse_server_free(dev->cuse);
	bufshare_free(dev->bufshare);
	if (dev->kmsg >= 0)
		close(dev->kmsg);
	settings_store_close(dev->settings); /* a change not yet saved is saved now */
	usb_ctrl_cancel(dev->inflight);
	node_call_abandon(&dev->node);
	while (dev->calls) {
		struct camera_call *c = dev->calls;
		dev->calls = c->next;
		call_free(c);
	}
	free(dev->status_text);
	while (dev->files) {
		struct dev_file *df = dev->files;
		dev->files = df->next;
		device_channels_close(df);
		while (df->parked) {
			struct parked *p = df->parked;
			df->parked = p->next;
			free(p);
		}
		free(df);
	}
	node_destroy(&dev->node); /* stops the stream, and conversion with it */
	frames_free(dev);
	usb_camera_close(dev->cam);
	free(dev);
}

void device_get_status(const struct device *dev, struct device_status *out)
{
	const struct usb_camera_id *id = usb_camera_id(dev->cam);
	struct usb_stream_stats ss;
	usb_stream_get_stats(dev->cam, &ss);
	memset(out, 0, sizeof(*out));
	snprintf(out->node, sizeof(out->node), "%s", dev->name);
	snprintf(out->card, sizeof(out->card), "%s", dev->node.id.card);
	out->vid = id->vid;
	out->pid = id->pid;
	snprintf(out->serial, sizeof(out->serial), "%s", id->serial);
	snprintf(out->manufacturer, sizeof(out->manufacturer), "%s", id->manufacturer);
	snprintf(out->product, sizeof(out->product), "%s", id->product);
	snprintf(out->port_path, sizeof(out->port_path), "%s", id->port_path);
	snprintf(out->bus_info, sizeof(out->bus_info), "%s", id->bus_info);
	out->interface = id->control_interface;
	const struct node_fmt *cur = node_current_fmt(&dev->node);
	if (cur->format && cur->frame) {
		/* what the apps get (the first process to stream, when several do) */
		out->fourcc = cur->conv_fourcc ? cur->conv_fourcc : cur->format->fourcc;
		out->width = cur->frame->width;
		out->height = cur->frame->height;
	}
	out->interval = cur->probe.interval;
	out->streaming = usb_stream_running(dev->cam);
	out->away = dev->detached;
	out->frames = dev->frames;
	out->dropped = frames_dropped_total(dev);
	out->errors = dev->frames_error;
	out->clients = dev->n_files;
	out->streamers = frames_consumers(dev);
	out->iso_bytes = out->streaming && ss.iso ? ss.packet_size : 0;
}
