/* SPDX-License-Identifier: GPL-2.0-or-later */
/* VIDIOC_LOG_STATUS: the device's state in one block of lines, kept while
 * the call may still be undone, then written to our log and /dev/kmsg. */
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
#include "uvc/negotiate.h"
#include "uvc/payload.h"
#include "uvc/quirks.h"
#include "uvc/status.h"
#include "v4l2/node.h"

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
 * answers (log_status_emit). */
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
	if (dev->log.len + n > dev->log.cap) {
		size_t cap = dev->log.cap ? 2 * dev->log.cap : 4096;
		while (cap < dev->log.len + n)
			cap *= 2;
		char *t = realloc(dev->log.text, cap);
		if (!t)
			return;
		dev->log.text = t;
		dev->log.cap = cap;
	}
	memcpy(dev->log.text + dev->log.len, line, n);
	dev->log.len += n;
}

void log_status_emit(struct device *dev)
{
	struct status_log sl = { .dev = dev, .kmsg = dev->log.kmsg };
	for (size_t off = 0; off < dev->log.len; off += strlen(dev->log.text + off) + 1)
		status_write(&sl, dev->log.text + off);
	status_kmsg_flush(&sl);
	dev->log.len = 0;
}

void log_status_run(void *opaque)
{
	struct device *dev = opaque;
	const struct usb_camera_id *id = usb_camera_id(dev->cam);
	const struct uvc_camera *model = usb_camera_model(dev->cam);
	struct status_log sl = { .dev = dev, .kmsg = -1 };
	struct usb_stream_stats ss;
	struct usb_status_stats st;

	dev->log.len = 0; /* what an undone run wrote */
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
		    !model->status_endpoint ? "none" : dev->calls.status_running ? "running" : "stopped",
		    (unsigned long long)st.packets, (unsigned long long)st.errors);
	node_log_status(&dev->node, status_line, &sl);
	char conv[160] = "";
	/* the counters stay once the converting streams stopped; threads: those
	 * of each converter (one per converting process) */
	unsigned threads, converters = frames_converters(dev, &threads);
	if (converters || dev->stats.frames_converted || dev->stats.frames_undecodable)
		snprintf(conv, sizeof(conv),
			 "; converted: %llu on %u threads, undecodable: %llu, no app buffer: %llu",
			 (unsigned long long)dev->stats.frames_converted, threads,
			 (unsigned long long)dev->stats.frames_undecodable,
			 (unsigned long long)dev->stats.frames_no_app_buffer);
	/* "no buffer queued": frames lost because an app had given back no
	 * buffer in time (its own lateness, as with any driver): before
	 * assembly (one app), or at its copy or conversion */
	status_line(&sl, "frames: %llu, with errors: %llu, dropped: %llu, no buffer queued: %llu%s%s",
		    (unsigned long long)dev->stats.frames, (unsigned long long)dev->stats.frames_error,
		    (unsigned long long)frames_dropped_total(dev),
		    (unsigned long long)(dev->frames.assembler.stats.frames_no_buffer +
					 dev->stats.frames_no_app_buffer), conv,
		    dev->stream.failed ? "; stream failed" : "");
	status_line(&sl, "copies: %.2f per frame (%llu frames assembled straight into an app's "
			 "buffer, %llu bytes assembled, %llu copied after)",
		    dev->stats.bytes_assembled
			    ? (double)(dev->stats.bytes_assembled + dev->stats.bytes_copied_after) /
				      (double)dev->stats.bytes_assembled
			    : 0.0,
		    (unsigned long long)dev->stats.frames_into_app,
		    (unsigned long long)dev->stats.bytes_assembled,
		    (unsigned long long)dev->stats.bytes_copied_after);
	status_line(&sl, "requests: %llu through CUSE, %llu through the fast path (and %llu DQBUFs "
			 "taken from its rings, %llu QBUFs posted)",
		    (unsigned long long)dev->stats.cuse_requests, (unsigned long long)dev->stats.chan_requests,
		    (unsigned long long)dev->stats.ring_takes, (unsigned long long)dev->stats.posted_qbufs);
	status_line(&sl, "transfers: %llu, packets: %llu (%llu failed), %llu bytes",
		    (unsigned long long)ss.transfers, (unsigned long long)ss.packets,
		    (unsigned long long)ss.packet_errors, (unsigned long long)ss.bytes);
	status_line(&sl, "==================  END STATUS  ==================");
}

