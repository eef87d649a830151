/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The camera behind the device under test (device_fakes.h): src/usb/usb.h
 * as the device uses it, answered by the vcam's control model and probe
 * rules. Synchronous requests are answered at once; asynchronous ones wait
 * in line until the test answers them, so that it sees the order. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/video.h>

#include "controls.h" /* tests/vcam */
#include "device_fakes.h"
#include "node_fixture.h"
#include "probe.h"    /* tests/vcam */
#include "profile.h"
#include "uvc/payload.h"
#include "vcam_fixture.h"

struct fake_usb fake_usb;

/* The camera object the device holds: all its state is fake_usb. */
struct usb_camera {
	int unused;
};
static struct usb_camera the_camera;

void fake_usb_setup(const char *profile)
{
	memset(&fake_usb, 0, sizeof(fake_usb));
	fake_usb.profile = vcam_profile_find(profile);
	ck_assert_ptr_nonnull(fake_usb.profile);
	fake_usb.vc = vcam_controls_new(fake_usb.profile->bcd_uvc);
	fake_usb.model = fixture_camera_with(fake_usb.profile, fake_usb.vc);
	struct usb_camera_id *id = &fake_usb.id;
	id->vid = 0x1d6b;
	id->pid = 0x0102;
	snprintf(id->port_path, sizeof(id->port_path), "1-1");
	snprintf(id->bus_info, sizeof(id->bus_info), "usb-fake-1");
	snprintf(id->serial, sizeof(id->serial), "SN42");
	snprintf(id->product, sizeof(id->product), "Fake Camera");
	vcam_probe_default(fake_usb.profile, &fake_usb.probe);
}

void fake_usb_teardown(void)
{
	for (unsigned i = 0; i < fake_usb.n_pending; i++)
		free(fake_usb.pending[i]);
	uvc_camera_free(fake_usb.model);
	vcam_controls_free(fake_usb.vc);
	memset(&fake_usb, 0, sizeof(fake_usb));
}

/* The probe and commit controls, as the vcam answers them. */
static int probe_answer(uint8_t query, uint8_t selector, uint8_t *data, uint16_t size)
{
	const struct vcam_profile *prof = fake_usb.profile;
	if ((selector != UVC_VS_PROBE_CONTROL && selector != UVC_VS_COMMIT_CONTROL) ||
	    size != uvc_probe_size(prof->bcd_uvc))
		return -EPIPE;
	struct uvc_probe p;
	switch (query) {
	case UVC_SET_CUR:
		uvc_probe_decode(data, size, &p);
		if (selector == UVC_VS_COMMIT_CONTROL) {
			fake_usb.committed = p;
			return size;
		}
		return vcam_probe_negotiate(prof, &p, &fake_usb.probe) ? -EPIPE : size;
	case UVC_GET_CUR:
		p = fake_usb.probe;
		break;
	case UVC_GET_MIN:
		vcam_probe_min(prof, &fake_usb.probe, &p);
		break;
	case UVC_GET_MAX:
		vcam_probe_max(prof, &fake_usb.probe, &p);
		break;
	case UVC_GET_DEF:
		vcam_probe_default(prof, &p);
		break;
	default:
		return -EPIPE;
	}
	uvc_probe_encode(&p, data, size);
	return size;
}

/* What the camera answers: the size, or -errno as uvc_query_ctrl gives it. */
static int camera_answer(bool streaming, uint8_t query, uint8_t unit, uint8_t selector,
			 uint8_t *data, uint16_t size)
{
	if (fake_usb.gone)
		return -ENODEV;
	if (fake_usb.inject) {
		int err = fake_usb.inject;
		fake_usb.inject = 0;
		return err;
	}
	if (streaming)
		return probe_answer(query, selector, data, size);
	enum vcam_entity e = vcam_entity_of(fake_usb.model, unit);
	int len = vcam_controls_request(fake_usb.vc, e, query, selector, data, size);
	if (len < 0)
		return vcam_errno(vcam_controls_error(fake_usb.vc));
	return query == UVC_SET_CUR ? size : len;
}

int usb_camera_open(struct usb_ctx *ctx, const struct usb_match *match, struct usb_camera **out,
		    char *err, size_t errlen)
{
	(void)ctx, (void)match;
	if (fake_usb.open_err) {
		snprintf(err, errlen, "fake camera refuses: %s", strerror(-fake_usb.open_err));
		return fake_usb.open_err;
	}
	*out = &the_camera;
	return 0;
}

void usb_camera_close(struct usb_camera *cam)
{
	(void)cam;
}

bool usb_camera_gone(const struct usb_camera *cam)
{
	(void)cam;
	return fake_usb.gone;
}

int usb_camera_reattach(struct usb_camera *cam, enum usb_replug_rule rule, char *err,
			size_t errlen)
{
	(void)cam;
	fake_usb.reattach_rule = rule;
	if (fake_usb.reattach_result)
		snprintf(err, errlen, "fake reattach: %s", strerror(-fake_usb.reattach_result));
	else
		fake_usb.gone = false;
	return fake_usb.reattach_result;
}

int usb_ctx_watch(struct usb_ctx *ctx, uint16_t vid, uint16_t pid, usb_hotplug_cb on_arrival,
		  usb_hotplug_cb on_left, void *data)
{
	(void)ctx, (void)vid, (void)pid;
	fake_usb.arrived = on_arrival;
	fake_usb.left = on_left;
	fake_usb.hotplug_data = data;
	return 0;
}

void usb_ctx_unwatch(struct usb_ctx *ctx)
{
	(void)ctx;
	fake_usb.arrived = fake_usb.left = NULL;
}

uint32_t usb_camera_apply_quirks(struct usb_camera *cam, const uint32_t *override,
				 const char **entry)
{
	(void)cam;
	*entry = NULL;
	fake_usb.model->quirks = override ? *override : 0;
	return fake_usb.model->quirks;
}

const struct usb_camera_id *usb_camera_id(const struct usb_camera *cam)
{
	(void)cam;
	return &fake_usb.id;
}

const struct uvc_camera *usb_camera_model(const struct usb_camera *cam)
{
	(void)cam;
	return fake_usb.model;
}

int usb_query_ctrl(struct usb_camera *cam, uint8_t query, uint8_t unit, uint8_t selector,
		   void *data, uint16_t len)
{
	(void)cam;
	fake_usb.sync_requests++;
	return camera_answer(false, query, unit, selector, data, len);
}

static int submit(bool streaming, uint8_t query, uint8_t unit, uint8_t selector, const void *out,
		  uint16_t len, usb_ctrl_done_cb done, void *data, struct usb_ctrl_req **handle)
{
	if (fake_usb.gone)
		return -ENODEV;
	ck_assert_uint_lt(fake_usb.n_pending, FAKE_USB_PENDING);
	ck_assert_uint_le(len, sizeof(((struct usb_ctrl_req *)NULL)->data));
	struct usb_ctrl_req *r = calloc(1, sizeof(*r));
	ck_assert_ptr_nonnull(r);
	*r = (struct usb_ctrl_req){ .query = query, .unit = unit, .selector = selector,
				    .streaming = streaming, .size = len, .done = done,
				    .done_data = data };
	if (query == UVC_SET_CUR && out)
		memcpy(r->data, out, len);
	fake_usb.pending[fake_usb.n_pending++] = r;
	fake_usb.async_requests++;
	if (handle)
		*handle = r;
	return 0;
}

int usb_ctrl_submit(struct usb_camera *cam, uint8_t query, uint8_t unit, uint8_t selector,
		    const void *out, uint16_t len, usb_ctrl_done_cb done, void *data,
		    struct usb_ctrl_req **handle)
{
	(void)cam;
	return submit(false, query, unit, selector, out, len, done, data, handle);
}

int usb_vs_submit(struct usb_camera *cam, unsigned stream, uint8_t query, uint8_t selector,
		  const void *out, uint16_t len, usb_ctrl_done_cb done, void *data,
		  struct usb_ctrl_req **handle)
{
	(void)cam, (void)stream;
	return submit(true, query, 0, selector, out, len, done, data, handle);
}

void usb_ctrl_cancel(struct usb_ctrl_req *r)
{
	if (!r)
		return;
	r->cancelled = true;
	fake_usb.cancels++;
}

bool fake_usb_answer(int err)
{
	if (!fake_usb.n_pending)
		return false;
	struct usb_ctrl_req *r = fake_usb.pending[0];
	memmove(&fake_usb.pending[0], &fake_usb.pending[1],
		--fake_usb.n_pending * sizeof(fake_usb.pending[0]));
	int res = err ? err :
			camera_answer(r->streaming, r->query, r->unit, r->selector, r->data, r->size);
	if (!r->cancelled && r->done)
		r->done(r->done_data, res, r->data);
	free(r);
	return true;
}

unsigned fake_usb_answer_all(void)
{
	unsigned n = 0;
	while (fake_usb_answer(0))
		n++;
	return n;
}

int usb_probe_get(struct usb_camera *cam, unsigned stream, uint8_t query, struct uvc_probe *p)
{
	(void)cam, (void)stream;
	uint8_t bytes[48];
	size_t size = uvc_probe_size(fake_usb.profile->bcd_uvc);
	int res = camera_answer(true, query, 0, UVC_VS_PROBE_CONTROL, bytes, (uint16_t)size);
	if (res < 0)
		return res;
	uvc_probe_decode(bytes, size, p);
	return 0;
}

int usb_probe_set(struct usb_camera *cam, unsigned stream, bool commit, const struct uvc_probe *p)
{
	(void)cam, (void)stream;
	uint8_t bytes[48];
	size_t size = uvc_probe_size(fake_usb.profile->bcd_uvc);
	uvc_probe_encode(p, bytes, size);
	int res = camera_answer(true, UVC_SET_CUR, 0,
				commit ? UVC_VS_COMMIT_CONTROL : UVC_VS_PROBE_CONTROL, bytes,
				(uint16_t)size);
	return res < 0 ? res : 0;
}

int usb_probe_negotiate(struct usb_camera *cam, unsigned stream, const struct uvc_probe *want,
			struct uvc_probe *got)
{
	int err = usb_probe_set(cam, stream, false, want);
	return err ? err : usb_probe_get(cam, stream, UVC_GET_CUR, got);
}

int usb_stream_start(struct usb_camera *cam, unsigned stream, const struct uvc_probe *committed,
		     struct uvc_assembler *asm_, usb_stream_error_cb on_error, void *data)
{
	(void)cam, (void)stream;
	if (fake_usb.gone)
		return -ENODEV;
	fake_usb.streaming = true;
	fake_usb.stream_starts++;
	fake_usb.committed = *committed;
	fake_usb.assembler = asm_;
	fake_usb.stream_error = on_error;
	fake_usb.stream_data = data;
	return 0;
}

void usb_stream_stop(struct usb_camera *cam)
{
	(void)cam;
	if (fake_usb.streaming)
		fake_usb.stream_stops++;
	fake_usb.streaming = false;
}

bool usb_stream_running(const struct usb_camera *cam)
{
	(void)cam;
	return fake_usb.streaming;
}

void usb_stream_get_stats(const struct usb_camera *cam, struct usb_stream_stats *st)
{
	(void)cam;
	memset(st, 0, sizeof(*st));
	st->iso = true;
}

int usb_status_start(struct usb_camera *cam, usb_status_packet_cb on_packet,
		     void (*on_error)(void *data, int err), void *data)
{
	(void)cam;
	if (fake_usb.gone)
		return -ENODEV;
	fake_usb.status_running = true;
	fake_usb.status_packet = on_packet;
	fake_usb.status_error = on_error;
	fake_usb.status_data = data;
	return 0;
}

void usb_status_stop(struct usb_camera *cam)
{
	(void)cam;
	fake_usb.status_running = false;
}

void usb_status_get_stats(const struct usb_camera *cam, struct usb_status_stats *st)
{
	(void)cam;
	memset(st, 0, sizeof(*st));
}

static bool frame_fid;
static size_t frame_sent; /* bytes of the open frame sent */
static uint32_t frame_pts; /* the camera's clock at the open frame's exposure */

static uint32_t camera_clock(uint64_t ns)
{
	return (uint32_t)(ns / 1000000000u * fake_usb.clock_hz +
			  ns % 1000000000u * fake_usb.clock_hz / 1000000000u);
}

/* A payload header: 2 bytes, or 12 with the camera's PTS and SCR. */
static size_t header(uint8_t *p, bool eof, bool error)
{
	p[1] = (uint8_t)(UVC_STREAM_EOH | (frame_fid ? UVC_STREAM_FID : 0) |
			 (eof ? UVC_STREAM_EOF : 0) | (error ? UVC_STREAM_ERR : 0));
	if (!fake_usb.clock_hz) {
		p[0] = 2;
		return 2;
	}
	uint32_t scr = camera_clock(fake_usb.now_ns);
	p[0] = 12;
	p[1] |= UVC_STREAM_PTS | UVC_STREAM_SCR;
	for (int i = 0; i < 4; i++) {
		p[2 + i] = (uint8_t)(frame_pts >> (8 * i));
		p[6 + i] = (uint8_t)(scr >> (8 * i));
	}
	p[10] = p[11] = 0; /* SOF */
	return 12;
}

/* bytes more of the frame, in payloads of at most 3000; the frame's last
 * byte ends it (EOF) */
static void send_frame_bytes(uint8_t fill, size_t bytes, bool error)
{
	ck_assert(fake_usb.streaming);
	size_t size = fake_usb.committed.max_video_frame_size;
	ck_assert_uint_le(frame_sent + bytes, size);
	uint8_t packet[12 + 3000];
	if (frame_sent == 0)
		frame_pts = camera_clock(fake_usb.now_ns - fake_usb.exposure_ago_ns);
	fake_usb.assembler->now_ns = fake_usb.now_ns;
	while (bytes) {
		size_t n = bytes < 3000 ? bytes : 3000;
		bytes -= n;
		frame_sent += n;
		size_t h = header(packet, frame_sent == size, error);
		memset(packet + h, fill, n);
		uvc_assembler_packet(fake_usb.assembler, packet, h + n);
	}
	uvc_assembler_transfer_done(fake_usb.assembler);
	if (frame_sent == size) {
		frame_sent = 0;
		frame_fid = !frame_fid;
	}
}

void fake_usb_frame(uint8_t fill, bool error)
{
	send_frame_bytes(fill, fake_usb.committed.max_video_frame_size - frame_sent, error);
}

void fake_usb_frame_part(uint8_t fill, size_t bytes)
{
	ck_assert_uint_lt(frame_sent + bytes, fake_usb.committed.max_video_frame_size);
	send_frame_bytes(fill, bytes, false);
}
