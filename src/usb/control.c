/* UVC class requests: controls on the VideoControl interface, and probe and
 * commit on a VideoStreaming interface, with uvcvideo's tolerance for
 * cameras that answer oddly (uvc_video.c: uvc_get_video_ctrl,
 * uvc_set_video_ctrl, uvc_probe_video, uvc_fixup_video_ctrl). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/video.h>

#include "log.h"
#include "usb/internal.h"

/* uvcvideo's UVC_CTRL_CONTROL_TIMEOUT and UVC_CTRL_STREAMING_TIMEOUT. */
#define CONTROL_TIMEOUT_MS 5000
#define STREAMING_TIMEOUT_MS 5000
/* How long closing waits for a cancelled control transfer. */
#define CONTROL_STOP_TIMEOUT_MS 1000

static const char *query_name(uint8_t q)
{
	switch (q) {
	case UVC_SET_CUR:
		return "SET_CUR";
	case UVC_GET_CUR:
		return "GET_CUR";
	case UVC_GET_MIN:
		return "GET_MIN";
	case UVC_GET_MAX:
		return "GET_MAX";
	case UVC_GET_RES:
		return "GET_RES";
	case UVC_GET_LEN:
		return "GET_LEN";
	case UVC_GET_INFO:
		return "GET_INFO";
	case UVC_GET_DEF:
		return "GET_DEF";
	default:
		return "?";
	}
}

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
				 query_name(query), selector, unit, r, len);
		cam->short_answer_warned = true;
		*result = len;
		return 1;
	}
	if (r != -EPIPE) {
		log_warn("%s: %s of control %u on unit %u: %d (expected %u bytes)",
			 cam->id.port_path, query_name(query), selector, unit, r, len);
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
		  query_name(query), selector, unit, code);
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
	uint8_t query, unit, selector;
	uint16_t len;
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
				  (uint16_t)(unit << 8 | cam->model->control_interface), len);
	libusb_fill_control_transfer(t, cam->handle, r->buf, on_ctrl_transfer, r,
				     CONTROL_TIMEOUT_MS);
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

int usb_ctrl_submit(struct usb_camera *cam, uint8_t query, uint8_t unit, uint8_t selector,
		    const void *out, uint16_t len, usb_ctrl_done_cb done, void *data,
		    struct usb_ctrl_req **handle)
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
	ctrl_start_next(cam);
	if (handle)
		*handle = r;
	return 0;
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

static uint32_t max_alt_bytes(const struct uvc_streaming *vs)
{
	uint32_t m = 0;
	for (unsigned i = 0; i < vs->n_alts; i++)
		if (vs->alts[i].bytes > m)
			m = vs->alts[i].bytes;
	return m;
}

unsigned usb_probe_fixup(const struct uvc_streaming *vs, struct uvc_probe *p)
{
	unsigned fixed = 0;
	const struct uvc_format *fmt = uvc_stream_find_format(vs, p->format_index);
	const struct uvc_frame *fr = uvc_format_find_frame(fmt, p->frame_index);
	if (fr && fr->max_buffer_size) {
		/* uvcvideo's UVC_FMT_FLAG_COMPRESSED: MJPEG, variable-size
		 * frame-based formats. */
		bool compressed = fmt->kind == UVC_FORMAT_MJPEG ||
				  (fmt->kind == UVC_FORMAT_FRAME_BASED && fmt->flags);
		if ((!compressed || p->max_video_frame_size == 0) &&
		    p->max_video_frame_size != fr->max_buffer_size) {
			p->max_video_frame_size = fr->max_buffer_size;
			fixed |= USB_FIXUP_FRAME_SIZE;
		}
	}
	/* A Chicony camera sign-extends a 16-bit bandwidth (uvcvideo). */
	if ((p->max_payload_transfer_size & 0xffff0000u) == 0xffff0000u) {
		p->max_payload_transfer_size &= 0xffffu;
		fixed |= USB_FIXUP_PAYLOAD_SIGN;
	}
	if (vs->transfer == UVC_TRANSFER_ISOCHRONOUS && vs->n_alts) {
		uint32_t m = max_alt_bytes(vs);
		if (p->max_payload_transfer_size == 0 || p->max_payload_transfer_size > m) {
			p->max_payload_transfer_size = m;
			fixed |= USB_FIXUP_PAYLOAD_ISO;
		}
	}
	return fixed;
}

static const struct uvc_streaming *stream_of(struct usb_camera *cam, unsigned stream)
{
	return stream < cam->model->n_streams ? &cam->model->streams[stream] : NULL;
}

/* GET_* of the probe control, decoded, without repairs. */
static int probe_get_raw(struct usb_camera *cam, unsigned stream, uint8_t query,
			 struct uvc_probe *p)
{
	const struct uvc_streaming *vs = stream_of(cam, stream);
	if (!vs)
		return -EINVAL;
	size_t size = uvc_probe_size(cam->model->bcd_uvc);
	uint8_t buf[48] = { 0 };
	int r = usb_class_request(cam, vs->interface, query, 0, UVC_VS_PROBE_CONTROL, buf,
				  (uint16_t)size, STREAMING_TIMEOUT_MS);
	if (r < 0)
		return r;
	if ((query == UVC_GET_MIN || query == UVC_GET_MAX) && r == 2) {
		/* Bison-based cameras answer with wCompQuality only (uvcvideo). */
		memset(p, 0, sizeof(*p));
		p->comp_quality = (uint16_t)(buf[0] | buf[1] << 8);
		return 0;
	}
	/* A shorter layout of an older UVC version is accepted (UVC 1.1
	 * cameras answering 26 bytes); anything else is not a probe. */
	if ((size_t)r != size && !((r == 26 || r == 34) && (size_t)r < size)) {
		log_warn("%s: %s(PROBE) answered %d bytes, expected %zu", cam->id.port_path,
			query_name(query), r, size);
		return -EIO;
	}
	return uvc_probe_decode(buf, (size_t)r, p);
}

static void log_fixup(struct usb_camera *cam, unsigned fixed, const struct uvc_probe *p)
{
	if (fixed & USB_FIXUP_FRAME_SIZE)
		log_warn("%s: probe: dwMaxVideoFrameSize taken from the frame descriptor (%u)",
			cam->id.port_path, p->max_video_frame_size);
	if (fixed & (USB_FIXUP_PAYLOAD_SIGN | USB_FIXUP_PAYLOAD_ISO))
		log_warn("%s: probe: dwMaxPayloadTransferSize repaired to %u", cam->id.port_path,
			p->max_payload_transfer_size);
}

int usb_probe_get(struct usb_camera *cam, unsigned stream, uint8_t query, struct uvc_probe *p)
{
	int r = probe_get_raw(cam, stream, query, p);
	if (r == 0 && query != UVC_GET_MIN && query != UVC_GET_MAX)
		usb_probe_fixup(stream_of(cam, stream), p);
	return r;
}

int usb_probe_set(struct usb_camera *cam, unsigned stream, bool commit, const struct uvc_probe *p)
{
	const struct uvc_streaming *vs = stream_of(cam, stream);
	if (!vs)
		return -EINVAL;
	size_t size = uvc_probe_size(cam->model->bcd_uvc);
	uint8_t buf[48];
	uvc_probe_encode(p, buf, size);
	int r = usb_class_request(cam, vs->interface, UVC_SET_CUR, 0,
				  commit ? UVC_VS_COMMIT_CONTROL : UVC_VS_PROBE_CONTROL, buf,
				  (uint16_t)size, STREAMING_TIMEOUT_MS);
	if (r < 0) {
		log_warn("%s: SET_CUR(%s): %s", cam->id.port_path, commit ? "COMMIT" : "PROBE",
			strerror(-r));
		return r;
	}
	if ((size_t)r != size) {
		log_warn("%s: SET_CUR(%s) took %d bytes of %zu", cam->id.port_path,
			commit ? "COMMIT" : "PROBE", r, size);
		return -EIO;
	}
	return 0;
}

/* GET_CUR of the probe, or, for cameras that refuse it, what was set with
 * the camera's fields (sizes, clock, framing) from GET_DEF (same format and
 * frame) or GET_MAX. */
static int probe_get_cur(struct usb_camera *cam, unsigned stream, struct uvc_probe *p)
{
	int r = probe_get_raw(cam, stream, UVC_GET_CUR, p);
	if (r == 0 || r == -ENODEV || r == -ETIMEDOUT)
		return r;
	static const uint8_t fallbacks[] = { UVC_GET_DEF, UVC_GET_MAX };
	for (size_t i = 0; i < sizeof(fallbacks); i++) {
		struct uvc_probe q;
		if (probe_get_raw(cam, stream, fallbacks[i], &q) < 0)
			continue;
		if (fallbacks[i] == UVC_GET_DEF &&
		    (q.format_index != p->format_index || q.frame_index != p->frame_index))
			continue;
		log_warn("%s: GET_CUR(PROBE) refused (%s); using %s's sizes", cam->id.port_path,
			strerror(-r), query_name(fallbacks[i]));
		p->max_video_frame_size = q.max_video_frame_size;
		p->max_payload_transfer_size = q.max_payload_transfer_size;
		p->clock_frequency = q.clock_frequency;
		p->framing_info = q.framing_info;
		p->preferred_version = q.preferred_version;
		p->min_version = q.min_version;
		p->max_version = q.max_version;
		return 0;
	}
	log_warn("%s: GET_CUR(PROBE): %s", cam->id.port_path, strerror(-r));
	return r;
}

int usb_probe_negotiate(struct usb_camera *cam, unsigned stream, const struct uvc_probe *want,
			struct uvc_probe *got)
{
	const struct uvc_streaming *vs = stream_of(cam, stream);
	if (!vs)
		return -EINVAL;
	struct uvc_probe probe = *want, min, max;
	int r = usb_probe_set(cam, stream, false, &probe);
	if (r < 0)
		return r;
	/* The compression range, to lower the quality when the camera asks
	 * for more bandwidth than the endpoint has (first-generation Logitech
	 * cameras, uvcvideo). Cameras that refuse GET_MIN/MAX (uvcvideo's
	 * PROBE_MINMAX quirk) are taken as they answer. */
	bool minmax = probe_get_raw(cam, stream, UVC_GET_MIN, &min) == 0 &&
		      probe_get_raw(cam, stream, UVC_GET_MAX, &max) == 0;
	if (cam->gone)
		return -ENODEV;
	if (minmax)
		probe.comp_quality = max.comp_quality;
	uint32_t maxpsize = max_alt_bytes(vs);
	for (int i = 0; i < 2; i++) {
		r = usb_probe_set(cam, stream, false, &probe);
		if (r < 0)
			return r;
		r = probe_get_cur(cam, stream, &probe);
		if (r < 0)
			return r;
		if (vs->transfer == UVC_TRANSFER_BULK)
			break;
		uint32_t bw = probe.max_payload_transfer_size;
		if ((bw & 0xffff0000u) == 0xffff0000u)
			bw &= 0xffffu;
		if (bw <= maxpsize || !minmax)
			break;
		log_warn("%s: camera asks %u bytes per interval, the endpoint has %u: lowering quality",
			cam->id.port_path, bw, maxpsize);
		probe.key_frame_rate = min.key_frame_rate;
		probe.p_frame_rate = min.p_frame_rate;
		probe.comp_quality = min.comp_quality;
		probe.comp_window_size = min.comp_window_size;
	}
	log_fixup(cam, usb_probe_fixup(vs, &probe), &probe);
	*got = probe;
	return 0;
}
