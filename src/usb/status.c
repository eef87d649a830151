/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The status interrupt endpoint: one transfer, resubmitted from its own
 * callback (which runs inside libusb's event handling and only queues the
 * packet and wakes the loop); the loop hands the packets to the owner,
 * who may then make synchronous control requests (uvcvideo likewise hands
 * a control change to a work queue before it reads anything). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/log.h"
#include "usb/internal.h"

/* Failed completions in a row before the endpoint is given up (uvcvideo
 * stops at the first; a flaky hub should not end the events for good). */
#define MAX_FAILURES 8
#define STOP_TIMEOUT_MS 3000

/* From the callback: no more transfers; the loop reports err. */
static void status_fail(struct usb_camera *cam, int err)
{
	struct usb_status *st = &cam->status;
	if (st->error_pending || st->error_reported)
		return;
	st->error = err;
	st->error_pending = true;
	usb_ctx_wake(cam->ctx);
}

static void status_submit(struct usb_camera *cam)
{
	struct usb_status *st = &cam->status;
	int r = libusb_submit_transfer(st->xfer);
	if (r == 0) {
		st->busy = true;
		return;
	}
	if (r == LIBUSB_ERROR_NO_DEVICE) {
		cam->gone = true;
		status_fail(cam, -ENODEV);
		return;
	}
	log_warn("%s: status endpoint: cannot submit: %s", cam->id.port_path, libusb_strerror(r));
	status_fail(cam, -EIO);
}

static void on_status_transfer(struct libusb_transfer *t)
{
	struct usb_camera *cam = t->user_data;
	struct usb_status *st = &cam->status;

	if (t != st->xfer)
		return; /* one a stop gave up waiting for: forgotten */
	st->busy = false;
	if (st->stopping)
		return;
	switch (t->status) {
	case LIBUSB_TRANSFER_COMPLETED:
		st->failures = 0;
		if (t->actual_length > 0) {
			unsigned tail = (st->head + st->count) % USB_STATUS_QUEUE;
			size_t len = (size_t)t->actual_length;
			if (len > USB_STATUS_MAX_PACKET)
				len = USB_STATUS_MAX_PACKET;
			memcpy(st->queue[tail], t->buffer, len);
			st->lens[tail] = (uint16_t)len;
			st->count++;
			st->stats.packets++;
			usb_ctx_wake(cam->ctx);
		}
		break;
	case LIBUSB_TRANSFER_NO_DEVICE:
		cam->gone = true;
		status_fail(cam, -ENODEV);
		return;
	case LIBUSB_TRANSFER_CANCELLED: /* not by us: someone else stopped it */
		log_warn("%s: status endpoint transfer cancelled", cam->id.port_path);
		status_fail(cam, -EIO);
		return;
	default: /* ERROR, STALL, OVERFLOW, TIMED_OUT */
		st->stats.errors++;
		if (++st->failures >= MAX_FAILURES) {
			log_warn("%s: status endpoint: %u transfers in a row failed (last status %d); "
				 "no more events from the camera",
				 cam->id.port_path, st->failures, (int)t->status);
			status_fail(cam, -EIO);
			return;
		}
		break;
	}
	if (st->count == USB_STATUS_QUEUE) {
		st->held = true; /* resubmitted once the loop took some */
		return;
	}
	status_submit(cam);
}

int usb_status_start(struct usb_camera *cam, usb_status_packet_cb on_packet,
		     void (*on_error)(void *data, int err), void *data)
{
	struct usb_status *st = &cam->status;
	const struct uvc_camera *m = cam->model;

	if (st->active)
		return -EALREADY;
	if (!m->status_endpoint || !on_packet)
		return -ENOENT;
	if (!cam->ctx->loop)
		return -EINVAL;
	if (cam->gone)
		return -ENODEV;
	/* One packet per transfer: a full-size packet would otherwise not
	 * end a longer transfer. */
	unsigned length = m->status_packet & 0x7ff;
	if (!length)
		length = 16;
	memset(st, 0, sizeof(*st));
	st->xfer = libusb_alloc_transfer(0);
	uint8_t *buf = malloc(length);
	if (!st->xfer || !buf) {
		libusb_free_transfer(st->xfer);
		st->xfer = NULL;
		free(buf);
		return -ENOMEM;
	}
	libusb_fill_interrupt_transfer(st->xfer, cam->handle, m->status_endpoint, buf, (int)length,
				       on_status_transfer, cam, 0);
	st->on_packet = on_packet;
	st->on_error = on_error;
	st->data = data;
	st->active = true;
	int r = libusb_submit_transfer(st->xfer);
	if (r < 0) {
		if (r == LIBUSB_ERROR_NO_DEVICE)
			cam->gone = true;
		usb_status_stop(cam);
		return usb_errno(r);
	}
	st->busy = true;
	log_debug("%s: status endpoint 0x%02x, %u bytes per packet", cam->id.port_path,
		  m->status_endpoint, length);
	return 0;
}

void usb_status_stop(struct usb_camera *cam)
{
	struct usb_status *st = &cam->status;
	if (!st->active)
		return;
	st->stopping = true;
	if (st->busy) {
		libusb_cancel_transfer(st->xfer);
		usb_ctx_wait(cam->ctx, &st->busy, STOP_TIMEOUT_MS);
	}
	if (st->busy) {
		/* freeing it would let libusb write into freed memory, and its
		 * callback would read the camera after usb_camera_close */
		log_error("%s: the status transfer did not come back; orphaned",
			  cam->id.port_path);
		usb_transfer_orphan(st->xfer, true);
	} else {
		free(st->xfer->buffer);
		libusb_free_transfer(st->xfer);
	}
	st->xfer = NULL;
	st->active = false;
	st->busy = false;
	st->count = 0;
	st->error_pending = false;
}

bool usb_status_has_work(const struct usb_camera *cam)
{
	const struct usb_status *st = &cam->status;
	return st->active && !st->stopping && (st->count || st->error_pending);
}

void usb_status_deferred(struct usb_camera *cam)
{
	struct usb_status *st = &cam->status;
	while (st->active && !st->stopping && st->count) {
		uint8_t packet[USB_STATUS_MAX_PACKET];
		size_t len = st->lens[st->head];
		memcpy(packet, st->queue[st->head], len);
		st->head = (st->head + 1) % USB_STATUS_QUEUE;
		st->count--;
		if (st->held && !st->busy && !st->error_pending && !st->error_reported) {
			st->held = false;
			status_submit(cam);
		}
		/* may make synchronous requests: libusb's events run in
		 * there, and with them this endpoint's callback */
		st->on_packet(st->data, packet, len);
	}
	if (st->active && !st->stopping && st->error_pending) {
		st->error_pending = false;
		st->error_reported = true;
		if (st->on_error)
			st->on_error(st->data, st->error); /* may close the camera: last */
	}
}

void usb_status_get_stats(const struct usb_camera *cam, struct usb_status_stats *out)
{
	*out = cam->status.stats;
}
