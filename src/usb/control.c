/* SPDX-License-Identifier: GPL-2.0-or-later */
/* UVC class requests: controls on the VideoControl interface, and probe and
 * commit on a VideoStreaming interface, with uvcvideo's tolerance for
 * cameras that answer oddly (uvc_video.c: uvc_get_video_ctrl,
 * uvc_set_video_ctrl, uvc_probe_video, uvc_fixup_video_ctrl). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/video.h>

#include "core/log.h"
#include "usb/internal.h"
#include "uvc/negotiate.h"

/* uvcvideo's UVC_CTRL_CONTROL_TIMEOUT and UVC_CTRL_STREAMING_TIMEOUT. */
#define CONTROL_TIMEOUT_MS 5000
#define STREAMING_TIMEOUT_MS 5000
/* How long closing waits for a cancelled control transfer. */
#define CONTROL_STOP_TIMEOUT_MS 1000

int usb_class_request(struct usb_camera *cam, uint8_t iface, uint8_t query, uint8_t unit,
		      uint8_t selector, void *data, uint16_t len, unsigned timeout_ms)
{
	if (cam->gone)
		return -ENODEV;
	uint8_t type = LIBUSB_REQUEST_TYPE_CLASS | LIBUSB_RECIPIENT_INTERFACE |
		       ((query & 0x80) ? LIBUSB_ENDPOINT_IN : LIBUSB_ENDPOINT_OUT);
	int r = libusb_control_transfer(cam->handle, type, query, (uint16_t)(selector << 8),
					(uint16_t)(unit << 8 | iface), data, len, timeout_ms);
	if (r == LIBUSB_ERROR_NO_DEVICE)
		cam->gone = true;
	return r < 0 ? usb_errno(r) : r;
}

int usb_control(struct usb_camera *cam, uint8_t query, uint8_t unit, uint8_t selector, void *data,
		uint16_t len)
{
	return usb_class_request(cam, cam->model->control_interface, query, unit, selector, data,
				 len, CONTROL_TIMEOUT_MS);
}

int usb_uvc_error_errno(uint8_t code)
{
	switch (code) {
	case 1: /* not ready */
		return -EBUSY;
	case 2: /* wrong state */
		return -EILSEQ;
	case 3: /* power */
		return -EREMOTE;
	case 4: /* out of range */
		return -ERANGE;
	case 5: /* invalid unit */
	case 6: /* invalid control */
	case 7: /* invalid request: the firmware lacks what it announced */
		return -EIO;
	case 8: /* invalid value within range */
		return -EINVAL;
	default: /* 0 cannot follow a STALL; reserved or unknown codes */
		return -EPIPE;
	}
}

/* uvc_query_ctrl's reading of the first answer r (bytes or -errno) to a
 * request of len bytes into data: 1 done with *result set, 0 when it
 * stalled and the error code must be read. Shared by the synchronous and
 * the queued path so that both give the same answers. */
static int query_first_answer(struct usb_camera *cam, uint8_t query, uint8_t unit,
			      uint8_t selector, int r, uint8_t *data, uint16_t len, int *result)
{
	if (r == len) {
		*result = r;
		return 1;
	}
	/* Short answers: some cameras send only the bytes a value needs.
	 * uvcvideo (its partial-read fix, in the 6.1 stable kernels) takes
	 * what came with the rest zeroed, for any query but GET_INFO, whose
	 * single byte cannot be short; it warns once. */
	if (r > 0 && r < len && query != UVC_GET_INFO) {
		memset(data + r, 0, (size_t)(len - r));
		if (!cam->short_answer_warned)
			log_warn("%s: %s of control %u on unit %u answered %d of %u bytes: the rest "
				 "taken as zeros (said once per camera)", cam->id.port_path,
				 uvc_query_name(query), selector, unit, r, len);
		cam->short_answer_warned = true;
		*result = len;
		return 1;
	}
	if (r != -EPIPE) {
		log_warn("%s: %s of control %u on unit %u: %d (expected %u bytes)",
			 cam->id.port_path, uvc_query_name(query), selector, unit, r, len);
		*result = r < 0 ? r : -EPIPE;
		return 1;
	}
	return 0;
}

/* The answer r to the read of VC_REQUEST_ERROR_CODE_CONTROL after a STALL. */
static int query_error_answer(struct usb_camera *cam, uint8_t query, uint8_t unit,
			      uint8_t selector, int r, uint8_t code)
{
	if (r != 1)
		return r < 0 ? r : -EPIPE;
	log_debug("%s: %s of control %u on unit %u refused, error code %u", cam->id.port_path,
		  uvc_query_name(query), selector, unit, code);
	return usb_uvc_error_errno(code);
}

int usb_query_ctrl(struct usb_camera *cam, uint8_t query, uint8_t unit, uint8_t selector,
		   void *data, uint16_t len)
{
	int result;
	int r = usb_control(cam, query, unit, selector, data, len);
	if (query_first_answer(cam, query, unit, selector, r, data, len, &result))
		return result;
	/* The camera stalled: it says why in VC_REQUEST_ERROR_CODE_CONTROL. */
	uint8_t code = 0;
	r = usb_control(cam, UVC_GET_CUR, 0, UVC_VC_REQUEST_ERROR_CODE_CONTROL, &code, 1);
	return query_error_answer(cam, query, unit, selector, r, code);
}

/* ---- the same requests queued: one in flight on endpoint 0 ---- */

int usb_transfer_errno(int status, int actual_length)
{
	/* what libusb_control_transfer() returns for each completion, so the
	 * queued requests answer as the synchronous ones did */
	switch (status) {
	case LIBUSB_TRANSFER_COMPLETED:
		return actual_length;
	case LIBUSB_TRANSFER_TIMED_OUT:
		return -ETIMEDOUT;
	case LIBUSB_TRANSFER_STALL:
		return -EPIPE;
	case LIBUSB_TRANSFER_NO_DEVICE:
		return -ENODEV;
	case LIBUSB_TRANSFER_OVERFLOW:
		return -EOVERFLOW;
	default: /* ERROR, CANCELLED */
		return -EIO;
	}
}

struct usb_ctrl_req {
	struct usb_camera *cam;
	struct usb_ctrl_req *next;
	struct libusb_transfer *xfer; /* while in flight */
	uint8_t iface, query, unit, selector;
	uint16_t len;
	/* probe or commit on a streaming interface: its answer as it comes
	 * (uvcvideo reads no error code for them) */
	bool streaming;
	bool reading_error;  /* the request stalled: its error code is being read */
	bool cancelled;      /* the owner no longer wants the answer */
	int result;
	usb_ctrl_done_cb done;
	void *data;
	uint8_t *buf;        /* setup packet, then len bytes (at least 1) */
};

static void ctrl_free(struct usb_ctrl_req *r)
{
	free(r->buf);
	free(r);
}

static void ctrl_start_next(struct usb_camera *cam);

/* r is done (result set): off the queue, to the loop's list. */
static void ctrl_finish(struct usb_ctrl_req *r)
{
	struct usb_ctrlq *q = &r->cam->ctrlq;
	q->head = r->next;
	if (!q->head)
		q->tail = &q->head;
	q->busy = false;
	if (r->cancelled) {
		ctrl_free(r);
	} else {
		r->next = NULL;
		*q->done_tail = r;
		q->done_tail = &r->next;
		usb_ctx_wake(r->cam->ctx);
	}
}

static void on_ctrl_transfer(struct libusb_transfer *t);

/* Sends the head request (or, after a STALL, its error code read). */
static int ctrl_submit(struct usb_ctrl_req *r)
{
	struct usb_camera *cam = r->cam;
	if (cam->gone)
		return -ENODEV;
	uint8_t query = r->reading_error ? UVC_GET_CUR : r->query;
	uint8_t unit = r->reading_error ? 0 : r->unit;
	uint8_t selector = r->reading_error ? UVC_VC_REQUEST_ERROR_CODE_CONTROL : r->selector;
	uint16_t len = r->reading_error ? 1 : r->len;
	uint8_t type = LIBUSB_REQUEST_TYPE_CLASS | LIBUSB_RECIPIENT_INTERFACE |
		       ((query & 0x80) ? LIBUSB_ENDPOINT_IN : LIBUSB_ENDPOINT_OUT);
	struct libusb_transfer *t = libusb_alloc_transfer(0);
	if (!t)
		return -ENOMEM;
	libusb_fill_control_setup(r->buf, type, query, (uint16_t)(selector << 8),
				  (uint16_t)(unit << 8 | r->iface), len);
	libusb_fill_control_transfer(t, cam->handle, r->buf, on_ctrl_transfer, r,
				     r->streaming ? STREAMING_TIMEOUT_MS : CONTROL_TIMEOUT_MS);
	int e = libusb_submit_transfer(t);
	if (e < 0) {
		libusb_free_transfer(t);
		if (e == LIBUSB_ERROR_NO_DEVICE)
			cam->gone = true;
		return usb_errno(e);
	}
	r->xfer = t;
	cam->ctrlq.busy = true;
	return 0;
}

/* Inside libusb's event handling: records the answer, starts the next
 * request; the owner hears of it from the loop (usb_ctrl_deferred). */
static void on_ctrl_transfer(struct libusb_transfer *t)
{
	struct usb_ctrl_req *r = t->user_data;
	if (!r)
		return; /* orphaned at close: freed by orphan.c */
	struct usb_camera *cam = r->cam;
	int res = usb_transfer_errno(t->status, t->actual_length);
	if (res == -ENODEV)
		cam->gone = true;
	libusb_free_transfer(t);
	r->xfer = NULL;
	cam->ctrlq.busy = false;
	if (r->cancelled) {
		/* nobody waits for it: no error code read either */
	} else if (r->streaming) {
		r->result = res;
	} else if (!r->reading_error) {
		if (!query_first_answer(cam, r->query, r->unit, r->selector, res,
					r->buf + LIBUSB_CONTROL_SETUP_SIZE, r->len, &r->result)) {
			r->reading_error = true;
			int e = ctrl_submit(r);
			if (e == 0)
				return;
			r->result = e;
		}
	} else {
		r->result = query_error_answer(cam, r->query, r->unit, r->selector, res,
					       r->buf[LIBUSB_CONTROL_SETUP_SIZE]);
	}
	ctrl_finish(r);
	ctrl_start_next(cam);
}

static void ctrl_start_next(struct usb_camera *cam)
{
	struct usb_ctrlq *q = &cam->ctrlq;
	while (q->head && !q->busy && !q->stopping) {
		struct usb_ctrl_req *r = q->head;
		int e = ctrl_submit(r);
		if (e == 0)
			return;
		r->result = e;
		ctrl_finish(r);
	}
}

static int ctrl_enqueue(struct usb_camera *cam, uint8_t iface, bool streaming, uint8_t query,
			uint8_t unit, uint8_t selector, const void *out, uint16_t len,
			usb_ctrl_done_cb done, void *data, struct usb_ctrl_req **handle)
{
	struct usb_ctrlq *q = &cam->ctrlq;
	if (q->stopping)
		return -ENODEV;
	struct usb_ctrl_req *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->buf = calloc(1, LIBUSB_CONTROL_SETUP_SIZE + (size_t)(len ? len : 1));
	if (!r->buf) {
		free(r);
		return -ENOMEM;
	}
	r->cam = cam;
	r->iface = iface;
	r->streaming = streaming;
	r->query = query;
	r->unit = unit;
	r->selector = selector;
	r->len = len;
	r->done = done;
	r->data = data;
	if (!(query & 0x80) && len)
		memcpy(r->buf + LIBUSB_CONTROL_SETUP_SIZE, out, len);
	if (!q->tail)
		q->tail = &q->head;
	if (!q->done_tail)
		q->done_tail = &q->done;
	*q->tail = r;
	q->tail = &r->next;
	if (handle)
		*handle = r;
	ctrl_start_next(cam);
	return 0;
}

int usb_ctrl_submit(struct usb_camera *cam, uint8_t query, uint8_t unit, uint8_t selector,
		    const void *out, uint16_t len, usb_ctrl_done_cb done, void *data,
		    struct usb_ctrl_req **handle)
{
	return ctrl_enqueue(cam, cam->model->control_interface, false, query, unit, selector, out,
			    len, done, data, handle);
}

int usb_vs_submit(struct usb_camera *cam, unsigned stream, uint8_t query, uint8_t selector,
		  const void *out, uint16_t len, usb_ctrl_done_cb done, void *data,
		  struct usb_ctrl_req **handle)
{
	if (stream >= cam->model->n_streams)
		return -EINVAL;
	return ctrl_enqueue(cam, cam->model->streams[stream].interface, true, query, 0, selector,
			    out, len, done, data, handle);
}

/* Takes r out of the list at *head (whose last next pointer *tail is). */
static bool ctrl_unlink(struct usb_ctrl_req **head, struct usb_ctrl_req ***tail,
			struct usb_ctrl_req *r)
{
	for (struct usb_ctrl_req **pp = head; *pp; pp = &(*pp)->next) {
		if (*pp == r) {
			*pp = r->next;
			if (!*pp)
				*tail = pp;
			return true;
		}
	}
	return false;
}

void usb_ctrl_cancel(struct usb_ctrl_req *r)
{
	if (!r)
		return;
	struct usb_ctrlq *q = &r->cam->ctrlq;
	if (r->xfer) { /* on the wire: its completion frees it */
		r->cancelled = true;
		return;
	}
	/* answered already, or not sent yet */
	if (ctrl_unlink(&q->done, &q->done_tail, r) || ctrl_unlink(&q->head, &q->tail, r))
		ctrl_free(r);
}

bool usb_ctrl_has_work(const struct usb_camera *cam)
{
	return cam->ctrlq.done != NULL;
}

void usb_ctrl_deferred(struct usb_camera *cam)
{
	struct usb_ctrlq *q = &cam->ctrlq;
	while (q->done) {
		struct usb_ctrl_req *r = q->done;
		q->done = r->next;
		if (!q->done)
			q->done_tail = &q->done;
		/* done may queue further requests, or cancel others */
		r->done(r->data, r->result, r->buf + LIBUSB_CONTROL_SETUP_SIZE);
		ctrl_free(r);
	}
}

void usb_ctrl_stop(struct usb_camera *cam)
{
	struct usb_ctrlq *q = &cam->ctrlq;
	q->stopping = true;
	struct usb_ctrl_req *inflight = q->busy ? q->head : NULL;
	if (inflight) {
		inflight->cancelled = true; /* its callback pops and frees it */
		libusb_cancel_transfer(inflight->xfer);
		if (!usb_ctx_wait(cam->ctx, &q->busy, CONTROL_STOP_TIMEOUT_MS)) {
			/* its buffer goes with the transfer; the callback sees no request */
			log_error("%s: a control transfer did not come back; orphaned",
				  cam->id.port_path);
			usb_transfer_orphan(inflight->xfer, true);
			q->head = inflight->next;
			free(inflight);
			q->busy = false;
		}
	}
	while (q->head) {
		struct usb_ctrl_req *r = q->head;
		q->head = r->next;
		ctrl_free(r);
	}
	while (q->done) {
		struct usb_ctrl_req *r = q->done;
		q->done = r->next;
		ctrl_free(r);
	}
	q->tail = &q->head;
	q->done_tail = &q->done;
}

/* ---- probe and commit, synchronous (start-up, tools) ---- */

struct sync_vs {
	struct usb_camera *cam;
	const struct uvc_streaming *vs;
};

static int sync_vs_request(void *ctx, uint8_t query, uint8_t selector, uint8_t *data,
			   uint16_t len)
{
	struct sync_vs *s = ctx;
	return usb_class_request(s->cam, s->vs->interface, query, 0, selector, data, len,
				 STREAMING_TIMEOUT_MS);
}

static void log_note(void *ctx, const char *text)
{
	log_warn("%s: %s", ((struct usb_camera *)ctx)->id.port_path, text);
}

static const struct uvc_streaming *stream_of(struct usb_camera *cam, unsigned stream)
{
	return stream < cam->model->n_streams ? &cam->model->streams[stream] : NULL;
}

int usb_probe_get(struct usb_camera *cam, unsigned stream, uint8_t query, struct uvc_probe *p)
{
	struct sync_vs s = { cam, stream_of(cam, stream) };
	if (!s.vs)
		return -EINVAL;
	struct uvc_probe_notes notes = { 0 };
	int r = uvc_probe_read(s.vs, cam->model->bcd_uvc, sync_vs_request, &s, query, p, &notes);
	if (r == 0 && query != UVC_GET_MIN && query != UVC_GET_MAX)
		uvc_probe_fixup(s.vs, p);
	uvc_probe_notes_describe(&notes, p, log_note, cam);
	return r;
}

int usb_probe_set(struct usb_camera *cam, unsigned stream, bool commit, const struct uvc_probe *p)
{
	struct sync_vs s = { cam, stream_of(cam, stream) };
	if (!s.vs)
		return -EINVAL;
	struct uvc_probe_notes notes = { 0 };
	int r = uvc_probe_write(cam->model->bcd_uvc, sync_vs_request, &s, commit, p, &notes);
	if (r < 0)
		log_warn("%s: SET_CUR(%s): %s", cam->id.port_path, commit ? "COMMIT" : "PROBE",
			 strerror(-r));
	return r;
}

int usb_probe_negotiate(struct usb_camera *cam, unsigned stream, const struct uvc_probe *want,
			struct uvc_probe *got)
{
	struct sync_vs s = { cam, stream_of(cam, stream) };
	if (!s.vs)
		return -EINVAL;
	struct uvc_probe_notes notes;
	int r = uvc_probe_negotiate(s.vs, cam->model->bcd_uvc, sync_vs_request, &s, want, got,
				    &notes);
	uvc_probe_notes_describe(&notes, got, log_note, cam);
	return r;
}
