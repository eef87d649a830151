/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The virtual camera as vhci-hcd sees it: URBs in, replies out, with a fake
 * clock. Enumeration, probe/commit, STALLs with error codes, isochronous
 * streaming paced by the frame interval, and unlinking. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/ch9.h>
#include <linux/usb/video.h>

#include "camera.h"
#include "controls.h"
#include "descriptors.h"
#include "frames.h"
#include "payload.h"
#include "probe.h"
#include "unit_run.h"

struct reply {
	uint8_t header[USBIP_HEADER_SIZE];
	uint8_t data[256 * 1024];
	size_t length;
	struct usbip_iso_desc iso[64];
	unsigned packets;
};

static struct reply replies[16];
static unsigned n_replies;
static uint64_t fake_now;
static struct vcam_frames *frames;

static int fake_send(void *ctx, const uint8_t *header, const uint8_t *data, size_t length,
		     const struct usbip_iso_desc *iso, unsigned packets)
{
	(void)ctx;
	ck_assert_uint_lt(n_replies, 16);
	struct reply *r = &replies[n_replies++];
	memcpy(r->header, header, USBIP_HEADER_SIZE);
	ck_assert_uint_le(length, sizeof(r->data));
	if (length)
		memcpy(r->data, data, length);
	r->length = length;
	ck_assert_uint_le(packets, 64);
	if (packets)
		memcpy(r->iso, iso, packets * sizeof(*iso));
	r->packets = packets;
	return 0;
}

static uint64_t fake_clock(void)
{
	return fake_now;
}

static struct vcam_frames *fake_frames(void *ctx, enum vcam_pixel pixel, unsigned w, unsigned h)
{
	(void)ctx;
	if (!frames) {
		frames = vcam_frames_new(pixel, w, h, 0);
		vcam_frames_prepare(frames);
	}
	return frames;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int32_t reply_status(const struct reply *r)
{
	return (int32_t)be32(r->header + 20);
}

static unsigned ctrl_delay_ms, stream_delay_ms;
static bool ctrl_hang;
static unsigned request_faults;

static struct vcam_camera *camera(const char *profile)
{
	struct vcam_camera_config cfg = {
		.profile = vcam_profile_find(profile),
		.serial = "UNIT",
		.send = fake_send,
		.clock = fake_clock,
		.frames = fake_frames,
		.ctrl_delay_ms = ctrl_delay_ms,
		.ctrl_hang = ctrl_hang,
		.stream_delay_ms = stream_delay_ms,
		.request_faults = request_faults,
	};
	n_replies = 0;
	fake_now = 1000000000ull;
	frames = NULL;
	struct vcam_camera *cam = vcam_camera_new(&cfg);
	ck_assert_ptr_nonnull(cam);
	return cam;
}

static void release(struct vcam_camera *cam)
{
	vcam_camera_free(cam);
	vcam_frames_free(frames);
	frames = NULL;
}

static uint32_t seq = 1;

/* A control transfer; returns the reply. */
static struct reply *control(struct vcam_camera *cam, uint8_t type, uint8_t request, uint16_t value,
			     uint16_t index, uint16_t length, const uint8_t *out)
{
	struct usbip_header h = {
		.command = USBIP_CMD_SUBMIT, .seqnum = seq++, .ep = 0,
		.direction = (type & USB_DIR_IN) ? USBIP_DIR_IN : USBIP_DIR_OUT,
		.length = length,
		.setup = { type, request, value & 0xff, value >> 8, index & 0xff, index >> 8,
			   length & 0xff, length >> 8 },
	};
	n_replies = 0;
	ck_assert_int_eq(vcam_camera_command(cam, &h, out, NULL, fake_now), 0);
	ck_assert_uint_ge(n_replies, 1);
	ck_assert_uint_eq(be32(replies[0].header + 4), h.seqnum);
	return &replies[0];
}

/* A control transfer sent; n_replies says whether it was answered. */
static void submit_control(struct vcam_camera *cam, uint32_t seqnum, uint8_t type, uint8_t request,
			   uint16_t value, uint16_t index, uint16_t length)
{
	struct usbip_header h = {
		.command = USBIP_CMD_SUBMIT, .seqnum = seqnum, .ep = 0,
		.direction = (type & USB_DIR_IN) ? USBIP_DIR_IN : USBIP_DIR_OUT,
		.length = length,
		.setup = { type, request, value & 0xff, value >> 8, index & 0xff, index >> 8,
			   length & 0xff, length >> 8 },
	};
	uint8_t out[64] = { 0 };
	ck_assert_int_eq(vcam_camera_command(cam, &h, out, NULL, fake_now), 0);
}

/* --stream-delay-ms: SET_CUR of the probe is answered that late (here a
 * STALL: the proposal names no format), GET_CUR of it behind it. */
START_TEST(slow_probe_answers_late_in_order)
{
	const uint8_t in = USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_INTERFACE;
	const uint8_t out = USB_DIR_OUT | USB_TYPE_CLASS | USB_RECIP_INTERFACE;
	stream_delay_ms = 2000;
	struct vcam_camera *cam = camera("default");
	size_t size = uvc_probe_size(vcam_profile_find("default")->bcd_uvc);
	submit_control(cam, 7200, in, UVC_GET_CUR, UVC_VS_PROBE_CONTROL << 8, VCAM_IF_STREAMING,
		       (uint16_t)size);
	ck_assert_uint_eq(n_replies, 1); /* reading is not slow */
	n_replies = 0;
	submit_control(cam, 7201, out, UVC_SET_CUR, UVC_VS_PROBE_CONTROL << 8, VCAM_IF_STREAMING,
		       (uint16_t)size);
	submit_control(cam, 7202, in, UVC_GET_CUR, UVC_VS_PROBE_CONTROL << 8, VCAM_IF_STREAMING,
		       (uint16_t)size);
	ck_assert_uint_eq(n_replies, 0);
	fake_now += 1999000000ull;
	ck_assert_int_eq(vcam_camera_run(cam, fake_now), 0);
	ck_assert_uint_eq(n_replies, 0);
	fake_now += 1000000ull;
	ck_assert_int_eq(vcam_camera_run(cam, fake_now), 0);
	ck_assert_uint_eq(n_replies, 2);
	ck_assert_uint_eq(be32(replies[0].header + 4), 7201);
	ck_assert_int_eq(reply_status(&replies[0]), -EPIPE);
	ck_assert_uint_eq(be32(replies[1].header + 4), 7202);
	ck_assert_int_eq(reply_status(&replies[1]), 0);
	release(cam);
	stream_delay_ms = 0;
}
END_TEST

/* --ctrl-delay-ms: GET_CUR of a unit control is answered that late, the
 * requests after it behind it, in order; GET_INFO alone would be at once.
 * --ctrl-hang: never, until the host unlinks it. */
START_TEST(slow_controls_answer_late_in_order)
{
	const uint8_t in = USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_INTERFACE;
	const uint16_t pu = VCAM_ID_PROCESSING << 8 | VCAM_IF_CONTROL;
	ctrl_delay_ms = 2000;
	struct vcam_camera *cam = camera("default");
	n_replies = 0;
	submit_control(cam, 7000, in, UVC_GET_INFO, UVC_PU_BRIGHTNESS_CONTROL << 8, pu, 1);
	ck_assert_uint_eq(n_replies, 1); /* not a value: at once */
	n_replies = 0;
	submit_control(cam, 7001, in, UVC_GET_CUR, UVC_PU_BRIGHTNESS_CONTROL << 8, pu, 2);
	submit_control(cam, 7002, in, UVC_GET_INFO, UVC_PU_CONTRAST_CONTROL << 8, pu, 1);
	ck_assert_uint_eq(n_replies, 0);
	ck_assert_uint_le(vcam_camera_deadline(cam), fake_now + 2000000000ull);
	fake_now += 1999000000ull;
	ck_assert_int_eq(vcam_camera_run(cam, fake_now), 0);
	ck_assert_uint_eq(n_replies, 0);
	fake_now += 1000000ull;
	ck_assert_int_eq(vcam_camera_run(cam, fake_now), 0);
	ck_assert_uint_eq(n_replies, 2);
	ck_assert_uint_eq(be32(replies[0].header + 4), 7001);
	ck_assert_int_eq(reply_status(&replies[0]), 0);
	ck_assert_uint_eq(replies[0].length, 2);
	ck_assert_uint_eq(be32(replies[1].header + 4), 7002);
	release(cam);

	ctrl_delay_ms = 0;
	ctrl_hang = true;
	cam = camera("default");
	n_replies = 0;
	submit_control(cam, 7100, in, UVC_GET_CUR, UVC_PU_BRIGHTNESS_CONTROL << 8, pu, 2);
	fake_now += 60000000000ull;
	ck_assert_int_eq(vcam_camera_run(cam, fake_now), 0);
	for (unsigned i = 0; i < n_replies; i++)
		ck_assert_uint_ne(be32(replies[i].header + 4), 7100);
	n_replies = 0;
	struct usbip_header unlink = { .command = USBIP_CMD_UNLINK, .seqnum = 7101,
				       .unlink_seqnum = 7100 };
	ck_assert_int_eq(vcam_camera_command(cam, &unlink, NULL, NULL, fake_now), 0);
	ck_assert_uint_eq(n_replies, 1);
	ck_assert_uint_eq(be32(replies[0].header), USBIP_RET_UNLINK);
	ck_assert_int_eq(reply_status(&replies[0]), -ECONNRESET);
	release(cam);
	ctrl_hang = false;
}
END_TEST

START_TEST(enumerates_like_a_usb_device)
{
	struct vcam_camera *cam = camera("default");
	struct reply *r = control(cam, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, USB_DT_DEVICE << 8, 0, 18, NULL);
	ck_assert_int_eq(reply_status(r), 0);
	ck_assert_uint_eq(r->length, 18);
	ck_assert_uint_eq(r->data[1], USB_DT_DEVICE);
	/* a short read gets the first bytes, as hosts read the config header */
	r = control(cam, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, USB_DT_CONFIG << 8, 0, 9, NULL);
	ck_assert_uint_eq(r->length, 9);
	unsigned total = r->data[2] | r->data[3] << 8;
	r = control(cam, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, USB_DT_CONFIG << 8, 0, 4096, NULL);
	ck_assert_uint_eq(r->length, total);
	r = control(cam, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, (USB_DT_STRING << 8) | 3, 0x409, 255, NULL);
	ck_assert_uint_eq(r->data[2], 'U');
	/* no BOS on a high-speed camera: STALL */
	r = control(cam, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, USB_DT_BOS << 8, 0, 5, NULL);
	ck_assert_int_eq(reply_status(r), -EPIPE);
	r = control(cam, 0, USB_REQ_SET_CONFIGURATION, 1, 0, 0, NULL);
	ck_assert_int_eq(reply_status(r), 0);
	r = control(cam, USB_DIR_IN, USB_REQ_GET_CONFIGURATION, 0, 0, 1, NULL);
	ck_assert_uint_eq(r->data[0], 1);
	r = control(cam, 0, USB_REQ_SET_CONFIGURATION, 2, 0, 0, NULL);
	ck_assert_int_eq(reply_status(r), -EPIPE);
	release(cam);
}
END_TEST

#define CLASS_OUT (USB_TYPE_CLASS | USB_RECIP_INTERFACE)
#define CLASS_IN (USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_INTERFACE)

static uint8_t error_code(struct vcam_camera *cam)
{
	struct reply *r = control(cam, CLASS_IN, UVC_GET_CUR, UVC_VC_REQUEST_ERROR_CODE_CONTROL << 8,
				  VCAM_IF_CONTROL, 1, NULL);
	ck_assert_int_eq(reply_status(r), 0);
	return r->data[0];
}

START_TEST(probe_commit_and_stalls)
{
	struct vcam_camera *cam = camera("default");
	uint8_t raw[34];
	struct uvc_probe p = { .format_index = 2, .frame_index = 3, .interval = 666666 };
	uvc_probe_encode(&p, raw, sizeof(raw));
	struct reply *r = control(cam, CLASS_OUT, UVC_SET_CUR, UVC_VS_PROBE_CONTROL << 8,
				  VCAM_IF_STREAMING, 34, raw);
	ck_assert_int_eq(reply_status(r), 0);
	ck_assert_uint_eq(be32(r->header + 24), 34); /* OUT: all 34 bytes taken */
	r = control(cam, CLASS_IN, UVC_GET_CUR, UVC_VS_PROBE_CONTROL << 8, VCAM_IF_STREAMING, 34, NULL);
	struct uvc_probe back;
	uvc_probe_decode(r->data, r->length, &back);
	ck_assert_uint_eq(back.format_index, 2);
	ck_assert_uint_eq(back.frame_index, 3);
	ck_assert_uint_eq(back.interval, 666666);
	ck_assert_uint_eq(back.max_video_frame_size, 1920 * 1080 * 2);

	/* a frame that does not exist: STALL, error code "out of range" */
	p.frame_index = 9;
	uvc_probe_encode(&p, raw, sizeof(raw));
	r = control(cam, CLASS_OUT, UVC_SET_CUR, UVC_VS_COMMIT_CONTROL << 8, VCAM_IF_STREAMING, 34, raw);
	ck_assert_int_eq(reply_status(r), -EPIPE);
	ck_assert_uint_eq(error_code(cam), VCAM_ERR_OUT_OF_RANGE);
	ck_assert_uint_eq(error_code(cam), VCAM_ERR_NONE);
	/* a UVC 1.0-sized probe on a 1.1 camera: STALL */
	r = control(cam, CLASS_OUT, UVC_SET_CUR, UVC_VS_PROBE_CONTROL << 8, VCAM_IF_STREAMING, 26, raw);
	ck_assert_int_eq(reply_status(r), -EPIPE);
	/* GET_LEN and GET_INFO */
	r = control(cam, CLASS_IN, UVC_GET_LEN, UVC_VS_PROBE_CONTROL << 8, VCAM_IF_STREAMING, 2, NULL);
	ck_assert_uint_eq(r->data[0], 34);
	r = control(cam, CLASS_IN, UVC_GET_INFO, UVC_VS_COMMIT_CONTROL << 8, VCAM_IF_STREAMING, 1, NULL);
	ck_assert_uint_eq(r->data[0], 3);
	/* an entity that does not exist */
	r = control(cam, CLASS_IN, UVC_GET_CUR, UVC_PU_BRIGHTNESS_CONTROL << 8, (9 << 8) | 0, 2, NULL);
	ck_assert_int_eq(reply_status(r), -EPIPE);
	ck_assert_uint_eq(error_code(cam), VCAM_ERR_INVALID_UNIT);
	/* brightness reads back through the processing unit */
	uint8_t v[2] = { 20, 0 };
	r = control(cam, CLASS_OUT, UVC_SET_CUR, UVC_PU_BRIGHTNESS_CONTROL << 8,
		    (VCAM_ID_PROCESSING << 8) | VCAM_IF_CONTROL, 2, v);
	ck_assert_int_eq(reply_status(r), 0);
	r = control(cam, CLASS_IN, UVC_GET_CUR, UVC_PU_BRIGHTNESS_CONTROL << 8,
		    (VCAM_ID_PROCESSING << 8) | VCAM_IF_CONTROL, 2, NULL);
	ck_assert_uint_eq(r->data[0], 20);
	release(cam);
}
END_TEST

#define PU_INDEX ((VCAM_ID_PROCESSING << 8) | VCAM_IF_CONTROL)

/* --request-fault: each fault fails its own requests only, as it says, and
 * vcam_camera_arm_request_faults() switches them off and on. */
START_TEST(request_faults_fail_their_requests)
{
	request_faults = vcam_request_fault_parse("ctrl-stall") |
			 vcam_request_fault_parse("probe-stall");
	ck_assert_uint_eq(request_faults, VCAM_RF_CTRL_STALL | VCAM_RF_PROBE_STALL);
	ck_assert_uint_eq(vcam_request_fault_parse("nonsense"), 0);
	struct vcam_camera *cam = camera("default");
	uint8_t v[2] = { 20, 0 }, raw[34];
	struct uvc_probe p = { .format_index = 1, .frame_index = 1, .interval = 333333 };
	uvc_probe_encode(&p, raw, sizeof(raw));

	/* ctrl-stall: values STALL "not ready"; ranges and GET_INFO still answer */
	struct reply *r = control(cam, CLASS_IN, UVC_GET_CUR, UVC_PU_BRIGHTNESS_CONTROL << 8,
				  PU_INDEX, 2, NULL);
	ck_assert_int_eq(reply_status(r), -EPIPE);
	ck_assert_uint_eq(error_code(cam), VCAM_ERR_NOT_READY);
	r = control(cam, CLASS_OUT, UVC_SET_CUR, UVC_PU_BRIGHTNESS_CONTROL << 8, PU_INDEX, 2, v);
	ck_assert_int_eq(reply_status(r), -EPIPE);
	r = control(cam, CLASS_IN, UVC_GET_MAX, UVC_PU_BRIGHTNESS_CONTROL << 8, PU_INDEX, 2, NULL);
	ck_assert_int_eq(reply_status(r), 0);
	ck_assert_uint_eq(r->length, 2);
	/* probe-stall: SET_CUR of probe STALLs, commit and GET_CUR do not */
	r = control(cam, CLASS_OUT, UVC_SET_CUR, UVC_VS_PROBE_CONTROL << 8, VCAM_IF_STREAMING, 34, raw);
	ck_assert_int_eq(reply_status(r), -EPIPE);
	ck_assert_uint_eq(error_code(cam), VCAM_ERR_WRONG_STATE);
	r = control(cam, CLASS_IN, UVC_GET_CUR, UVC_VS_PROBE_CONTROL << 8, VCAM_IF_STREAMING, 34, NULL);
	ck_assert_int_eq(reply_status(r), 0);
	r = control(cam, CLASS_OUT, UVC_SET_CUR, UVC_VS_COMMIT_CONTROL << 8, VCAM_IF_STREAMING, 34, raw);
	ck_assert_int_eq(reply_status(r), 0);

	/* switched off: everything answers; on again: the faults are back */
	vcam_camera_arm_request_faults(cam, false);
	r = control(cam, CLASS_OUT, UVC_SET_CUR, UVC_PU_BRIGHTNESS_CONTROL << 8, PU_INDEX, 2, v);
	ck_assert_int_eq(reply_status(r), 0);
	r = control(cam, CLASS_IN, UVC_GET_CUR, UVC_PU_BRIGHTNESS_CONTROL << 8, PU_INDEX, 2, NULL);
	ck_assert_int_eq(reply_status(r), 0);
	ck_assert_uint_eq(r->data[0], 20);
	r = control(cam, CLASS_OUT, UVC_SET_CUR, UVC_VS_PROBE_CONTROL << 8, VCAM_IF_STREAMING, 34, raw);
	ck_assert_int_eq(reply_status(r), 0);
	vcam_camera_arm_request_faults(cam, true);
	r = control(cam, CLASS_IN, UVC_GET_CUR, UVC_PU_BRIGHTNESS_CONTROL << 8, PU_INDEX, 2, NULL);
	ck_assert_int_eq(reply_status(r), -EPIPE);
	release(cam);

	/* ctrl-short: GET_CUR one byte short; errcode-stall: the code read STALLs */
	request_faults = VCAM_RF_CTRL_SHORT | VCAM_RF_ERRCODE_STALL | VCAM_RF_COMMIT_STALL;
	cam = camera("default");
	r = control(cam, CLASS_IN, UVC_GET_CUR, UVC_PU_BRIGHTNESS_CONTROL << 8, PU_INDEX, 2, NULL);
	ck_assert_int_eq(reply_status(r), 0);
	ck_assert_uint_eq(r->length, 1);
	r = control(cam, CLASS_IN, UVC_GET_DEF, UVC_PU_BRIGHTNESS_CONTROL << 8, PU_INDEX, 2, NULL);
	ck_assert_uint_eq(r->length, 2);
	r = control(cam, CLASS_OUT, UVC_SET_CUR, UVC_VS_COMMIT_CONTROL << 8, VCAM_IF_STREAMING, 34, raw);
	ck_assert_int_eq(reply_status(r), -EPIPE);
	r = control(cam, CLASS_IN, UVC_GET_CUR, UVC_VC_REQUEST_ERROR_CODE_CONTROL << 8,
		    VCAM_IF_CONTROL, 1, NULL);
	ck_assert_int_eq(reply_status(r), -EPIPE);
	vcam_camera_arm_request_faults(cam, false);
	ck_assert_uint_eq(error_code(cam), VCAM_ERR_WRONG_STATE); /* the commit's, kept */
	release(cam);
	request_faults = 0;
}
END_TEST

/* status-garbage: a packet of 0 to 16 bytes every control tick, none once off. */
START_TEST(status_garbage_every_tick)
{
	request_faults = VCAM_RF_STATUS_GARBAGE;
	struct vcam_camera *cam = camera("default");
	control(cam, 0, USB_REQ_SET_CONFIGURATION, 1, 0, 0, NULL);
	unsigned lengths = 0, sent = 0;
	for (unsigned tick = 0; tick < 40; tick++) {
		struct usbip_header h = {
			.command = USBIP_CMD_SUBMIT, .seqnum = 5000 + tick, .ep = 1,
			.direction = USBIP_DIR_IN, .length = VCAM_STATUS_PACKET,
		};
		n_replies = 0;
		ck_assert_int_eq(vcam_camera_command(cam, &h, NULL, NULL, fake_now), 0);
		ck_assert_int_eq(vcam_camera_run(cam, fake_now), 0);
		fake_now += 100000000ull;
		for (unsigned i = 0; i < n_replies; i++) {
			ck_assert_uint_le(replies[i].length, VCAM_STATUS_PACKET);
			lengths |= 1u << replies[i].length;
			sent++;
		}
	}
	ck_assert_uint_ge(sent, 30);
	ck_assert_uint_ge(__builtin_popcount(lengths), 8); /* lengths of all sorts */
	struct vcam_camera_stats st;
	vcam_camera_stats(cam, &st);
	ck_assert_uint_ge(st.status_garbage, 30);
	release(cam);
	request_faults = 0;
}
END_TEST

static void submit_iso(struct vcam_camera *cam, uint32_t seqnum, unsigned packets, unsigned size)
{
	struct usbip_iso_desc iso[64];
	for (unsigned i = 0; i < packets; i++)
		iso[i] = (struct usbip_iso_desc){ .offset = i * size, .length = size };
	struct usbip_header h = {
		.command = USBIP_CMD_SUBMIT, .seqnum = seqnum, .ep = 2, .direction = USBIP_DIR_IN,
		.length = (int32_t)(packets * size), .packets = (int32_t)packets,
	};
	ck_assert_int_eq(vcam_camera_command(cam, &h, NULL, iso, fake_now), 0);
}

START_TEST(iso_stream_is_paced_and_unlinkable)
{
	struct vcam_camera *cam = camera("default");
	control(cam, 0, USB_REQ_SET_CONFIGURATION, 1, 0, 0, NULL);
	struct reply *r = control(cam, USB_TYPE_STANDARD | USB_RECIP_INTERFACE, USB_REQ_SET_INTERFACE,
				  6, VCAM_IF_STREAMING, 0, NULL);
	ck_assert_int_eq(reply_status(r), 0);

	/* The first frame is due at once: 32 packets of 3072 bytes fill and come back. */
	n_replies = 0;
	submit_iso(cam, 1000, 32, 3072);
	ck_assert_uint_eq(n_replies, 1);
	r = &replies[0];
	ck_assert_uint_eq(r->packets, 32);
	size_t sum = 0;
	for (unsigned i = 0; i < 32; i++) {
		ck_assert_uint_le(r->iso[i].actual_length, 3072);
		ck_assert_uint_eq(r->iso[i].offset, i * 3072); /* offsets echo the host's */
		sum += r->iso[i].actual_length;
	}
	ck_assert_uint_eq(sum, r->length); /* data packed, as usbip sends it */
	ck_assert_uint_eq(r->data[0], VCAM_PAYLOAD_HEADER);
	ck_assert(r->data[1] & UVC_STREAM_FID);

	/* Send URBs until the frame ends; the next one then waits for its time. */
	uint32_t s = 1001;
	bool eof = false;
	while (!eof) {
		n_replies = 0;
		submit_iso(cam, s++, 32, 3072);
		ck_assert_uint_eq(n_replies, 1);
		size_t pos = 0;
		for (unsigned i = 0; i < 32; i++) {
			eof |= (replies[0].data[pos + 1] & UVC_STREAM_EOF) != 0;
			pos += replies[0].iso[i].actual_length;
		}
	}
	n_replies = 0;
	submit_iso(cam, 2000, 32, 3072);
	ck_assert_uint_eq(n_replies, 0); /* held until the next frame */
	ck_assert_int_eq(vcam_camera_run(cam, fake_now), 0); /* the control loop's first tick */
	ck_assert_uint_eq(n_replies, 0);
	uint64_t due = vcam_camera_deadline(cam);
	ck_assert_uint_eq(due, fake_now + 33333300);
	fake_now = due;
	ck_assert_int_eq(vcam_camera_run(cam, fake_now), 0);
	ck_assert_uint_eq(n_replies, 1);
	ck_assert(!(replies[0].data[1] & UVC_STREAM_FID)); /* the next frame toggles FID */

	/* Unlink: a held URB is answered -ECONNRESET, a finished one 0. */
	n_replies = 0;
	submit_iso(cam, 3000, 32, 3072); /* completes: frame in flight */
	ck_assert_uint_eq(n_replies, 1);
	struct usbip_header unlink = { .command = USBIP_CMD_UNLINK, .seqnum = 3001, .unlink_seqnum = 3000 };
	n_replies = 0;
	vcam_camera_command(cam, &unlink, NULL, NULL, fake_now);
	ck_assert_uint_eq(n_replies, 1);
	ck_assert_uint_eq(be32(replies[0].header), USBIP_RET_UNLINK);
	ck_assert_int_eq(reply_status(&replies[0]), 0);

	/* status endpoint URB: held until the camera has news, then unlinkable */
	struct usbip_header st = { .command = USBIP_CMD_SUBMIT, .seqnum = 4000, .ep = 1,
				   .direction = USBIP_DIR_IN, .length = 16 };
	n_replies = 0;
	vcam_camera_command(cam, &st, NULL, NULL, fake_now);
	ck_assert_uint_eq(n_replies, 0);
	unlink.seqnum = 4001;
	unlink.unlink_seqnum = 4000;
	vcam_camera_command(cam, &unlink, NULL, NULL, fake_now);
	ck_assert_uint_eq(n_replies, 1);
	ck_assert_int_eq(reply_status(&replies[0]), -ECONNRESET);
	release(cam);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vcam-camera");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, enumerates_like_a_usb_device);
	tcase_add_test(tc, slow_controls_answer_late_in_order);
	tcase_add_test(tc, slow_probe_answers_late_in_order);
	tcase_add_test(tc, probe_commit_and_stalls);
	tcase_add_test(tc, request_faults_fail_their_requests);
	tcase_add_test(tc, status_garbage_every_tick);
	tcase_add_test(tc, iso_stream_is_paced_and_unlinkable);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
