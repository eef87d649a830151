/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The stream engine: alternate setting, a pool of transfers always
 * resubmitted, every payload fed to the assembler from the transfer
 * callbacks (which run on the loop thread, inside libusb's event handling).
 * Work a callback cannot do there (waiting for the other transfers, calling
 * the owner's on_error, which may stop or close) is deferred to the loop
 * through the context's eventfd. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/log.h"
#include "usb/internal.h"

/* Transfers in a row that failed (or whose packets all failed) before the
 * stream is declared dead. */
#define MAX_CONSECUTIVE_FAILURES 8
/* How long stop waits for cancelled transfers. */
#define DRAIN_TIMEOUT_MS 3000

static uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int64_t now_ms(void)
{
	return (int64_t)(monotonic_ns() / 1000000u);
}

static void cancel_all(struct usb_stream *st)
{
	for (unsigned i = 0; i < st->n_xfer; i++)
		if (st->busy[i])
			libusb_cancel_transfer(st->xfer[i]);
}

/* From a callback: stop resubmitting, cancel the rest, and let the loop
 * finish the stop and report. */
static void stream_fail(struct usb_camera *cam, int err)
{
	struct usb_stream *st = &cam->stream;
	if (st->stopping)
		return;
	st->error = err;
	st->stopping = true;
	st->running = false;
	cancel_all(st);
	st->error_pending = true;
	usb_ctx_wake(cam->ctx);
}

static void feed_iso(struct usb_stream *st, struct libusb_transfer *t)
{
	unsigned bad = 0;
	for (int k = 0; k < t->num_iso_packets && !st->stopping; k++) {
		const struct libusb_iso_packet_descriptor *d = &t->iso_packet_desc[k];
		st->stats.packets++;
		if (d->status != LIBUSB_TRANSFER_COMPLETED) {
			/* A lost packet: the frame in progress is bad, as uvcvideo
			 * marks it (a compressed frame missing data has no size
			 * check to catch it). */
			st->stats.packet_errors++;
			bad++;
			uvc_assembler_packet_lost(st->asm_);
			continue;
		}
		st->stats.bytes += d->actual_length;
		if (d->actual_length)
			uvc_assembler_packet(st->asm_, libusb_get_iso_packet_buffer_simple(t, (unsigned)k),
					     d->actual_length);
	}
	if (t->num_iso_packets && bad == (unsigned)t->num_iso_packets)
		st->consecutive_failures++;
	else
		st->consecutive_failures = 0;
}

static void feed_bulk(struct usb_stream *st, struct libusb_transfer *t)
{
	uint32_t len = (uint32_t)t->actual_length;
	st->stats.packets++;
	st->stats.bytes += len;
	st->bulk_payload_bytes += len;
	/* A payload transfer ends with a short transfer (a short packet or a
	 * zero-length one), or when dwMaxPayloadTransferSize bytes came. */
	bool end = t->actual_length < t->length ||
		   (st->plan.max_payload && st->bulk_payload_bytes >= st->plan.max_payload);
	uvc_assembler_bulk(st->asm_, t->buffer, len, end);
	if (end)
		st->bulk_payload_bytes = 0;
	st->consecutive_failures = 0;
}

static void on_transfer(struct libusb_transfer *t)
{
	struct usb_camera *cam = t->user_data;
	struct usb_stream *st = &cam->stream;
	bool ours = false;
	for (unsigned i = 0; i < st->n_xfer; i++) {
		if (st->xfer[i] == t) {
			st->busy[i] = false;
			ours = true;
		}
	}
	if (!ours) /* of a stream that gave up waiting for it: forgotten */
		return;
	st->in_flight--;
	if (st->stopping)
		return;
	cam->ctx->in_callback++;
	st->stats.transfers++;
	st->asm_->now_ns = monotonic_ns(); /* a frame starting here starts now */
	switch (t->status) {
	case LIBUSB_TRANSFER_COMPLETED:
		if (st->plan.iso)
			feed_iso(st, t);
		else
			feed_bulk(st, t);
		uvc_assembler_transfer_done(st->asm_);
		break;
	case LIBUSB_TRANSFER_NO_DEVICE:
		cam->gone = true;
		log_warn("%s: camera gone while streaming", cam->id.port_path);
		stream_fail(cam, -ENODEV);
		break;
	case LIBUSB_TRANSFER_CANCELLED: /* not by us: the stream cannot go on */
		log_warn("%s: stream transfer cancelled", cam->id.port_path);
		stream_fail(cam, -EIO);
		break;
	default: /* ERROR, TIMED_OUT, STALL, OVERFLOW */
		st->stats.packet_errors++;
		st->consecutive_failures++;
		/* its data is lost: the frame in progress is bad (uvcvideo
		 * cancels its queue with an error); a half-received bulk
		 * payload transfer is lost */
		uvc_assembler_packet_lost(st->asm_);
		st->bulk_payload_bytes = 0;
		break;
	}
	if (!st->stopping && st->consecutive_failures >= MAX_CONSECUTIVE_FAILURES) {
		log_warn("%s: %u stream transfers in a row failed (last status %d)",
			cam->id.port_path, st->consecutive_failures, (int)t->status);
		stream_fail(cam, -EIO);
	}
	if (!st->stopping) {
		int r = libusb_submit_transfer(t);
		if (r == 0) {
			for (unsigned i = 0; i < st->n_xfer; i++)
				if (st->xfer[i] == t)
					st->busy[i] = true;
			st->in_flight++;
		} else {
			if (r == LIBUSB_ERROR_NO_DEVICE)
				cam->gone = true;
			else
				log_warn("%s: resubmitting a transfer: %s", cam->id.port_path,
					libusb_strerror(r));
			stream_fail(cam, usb_errno(r) == -ENODEV ? -ENODEV : -EIO);
		}
	}
	cam->ctx->in_callback--;
}

static void free_transfers(struct usb_camera *cam)
{
	struct usb_stream *st = &cam->stream;
	for (unsigned i = 0; i < st->n_xfer; i++) {
		struct libusb_transfer *t = st->xfer[i];
		if (!t)
			continue;
		if (st->devmem[i])
			libusb_dev_mem_free(cam->handle, t->buffer, st->plan.transfer_size);
		else
			free(t->buffer);
		libusb_free_transfer(t);
		st->xfer[i] = NULL;
	}
	st->n_xfer = 0;
}

/* Cancels, waits for every callback, frees, and puts the interface back
 * at rest. Must run outside libusb's event handling. */
static void stream_finish(struct usb_camera *cam)
{
	struct usb_stream *st = &cam->stream;
	st->stopping = true;
	st->running = false;
	cancel_all(st);
	int64_t deadline = now_ms() + DRAIN_TIMEOUT_MS;
	while (st->in_flight && now_ms() < deadline) {
		int r = usb_ctx_handle_events(cam->ctx, 100);
		if (r < 0 && r != -EINTR && r != -ETIMEDOUT) {
			log_warn("%s: event handling while stopping: %s", cam->id.port_path,
				strerror(-r));
			break;
		}
	}
	if (st->in_flight) {
		/* Freeing them would let libusb write into freed memory, and
		 * their callbacks would read the camera after usb_camera_close:
		 * they are orphaned (they free themselves if they ever come back). */
		log_error("%s: %u transfers did not come back; orphaned", cam->id.port_path,
			st->in_flight);
		for (unsigned i = 0; i < st->n_xfer; i++) {
			if (st->busy[i]) {
				usb_transfer_orphan(st->xfer[i], !st->devmem[i]);
				st->xfer[i] = NULL;
				st->busy[i] = false;
			}
		}
		st->leaked = true;
		st->in_flight = 0;
	}
	free_transfers(cam); /* those that came back */
	if (!cam->gone) {
		int r = st->plan.iso
				? libusb_set_interface_alt_setting(cam->handle, st->vs->interface, 0)
				: libusb_clear_halt(cam->handle, st->vs->endpoint);
		if (r == LIBUSB_ERROR_NO_DEVICE)
			cam->gone = true;
		else if (r < 0)
			log_warn("%s: %s: %s", cam->id.port_path,
				st->plan.iso ? "alternate setting 0" : "CLEAR_FEATURE(HALT)",
				libusb_strerror(r));
	}
	st->active = false;
	st->stopping = false;
}

void usb_stream_deferred(struct usb_camera *cam)
{
	struct usb_stream *st = &cam->stream;
	bool report = st->error_pending && !st->error_reported;
	st->stop_pending = false;
	st->error_pending = false;
	if (st->active)
		stream_finish(cam);
	if (report) {
		st->error_reported = true;
		if (st->on_error)
			st->on_error(st->data, st->error);
	}
}

static int alloc_transfers(struct usb_camera *cam)
{
	struct usb_stream *st = &cam->stream;
	const struct usb_stream_plan *p = &st->plan;
	unsigned devmem = 0;
	for (unsigned i = 0; i < p->n_transfers; i++) {
		struct libusb_transfer *t = libusb_alloc_transfer(p->iso ? (int)p->packets : 0);
		if (!t)
			return -ENOMEM;
		st->xfer[i] = t;
		st->n_xfer = i + 1;
		/* Device memory saves the kernel a copy per transfer; not every
		 * kernel or host controller gives it. */
		uint8_t *buf = libusb_dev_mem_alloc(cam->handle, p->transfer_size);
		st->devmem[i] = buf != NULL;
		if (buf)
			devmem++;
		else
			buf = malloc(p->transfer_size);
		if (!buf)
			return -ENOMEM;
		if (p->iso) {
			libusb_fill_iso_transfer(t, cam->handle, st->vs->endpoint, buf,
						 (int)p->transfer_size, (int)p->packets, on_transfer, cam,
						 0);
			libusb_set_iso_packet_lengths(t, p->packet_size);
		} else {
			libusb_fill_bulk_transfer(t, cam->handle, st->vs->endpoint, buf,
						  (int)p->transfer_size, on_transfer, cam, 0);
		}
	}
	log_info("%s: %u %s transfers of %u bytes (%s)", cam->id.port_path, p->n_transfers,
		p->iso ? "isochronous" : "bulk", p->transfer_size,
		devmem == p->n_transfers ? "device memory"
		: devmem		 ? "partly device memory"
					 : "heap memory");
	return 0;
}

/* The transfers that stream vs at the committed probe, as many as usbfs's
 * memory can hold. */
static int plan_transfers(struct usb_camera *cam, const struct uvc_streaming *vs,
			  const struct uvc_probe *committed, struct usb_stream_plan *plan)
{
	int r = usb_stream_plan(vs, committed, plan);
	if (r == -ENOSPC) {
		log_error("%s: no alternate setting carries %u bytes per interval",
			cam->id.port_path, committed->max_payload_transfer_size);
		return r;
	}
	if (r < 0) {
		log_warn("%s: streaming interface %u has no video endpoint", cam->id.port_path,
			vs->interface);
		return r;
	}

	/* usbfs's memory is shared by every usbfs user (other cameras too):
	 * a plan beyond it would fail at submission, so it runs smaller. */
	uint64_t budget = usb_usbfs_budget("/sys/module/usbcore/parameters/usbfs_memory_mb");
	unsigned had = usb_stream_plan_fit(plan, budget);
	if (had)
		log_warn("%s: %u transfers of %u bytes exceed usbfs_memory_mb (%llu MiB): %u in "
			 "flight instead (raise /sys/module/usbcore/parameters/usbfs_memory_mb "
			 "for more reserve)",
			 cam->id.port_path, had, plan->transfer_size,
			 (unsigned long long)(budget >> 20), plan->n_transfers);
	return 0;
}

/* Submits the allocated transfers: all of them, or those that got in
 * before usbfs's memory ran out (USB_STREAM_MIN_TRANSFERS at least). */
static int submit_transfers(struct usb_camera *cam)
{
	struct usb_stream *st = &cam->stream;
	for (unsigned i = 0; i < st->n_xfer; i++) {
		int e = libusb_submit_transfer(st->xfer[i]);
		if (e == LIBUSB_ERROR_NO_MEM && i >= USB_STREAM_MIN_TRANSFERS) {
			/* other usbfs users hold the rest of usbfs_memory_mb: run
			 * with the transfers that got in rather than fail */
			log_warn("%s: usbfs memory exhausted (usbfs_memory_mb, shared by every "
				 "usbfs user): streaming with %u transfers instead of %u",
				 cam->id.port_path, i, st->n_xfer);
			st->stats.n_transfers = i;
			break;
		}
		if (e < 0) {
			/* usbfs refuses what exceeds usbfs_memory_mb, among others */
			log_warn("%s: submitting transfer %u: %s", cam->id.port_path, i,
				libusb_strerror(e));
			return usb_errno(e);
		}
		st->busy[i] = true;
		st->in_flight++;
	}
	return 0;
}

int usb_stream_start(struct usb_camera *cam, unsigned stream, const struct uvc_probe *committed,
		     struct uvc_assembler *asm_, usb_stream_error_cb on_error, void *data)
{
	struct usb_stream *st = &cam->stream;
	if (st->active)
		return st->leaked ? -EIO : -EBUSY;
	if (!cam->ctx->loop || stream >= cam->model->n_streams || !asm_)
		return -EINVAL;
	if (cam->gone)
		return -ENODEV;
	const struct uvc_streaming *vs = &cam->model->streams[stream];
	struct usb_stream_plan plan;
	int r = plan_transfers(cam, vs, committed, &plan);
	if (r < 0)
		return r;

	memset(st, 0, sizeof(*st));
	st->index = stream;
	st->vs = vs;
	st->plan = plan;
	st->asm_ = asm_;
	st->on_error = on_error;
	st->data = data;
	st->stats.alt = plan.alt;
	st->stats.n_transfers = plan.n_transfers;
	st->stats.transfer_size = plan.transfer_size;
	st->stats.iso = plan.iso;
	st->stats.packet_size = plan.packet_size;
	st->active = true;

	if (plan.iso) {
		r = libusb_set_interface_alt_setting(cam->handle, vs->interface, plan.alt);
		if (r < 0) {
			log_warn("%s: alternate setting %u: %s", cam->id.port_path, plan.alt,
				libusb_strerror(r));
			r = usb_errno(r);
			goto fail;
		}
	}
	r = alloc_transfers(cam);
	if (r < 0) {
		log_warn("%s: cannot allocate the transfers", cam->id.port_path);
		goto fail;
	}
	st->running = true;
	r = submit_transfers(cam);
	if (r < 0)
		goto fail;
	return 0;
fail:
	if (r == -ENODEV)
		cam->gone = true;
	stream_finish(cam);
	return r;
}

void usb_stream_stop(struct usb_camera *cam)
{
	struct usb_stream *st = &cam->stream;
	if (!st->active || st->leaked)
		return;
	if (cam->ctx->in_callback) {
		/* From a frame callback: no waiting here; the loop finishes. */
		st->stopping = true;
		st->running = false;
		cancel_all(st);
		st->stop_pending = true;
		usb_ctx_wake(cam->ctx);
		return;
	}
	/* The owner stops it: an error not yet reported no longer matters. */
	st->error_pending = false;
	st->stop_pending = false;
	stream_finish(cam);
}

bool usb_stream_running(const struct usb_camera *cam)
{
	return cam->stream.running;
}

void usb_stream_get_stats(const struct usb_camera *cam, struct usb_stream_stats *out)
{
	*out = cam->stream.stats;
}
