/* SPDX-License-Identifier: GPL-2.0-or-later */
/* src/uvc/descriptors.c: the vcam's descriptors give back its profiles, real
 * cameras' descriptors parse, and malformed ones fail cleanly. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/ch9.h>
#include <linux/usb/video.h>
#include <linux/videodev2.h>

#include "descriptors.h" /* tests/vcam */
#include "profile.h"
#include "unit_run.h"
#include "vcam_fixture.h"
#include "uvc/descriptors.h"

static size_t build(const struct vcam_profile *p, uint8_t *buf, size_t cap)
{
	struct vcam_identity id = test_identity(p);
	ssize_t len = vcam_config_descriptor(&id, buf, cap);
	ck_assert_int_gt(len, 0);
	return (size_t)len;
}

static const struct vcam_profile *profile_where(enum vcam_transfer t, enum vcam_speed s)
{
	for (size_t n = 0; n < vcam_profile_count; n++)
		if (vcam_profiles[n].transfer == t && vcam_profiles[n].speed == s)
			return &vcam_profiles[n];
	return NULL;
}

static uint32_t pixel_fourcc(enum vcam_pixel pixel)
{
	switch (pixel) {
	case VCAM_PIXEL_YUYV:
		return V4L2_PIX_FMT_YUYV;
	case VCAM_PIXEL_NV12:
		return V4L2_PIX_FMT_NV12;
	case VCAM_PIXEL_MJPEG:
		return V4L2_PIX_FMT_MJPEG;
	case VCAM_PIXEL_H264:
		return V4L2_PIX_FMT_H264;
	default: /* only impersonated cameras have the others */
		return 0;
	}
}

/* Offset of the n-th (0-based) VideoStreaming class-specific descriptor of
 * a subtype, or of a standard descriptor when subtype < 0. */
static size_t find(const uint8_t *d, size_t len, unsigned type, int subtype, unsigned n)
{
	bool vs = false;
	for (size_t i = 0; i + 2 < len; i += d[i]) {
		if (d[i + 1] == USB_DT_INTERFACE)
			vs = d[i + 6] == UVC_SC_VIDEOSTREAMING;
		if (d[i + 1] == type && (subtype < 0 || (vs && d[i + 2] == subtype)) && n-- == 0)
			return i;
	}
	ck_abort_msg("descriptor 0x%02x/%d not found", type, subtype);
	return 0;
}

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static int parse(const uint8_t *d, size_t len, struct uvc_camera **cam, struct uvc_parse_status *st)
{
	int r = uvc_parse_descriptors(d, len, cam, st);
	if (r)
		ck_assert_ptr_null(*cam);
	else
		ck_assert_ptr_nonnull(*cam);
	return r;
}

/* ------------------------------------------------------------- vcam models */

START_TEST(vcam_profiles_round_trip)
{
	for (size_t n = 0; n < vcam_profile_count; n++) {
		const struct vcam_profile *p = &vcam_profiles[n];
		uint8_t buf[8192];
		size_t len = build(p, buf, sizeof(buf));
		struct uvc_camera *cam;
		struct uvc_parse_status st;
		ck_assert_msg(parse(buf, len, &cam, &st) == 0, "%s: %s", p->name, st.error);
		ck_assert_msg(st.n_warnings == 0, "%s: %s", p->name, st.warning);

		ck_assert_uint_eq(cam->bcd_uvc, p->bcd_uvc);
		ck_assert_uint_eq(cam->clock_frequency, VCAM_CLOCK_HZ);
		ck_assert_uint_eq(cam->control_interface, VCAM_IF_CONTROL);
		ck_assert_uint_eq(cam->status_endpoint, VCAM_EP_STATUS);
		ck_assert_uint_eq(cam->status_packet, VCAM_STATUS_PACKET);
		ck_assert_uint_eq(cam->n_entities, 4);

		const struct uvc_entity *ct = uvc_camera_find_entity(cam, VCAM_ID_CAMERA);
		const struct uvc_entity *pu = uvc_camera_find_entity(cam, VCAM_ID_PROCESSING);
		const struct uvc_entity *xu = uvc_camera_find_entity(cam, VCAM_ID_EXTENSION);
		const struct uvc_entity *ot = uvc_camera_find_entity(cam, VCAM_ID_OUTPUT);
		ck_assert(ct && pu && xu && ot);
		ck_assert_int_eq(ct->kind, UVC_ENTITY_INPUT_TERMINAL);
		ck_assert_uint_eq(ct->type, UVC_ITT_CAMERA);
		ck_assert_uint_eq(ct->control_size, 3);
		ck_assert(uvc_entity_has_control(ct, 1) && uvc_entity_has_control(ct, 17));
		ck_assert(!uvc_entity_has_control(ct, 0) && !uvc_entity_has_control(ct, 40));
		ck_assert_int_eq(pu->kind, UVC_ENTITY_PROCESSING_UNIT);
		ck_assert_uint_eq(pu->n_sources, 1);
		ck_assert_uint_eq(pu->sources[0], VCAM_ID_CAMERA);
		ck_assert_uint_eq(pu->controls[0] | pu->controls[1] << 8, 0x175f);
		ck_assert_int_eq(xu->kind, UVC_ENTITY_EXTENSION_UNIT);
		ck_assert_mem_eq(xu->guid, test_guid, 16);
		ck_assert_uint_eq(xu->n_controls, 4);
		ck_assert_uint_eq(xu->controls[0], 0x0f);
		ck_assert_uint_eq(xu->sources[0], VCAM_ID_PROCESSING);
		ck_assert_int_eq(ot->kind, UVC_ENTITY_OUTPUT_TERMINAL);
		ck_assert_uint_eq(ot->type, UVC_TT_STREAMING);
		ck_assert_uint_eq(ot->sources[0], VCAM_ID_EXTENSION);

		ck_assert_uint_eq(cam->n_streams, 1);
		const struct uvc_streaming *vs = &cam->streams[0];
		ck_assert_uint_eq(vs->interface, VCAM_IF_STREAMING);
		ck_assert_uint_eq(vs->endpoint, VCAM_EP_VIDEO);
		ck_assert_uint_eq(vs->terminal_link, VCAM_ID_OUTPUT);
		if (p->transfer == VCAM_BULK) {
			ck_assert_int_eq(vs->transfer, UVC_TRANSFER_BULK);
			ck_assert_uint_eq(vs->n_alts, 1);
			ck_assert_uint_eq(vs->alts[0].alt, 0);
			ck_assert_uint_eq(vs->alts[0].bytes, vcam_profile_bulk_packet(p));
		} else {
			ck_assert_int_eq(vs->transfer, UVC_TRANSFER_ISOCHRONOUS);
			ck_assert_uint_eq(vs->n_alts, p->n_alts);
			for (unsigned a = 0; a < p->n_alts; a++) {
				ck_assert_uint_eq(vs->alts[a].alt, a + 1);
				ck_assert_uint_eq(vs->alts[a].bytes, vcam_alt_bytes(&p->alts[a]));
			}
		}

		ck_assert_uint_eq(vs->n_formats, p->n_formats);
		for (unsigned f = 0; f < p->n_formats; f++) {
			const struct vcam_format *pf = &p->formats[f];
			const struct uvc_format *uf = &vs->formats[f];
			ck_assert_uint_eq(uf->index, f + 1);
			ck_assert_uint_eq(uf->fourcc, pixel_fourcc(pf->pixel));
			ck_assert_int_eq(uf->kind, pf->pixel == VCAM_PIXEL_MJPEG  ? UVC_FORMAT_MJPEG
						   : pf->pixel == VCAM_PIXEL_H264 ? UVC_FORMAT_FRAME_BASED
										  : UVC_FORMAT_UNCOMPRESSED);
			ck_assert_uint_eq(uf->default_frame, 1);
			ck_assert(uf->has_color);
			ck_assert_uint_eq(uf->n_frames, pf->n_frames);
			ck_assert_uint_eq(uf->n_frames_declared, pf->n_frames);
			for (unsigned k = 0; k < pf->n_frames; k++) {
				const struct vcam_frame_size *ps = &pf->frames[k];
				const struct uvc_frame *fr = &uf->frames[k];
				ck_assert_uint_eq(fr->index, k + 1);
				ck_assert_uint_eq(fr->width, ps->width);
				ck_assert_uint_eq(fr->height, ps->height);
				ck_assert(!fr->continuous);
				ck_assert_uint_eq(fr->default_interval, ps->intervals[0]);
				ck_assert_uint_eq(fr->n_intervals, ps->n_intervals);
				for (unsigned i = 0; i < ps->n_intervals; i++)
					ck_assert_uint_eq(fr->intervals[i], ps->intervals[i]);
				if (uf->kind == UVC_FORMAT_FRAME_BASED)
					ck_assert_uint_eq(fr->max_buffer_size,
							  (uint32_t)ps->width * ps->height * uf->bpp / 8);
				else
					ck_assert_uint_eq(fr->max_buffer_size,
							  vcam_frame_buffer_size(pf->pixel, ps->width,
										 ps->height));
			}
		}
		uvc_camera_free(cam);
	}
}
END_TEST

START_TEST(superspeed_uses_bytes_per_interval)
{
	const struct vcam_profile *p = profile_where(VCAM_ISOCHRONOUS, VCAM_SUPER_SPEED);
	ck_assert_ptr_nonnull(p);
	uint8_t buf[8192];
	size_t len = build(p, buf, sizeof(buf));
	/* Above what wMaxPacketSize alone could say: the companion counted. */
	struct uvc_camera *cam;
	ck_assert_int_eq(parse(buf, len, &cam, NULL), 0);
	ck_assert_uint_gt(cam->streams[0].alts[cam->streams[0].n_alts - 1].bytes, 3072);
	/* A companion that lost wBytesPerInterval: computed from burst/mult. */
	size_t c = find(buf, len, USB_DT_SS_ENDPOINT_COMP, -1, 1);
	unsigned want = cam->streams[0].alts[0].bytes;
	put16(buf + c + 4, 0);
	uvc_camera_free(cam);
	ck_assert_int_eq(parse(buf, len, &cam, NULL), 0);
	ck_assert_uint_eq(cam->streams[0].alts[0].bytes, want);
	uvc_camera_free(cam);
}
END_TEST

/* Several bulk cameras put the class-specific VS descriptors after the
 * endpoint: move the endpoint in front of the input header. */
START_TEST(class_descriptors_after_endpoint)
{
	const struct vcam_profile *p = profile_where(VCAM_BULK, VCAM_HIGH_SPEED);
	ck_assert_ptr_nonnull(p);
	uint8_t buf[8192], out[8192];
	size_t len = build(p, buf, sizeof(buf));
	size_t hdr = find(buf, len, USB_DT_CS_INTERFACE, UVC_VS_INPUT_HEADER, 0);
	size_t ep = find(buf, len, USB_DT_ENDPOINT, -1, 1);
	ck_assert_uint_gt(ep, hdr);
	unsigned el = buf[ep];
	memcpy(out, buf, hdr);
	memcpy(out + hdr, buf + ep, el);
	memcpy(out + hdr + el, buf + hdr, ep - hdr);
	memcpy(out + ep + el, buf + ep + el, len - ep - el);
	struct uvc_camera *cam;
	struct uvc_parse_status st;
	ck_assert_msg(parse(out, len, &cam, &st) == 0, "%s", st.error);
	ck_assert_int_eq(cam->streams[0].transfer, UVC_TRANSFER_BULK);
	ck_assert_uint_eq(cam->streams[0].n_formats, p->n_formats);
	ck_assert_uint_eq(cam->streams[0].endpoint, VCAM_EP_VIDEO);
	uvc_camera_free(cam);
}
END_TEST

/* A camera that is UVC inside vendor-specific interfaces (class 0xff), as
 * uvcvideo binds by its device table: not a camera unless its VideoControl
 * interface is asked for by number, then the same camera; and the walk
 * every helper of the configuration uses. */
START_TEST(vendor_class_by_number)
{
	const struct vcam_profile *p = vcam_profile_find("default");
	ck_assert_ptr_nonnull(p);
	uint8_t buf[8192];
	size_t len = build(p, buf, sizeof(buf));
	unsigned interfaces = 0, vc = 256;
	const uint8_t *d;
	for (size_t pos = 0; (d = uvc_next_descriptor(buf, len, &pos));) {
		ck_assert_uint_eq(d - buf + d[0], pos);
		if (d[1] != USB_DT_INTERFACE)
			continue;
		interfaces++;
		if (d[6] == UVC_SC_VIDEOCONTROL)
			vc = d[2];
		buf[d - buf + 5] = USB_CLASS_VENDOR_SPEC;
	}
	ck_assert_uint_ge(interfaces, 2);
	ck_assert_uint_lt(vc, 256);
	struct uvc_camera *cam;
	struct uvc_parse_status st;
	ck_assert_int_eq(parse(buf, len, &cam, &st), -EINVAL);
	ck_assert_str_eq(st.error, "no VideoControl interface");
	ck_assert_int_eq(uvc_parse_function(buf, len, (int)vc, &cam, &st), 0);
	ck_assert_uint_eq(cam->control_interface, vc);
	ck_assert_uint_eq(cam->n_streams, 1);
	ck_assert_uint_eq(cam->streams[0].n_formats, p->n_formats);
	uvc_camera_free(cam);

	/* the walk stops at a descriptor that is not whole */
	size_t pos = 0;
	buf[9] = 1;
	ck_assert_ptr_eq(uvc_next_descriptor(buf, len, &pos), buf);
	ck_assert_ptr_null(uvc_next_descriptor(buf, len, &pos));
	pos = 0;
	ck_assert_ptr_null(uvc_next_descriptor(buf, 8, &pos));
	ck_assert_uint_eq(pos, 0);
}
END_TEST

/* -------------------------------------------------------------- malformed */

static const struct vcam_profile *default_profile(void)
{
	const struct vcam_profile *p = vcam_profile_find("default");
	ck_assert_ptr_nonnull(p);
	return p;
}

static void expect_einval(const uint8_t *d, size_t len, const char *reason)
{
	struct uvc_camera *cam;
	struct uvc_parse_status st;
	ck_assert_int_eq(parse(d, len, &cam, &st), -EINVAL);
	ck_assert_msg(strstr(st.error, reason), "error \"%s\" lacks \"%s\"", st.error, reason);
}

START_TEST(truncated_at_every_offset)
{
	uint8_t buf[8192];
	size_t len = build(default_profile(), buf, sizeof(buf));
	struct uvc_camera *full;
	ck_assert_int_eq(parse(buf, len, &full, NULL), 0);
	unsigned ok = 0;
	for (int patch = 0; patch < 2; patch++) {
		for (size_t cut = 0; cut < len; cut++) {
			/* A fresh heap copy of exactly cut bytes, so ASan sees any
			 * read past it; with patch, wTotalLength agrees with the cut. */
			uint8_t *d = malloc(cut ? cut : 1);
			memcpy(d, buf, cut);
			if (patch && cut >= 4)
				put16(d + 2, (unsigned)cut);
			struct uvc_camera *cam;
			struct uvc_parse_status st;
			int r = parse(d, cut, &cam, &st);
			/* Either a clean error with a reason, or a camera that is a
			 * prefix of the full one. */
			if (r) {
				ck_assert_int_eq(r, -EINVAL);
				ck_assert_uint_gt(strlen(st.error), 0);
			} else {
				ok++;
				ck_assert_uint_le(cam->n_streams, full->n_streams);
				ck_assert_uint_le(cam->streams[0].n_formats, full->streams[0].n_formats);
				for (unsigned f = 0; f < cam->streams[0].n_formats; f++)
					ck_assert_uint_le(cam->streams[0].formats[f].n_frames,
							  full->streams[0].formats[f].n_frames);
				uvc_camera_free(cam);
			}
			free(d);
		}
	}
	ck_assert_uint_gt(ok, 0);
	uvc_camera_free(full);
}
END_TEST

/* An input header whose bLength leaves out its bmaControls (199e:8302):
 * uvcvideo checks bNumFormats x bControlSize against the interface's class
 * bytes, not the header's bLength, and reads past it; so does the parser,
 * with a warning. Past those bytes it is refused. */
START_TEST(short_input_header)
{
	const struct vcam_profile *p = default_profile();
	uint8_t buf[8192], out[8192];
	size_t len = build(p, buf, sizeof(buf));
	size_t hdr = find(buf, len, USB_DT_CS_INTERFACE, UVC_VS_INPUT_HEADER, 0);
	unsigned cut = (unsigned)buf[hdr + 3] * buf[hdr + 12];
	ck_assert_uint_eq(buf[hdr], 13 + cut);
	ck_assert_uint_gt(cut, 0);
	memcpy(out, buf, hdr + 13);
	memcpy(out + hdr + 13, buf + hdr + 13 + cut, len - hdr - 13 - cut);
	size_t short_len = len - cut;
	out[hdr] = 13;
	put16(out + 2, (unsigned)short_len);
	put16(out + hdr + 4, (unsigned)(buf[hdr + 4] | buf[hdr + 5] << 8) - cut);
	struct uvc_camera *cam;
	struct uvc_parse_status st;
	ck_assert_msg(parse(out, short_len, &cam, &st) == 0, "%s", st.error);
	ck_assert_uint_eq(cam->streams[0].n_formats, p->n_formats);
	ck_assert_ptr_nonnull(strstr(st.warning, "read past it"));
	uvc_camera_free(cam);

	out[hdr + 12] = 0xff; /* bControlSize: more than the interface holds */
	ck_assert_int_eq(parse(out, short_len, &cam, &st), -EINVAL);
	ck_assert_ptr_nonnull(strstr(st.error, "VS input header"));
}
END_TEST

/* Every byte of every profile's descriptor set to a few hostile values:
 * never a crash (ASan watches the heap copy), always 0 or -EINVAL. */
START_TEST(every_byte_corrupted)
{
	static const uint8_t values[] = { 0x00, 0x01, 0x02, 0x7f, 0xff };
	for (size_t n = 0; n < vcam_profile_count; n++) {
		uint8_t buf[8192];
		size_t len = build(&vcam_profiles[n], buf, sizeof(buf));
		uint8_t *d = malloc(len);
		for (size_t i = 0; i < len; i++) {
			for (size_t v = 0; v < sizeof(values); v++) {
				memcpy(d, buf, len);
				d[i] = values[v];
				struct uvc_camera *cam;
				struct uvc_parse_status st;
				int r = parse(d, len, &cam, &st);
				ck_assert(r == 0 || r == -EINVAL);
				if (r)
					ck_assert_uint_gt(strlen(st.error), 0);
				uvc_camera_free(cam);
			}
		}
		free(d);
	}
}
END_TEST

/* The kernel's rule (usb_parse_configuration): a bLength below 2, or one
 * that runs past the end, ends the configuration there; what precedes is
 * the camera uvcvideo sees. */
START_TEST(bad_lengths)
{
	uint8_t buf[8192];
	size_t len = build(default_profile(), buf, sizeof(buf));
	struct uvc_camera *full;
	ck_assert_int_eq(parse(buf, len, &full, NULL), 0);
	size_t fmt = find(buf, len, USB_DT_CS_INTERFACE, UVC_VS_FORMAT_UNCOMPRESSED, 0);
	size_t mjpeg = find(buf, len, USB_DT_CS_INTERFACE, UVC_VS_FORMAT_MJPEG, 0);
	ck_assert_uint_gt(mjpeg, fmt);

	/* at the first format: no format is left, and the error says why */
	uint8_t d[8192];
	struct uvc_camera *cam;
	struct uvc_parse_status st;
	for (uint8_t bad = 0; bad < 2; bad++) {
		memcpy(d, buf, len);
		d[fmt] = bad;
		ck_assert_int_eq(parse(d, len, &cam, &st), -EINVAL);
		ck_assert_msg(strstr(st.error, "no format descriptor (the configuration ends at an invalid bLength"),
			      "error \"%s\"", st.error);
		ck_assert_uint_ge(st.n_warnings, 1);
	}

	/* at the second format: the camera keeps the first, all its frames */
	memcpy(d, buf, len);
	d[mjpeg] = 0;
	ck_assert_int_eq(parse(d, len, &cam, &st), 0);
	ck_assert_uint_ge(st.n_warnings, 1);
	ck_assert_uint_eq(cam->n_streams, 1);
	ck_assert_uint_eq(cam->streams[0].n_formats, 1);
	ck_assert_uint_eq(cam->streams[0].formats[0].fourcc, full->streams[0].formats[0].fourcc);
	ck_assert_uint_eq(cam->streams[0].formats[0].n_frames, full->streams[0].formats[0].n_frames);
	uvc_camera_free(cam);

	/* The last descriptor claims more than is left: it is dropped, the
	 * rest stands. */
	memcpy(d, buf, len);
	size_t last = 9;
	for (size_t i = 9; i < len; i += d[i])
		last = i;
	d[last] = (uint8_t)(len - last + 1);
	ck_assert_int_eq(parse(d, len, &cam, &st), 0);
	ck_assert_msg(strstr(st.warning, "invalid bLength") || st.n_warnings > 1,
		      "warning \"%s\"", st.warning);
	ck_assert_uint_eq(cam->streams[0].n_formats, full->streams[0].n_formats);
	uvc_camera_free(cam);

	/* one stray byte after the last descriptor: ignored, as the kernel does */
	memcpy(d, buf, len);
	d[len] = 0x09;
	put16(d + 2, (unsigned)len + 1);
	ck_assert_int_eq(parse(d, len + 1, &cam, &st), 0);
	ck_assert_msg(strstr(st.warning, "stray byte"), "warning \"%s\"", st.warning);
	uvc_camera_free(cam);
	uvc_camera_free(full);

	/* A format shorter than its fixed part: shrink it, pad with a dummy
	 * descriptor so the chain still adds up. */
	memcpy(d, buf, len);
	d[fmt] = 20;
	d[fmt + 20] = 7;
	d[fmt + 21] = 0x44;
	expect_einval(d, len, "bLength 20 < 27");

	/* wTotalLength smaller than the configuration descriptor. */
	memcpy(d, buf, len);
	put16(d + 2, 3);
	expect_einval(d, len, "wTotalLength");
	expect_einval(d, 5, "bytes < 9");
	expect_einval(NULL, 0, "no descriptor");
	d[1] = USB_DT_DEVICE;
	expect_einval(d, len, "not a configuration");

	/* wTotalLength beyond the buffer: parse what is there, warn. */
	memcpy(d, buf, len);
	put16(d + 2, 0xffff);
	ck_assert_int_eq(parse(d, len, &cam, &st), 0);
	ck_assert_uint_gt(st.n_warnings, 0);
	uvc_camera_free(cam);

	/* wTotalLength shorter than the buffer: the rest is not looked at. */
	memcpy(d, buf, len);
	d[len] = 0;
	d[len + 1] = 0;
	ck_assert_int_eq(parse(d, len + 2, &cam, &st), 0);
	uvc_camera_free(cam);
}
END_TEST

START_TEST(bad_frames)
{
	uint8_t buf[8192], d[8192];
	size_t len = build(default_profile(), buf, sizeof(buf));
	size_t fmt = find(buf, len, USB_DT_CS_INTERFACE, UVC_VS_FORMAT_UNCOMPRESSED, 0);
	size_t frame = find(buf, len, USB_DT_CS_INTERFACE, UVC_VS_FRAME_UNCOMPRESSED, 0);

	/* bFrameIntervalType that does not fit bLength. */
	memcpy(d, buf, len);
	d[frame + 25] = 200;
	expect_einval(d, len, "intervals need");
	/* Continuous needs 3 values: 38 bytes. */
	memcpy(d, buf, len);
	if (d[frame] < 38) {
		d[frame + 25] = 0;
		expect_einval(d, len, "intervals need");
	}

	/* More frames than the format declares. */
	memcpy(d, buf, len);
	d[fmt + 4] = 0;
	expect_einval(d, len, "more frames than");

	/* A frame before any format: cut the format descriptor out. */
	unsigned fl = buf[fmt];
	memcpy(d, buf, fmt);
	memcpy(d + fmt, buf + fmt + fl, len - fmt - fl);
	put16(d + 2, (unsigned)(len - fl));
	expect_einval(d, len - fl, "before any format");

	/* An MJPEG frame under an uncompressed format. */
	memcpy(d, buf, len);
	d[frame + 2] = UVC_VS_FRAME_MJPEG;
	expect_einval(d, len, "another kind");

	/* Duplicate format index. */
	size_t fmt2 = find(buf, len, USB_DT_CS_INTERFACE, UVC_VS_FORMAT_MJPEG, 0);
	memcpy(d, buf, len);
	d[fmt2 + 3] = d[fmt + 3];
	expect_einval(d, len, "duplicate");
}
END_TEST

/* A format none of whose frame descriptors came (fuzzing found one): left
 * out with a warning, since everything above picks a frame of a format (the
 * node used to take frames[0] of it: a NULL dereference). The camera's
 * other formats stay; with none left it is no camera. */
START_TEST(format_without_frames)
{
	uint8_t buf[8192], d[8192];
	size_t len = build(default_profile(), buf, sizeof(buf));
	size_t fmt = find(buf, len, USB_DT_CS_INTERFACE, UVC_VS_FORMAT_UNCOMPRESSED, 0);
	size_t first = find(buf, len, USB_DT_CS_INTERFACE, UVC_VS_FRAME_UNCOMPRESSED, 0);
	size_t next = find(buf, len, USB_DT_CS_INTERFACE, UVC_VS_FORMAT_MJPEG, 0);
	/* every frame of format 1 (and what follows them up to the next format) cut */
	size_t cut = next - first;
	memcpy(d, buf, first);
	memcpy(d + first, buf + next, len - next);
	put16(d + 2, (unsigned)(len - cut));
	struct uvc_camera *cam;
	struct uvc_parse_status st;
	ck_assert_int_eq(parse(d, len - cut, &cam, &st), 0);
	ck_assert(strstr(st.warning, "no frame descriptor"));
	const struct uvc_streaming *vs = &cam->streams[0];
	ck_assert_uint_eq(vs->n_formats, default_profile()->n_formats - 1);
	ck_assert_ptr_null(uvc_stream_find_format(vs, buf[fmt + 3]));
	for (unsigned f = 0; f < vs->n_formats; f++)
		ck_assert_uint_gt(vs->formats[f].n_frames, 0);
	ck_assert_uint_eq(vs->formats[0].fourcc, V4L2_PIX_FMT_MJPEG);
	uvc_camera_free(cam);
}
END_TEST

START_TEST(unknown_subtypes_skipped)
{
	uint8_t buf[8192], d[8192];
	size_t len = build(default_profile(), buf, sizeof(buf));
	size_t color = find(buf, len, USB_DT_CS_INTERFACE, UVC_VS_COLORFORMAT, 0);
	memcpy(d, buf, len);
	d[color + 2] = 0x0e;
	struct uvc_camera *cam;
	struct uvc_parse_status st;
	ck_assert_int_eq(parse(d, len, &cam, &st), 0);
	ck_assert_uint_eq(st.n_warnings, 1);
	ck_assert(strstr(st.warning, "0x0e"));
	ck_assert(!cam->streams[0].formats[0].has_color);
	uvc_camera_free(cam);

	/* An unknown GUID gives fourcc 0 and a warning, not an error. */
	size_t fmt = find(buf, len, USB_DT_CS_INTERFACE, UVC_VS_FORMAT_UNCOMPRESSED, 0);
	memcpy(d, buf, len);
	d[fmt + 5] = 'Q';
	ck_assert_int_eq(parse(d, len, &cam, &st), 0);
	ck_assert_uint_eq(cam->streams[0].formats[0].fourcc, 0);
	uvc_camera_free(cam);
}
END_TEST

START_TEST(guid_table)
{
	static const uint8_t l8[16] = { 0x32, 0, 0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xaa, 0, 0x38, 0x9b, 0x71 };
	static const uint8_t bgr3[16] = { 0x7d, 0xeb, 0x36, 0xe4, 0x4f, 0x52, 0xce, 0x11,
					  0x9f, 0x53, 0x00, 0x20, 0xaf, 0x0b, 0xa7, 0x70 };
	uint8_t g[16] = { 'Y', '1', '6', ' ', 0, 0, 0x10, 0, 0x80, 0, 0, 0xaa, 0, 0x38, 0x9b, 0x71 };
	ck_assert_uint_eq(uvc_guid_to_fourcc(l8), V4L2_PIX_FMT_GREY);
	ck_assert_uint_eq(uvc_guid_to_fourcc(bgr3), V4L2_PIX_FMT_BGR24);
	ck_assert_uint_eq(uvc_guid_to_fourcc(g), V4L2_PIX_FMT_Y16);
	memcpy(g, "GRBG", 4);
	ck_assert_uint_eq(uvc_guid_to_fourcc(g), V4L2_PIX_FMT_SGRBG8);
	memcpy(g, "H265", 4);
	ck_assert_uint_eq(uvc_guid_to_fourcc(g), V4L2_PIX_FMT_HEVC);
	memcpy(g, "ZZZZ", 4);
	ck_assert_uint_eq(uvc_guid_to_fourcc(g), 0);
}
END_TEST

/* ------------------------------------------------------------------ corpus */

static uint8_t *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	uint8_t *buf = malloc(65536);
	*len = fread(buf, 1, 65536, f);
	fclose(f);
	return buf;
}

static struct uvc_camera *corpus_camera(const char *dir, const char *file)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	size_t len;
	uint8_t *buf = read_all(path, &len);
	struct uvc_camera *cam;
	struct uvc_parse_status st;
	int r = parse(buf, len, &cam, &st);
	free(buf);
	ck_assert_msg(r == 0, "%s: %s", file, st.error);
	return cam;
}

static unsigned count_frames(const struct uvc_streaming *vs)
{
	unsigned n = 0;
	for (unsigned f = 0; f < vs->n_formats; f++)
		n += vs->formats[f].n_frames;
	return n;
}

START_TEST(corpus)
{
	const char *dir = getenv("UVC_CORPUS_DIR");
	/* A missing corpus is a failure, not a skip: it would pass with no check. */
	ck_assert_msg(dir != NULL, "UVC_CORPUS_DIR is not set");
	DIR *dp = opendir(dir);
	ck_assert_msg(dp != NULL, "corpus %s: %s", dir, strerror(errno));
	unsigned files = 0, ok = 0;
	struct dirent *de;
	while ((de = readdir(dp))) {
		size_t nl = strlen(de->d_name);
		if (nl < 8 || strcmp(de->d_name + nl - 8, ".cfg.bin"))
			continue;
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		size_t len;
		uint8_t *buf = read_all(path, &len);
		struct uvc_camera *cam;
		struct uvc_parse_status st;
		int r = parse(buf, len, &cam, &st);
		files++;
		if (r == 0) {
			ok++;
			uvc_camera_free(cam);
		} else {
			ck_assert_int_eq(r, -EINVAL);
			ck_assert_uint_gt(strlen(st.error), 0);
			printf("corpus: %s: %s\n", de->d_name, st.error);
			fflush(stdout);
		}
		free(buf);
	}
	closedir(dp);
	printf("corpus: %u of %u parse\n", ok, files);
	fflush(stdout);
	/* Pinned: a parser change that gains or loses a camera must say so here. */
	ck_assert_uint_eq(files, 76);
	ck_assert_uint_eq(ok, 70);

	/* Logitech C270: iso, UVC 1.00, YUYV then MJPEG. */
	struct uvc_camera *cam = corpus_camera(dir, "046d_0825_webcam_c270.cfg.bin");
	ck_assert_uint_eq(cam->bcd_uvc, 0x0100);
	ck_assert_uint_eq(cam->n_streams, 1);
	ck_assert_int_eq(cam->streams[0].transfer, UVC_TRANSFER_ISOCHRONOUS);
	ck_assert_uint_eq(cam->streams[0].n_formats, 2);
	ck_assert_uint_eq(cam->streams[0].formats[0].fourcc, V4L2_PIX_FMT_YUYV);
	ck_assert_uint_eq(cam->streams[0].formats[1].fourcc, V4L2_PIX_FMT_MJPEG);
	ck_assert_uint_eq(cam->streams[0].formats[0].frames[0].width, 640);
	ck_assert_uint_eq(cam->streams[0].formats[0].frames[0].height, 480);
	ck_assert_uint_gt(cam->streams[0].n_alts, 1);
	uvc_camera_free(cam);

	/* Realtek 0bda:5602: bulk, VS descriptors after the endpoint, stills. */
	cam = corpus_camera(dir, "0bda_5602_integrated_webcam.cfg.bin");
	ck_assert_int_eq(cam->streams[0].transfer, UVC_TRANSFER_BULK);
	ck_assert_uint_eq(cam->streams[0].n_formats, 2);
	ck_assert_uint_eq(count_frames(&cam->streams[0]), 20);
	ck_assert_uint_eq(cam->streams[0].formats[0].fourcc, V4L2_PIX_FMT_YUYV);
	ck_assert_uint_eq(cam->streams[0].formats[1].fourcc, V4L2_PIX_FMT_MJPEG);
	ck_assert_uint_gt(cam->streams[0].formats[0].n_stills + cam->streams[0].formats[1].n_stills,
			  0);
	uvc_camera_free(cam);

	/* 1d6c:0103: alternate setting 2 streams from endpoint 0x85, not the
	 * header's 0x83: not the stream's, as uvcvideo sees it */
	cam = corpus_camera(dir, "1d6c_0103_webcam.cfg.bin");
	ck_assert_uint_eq(cam->streams[0].endpoint, 0x83);
	ck_assert_uint_eq(cam->streams[0].n_alts, 1);
	ck_assert_uint_eq(cam->streams[0].alts[0].alt, 1);
	ck_assert_uint_eq(cam->streams[0].alts[0].bytes, 3 * 1020);
	uvc_camera_free(cam);
	/* 0770:1010: 640x512 YUYV declares 640x480's buffer; uvcvideo computes
	 * an uncompressed frame's size itself */
	cam = corpus_camera(dir, "0770_1010_dmv.cfg.bin");
	ck_assert_uint_eq(cam->streams[0].formats[0].frames[0].height, 512);
	ck_assert_uint_eq(cam->streams[0].formats[0].frames[0].max_buffer_size, 640 * 512 * 2);
	uvc_camera_free(cam);

	/* HP Full-HD camera 04f2:b62f: UVC 1.5, two functions: a colour camera
	 * (VC 0: MJPEG and YUYV, 14 frames) and an IR one (VC 2: 1 frame). */
	cam = corpus_camera(dir, "04f2_b62f_hp_full_hd_camera.cfg.bin");
	ck_assert_uint_eq(cam->bcd_uvc, 0x0150);
	ck_assert_uint_eq(cam->control_interface, 0);
	ck_assert_uint_eq(cam->n_streams, 1);
	ck_assert_uint_eq(cam->streams[0].n_formats, 2);
	ck_assert_uint_eq(count_frames(&cam->streams[0]), 14);
	uvc_camera_free(cam);
	{
		char path[4096];
		snprintf(path, sizeof(path), "%s/04f2_b62f_hp_full_hd_camera.cfg.bin", dir);
		size_t len;
		uint8_t *buf = read_all(path, &len);
		struct uvc_parse_status st;
		ck_assert_msg(uvc_parse_function(buf, len, 2, &cam, &st) == 0, "%s", st.error);
		free(buf);
		ck_assert_uint_eq(cam->control_interface, 2);
		ck_assert_uint_eq(cam->n_streams, 1);
		ck_assert_uint_eq(cam->streams[0].interface, 3);
		ck_assert_uint_eq(count_frames(&cam->streams[0]), 1);
		ck_assert_uint_ne(cam->streams[0].formats[0].fourcc, 0);
		uvc_camera_free(cam);
	}

	/* PureThermal: five uncompressed formats, each GUID known. */
	cam = corpus_camera(dir, "1e4e_0100_purethermal_fw_v1_2_2.cfg.bin");
	ck_assert_uint_eq(cam->streams[0].n_formats, 5);
	for (unsigned f = 0; f < 5; f++)
		ck_assert_uint_ne(cam->streams[0].formats[f].fourcc, 0);
	uvc_camera_free(cam);
}
END_TEST

static Suite *uvc_descriptors_suite(void)
{
	Suite *s = suite_create("uvc-descriptors");
	TCase *tc = tcase_create("vcam");
	tcase_add_test(tc, vcam_profiles_round_trip);
	tcase_add_test(tc, superspeed_uses_bytes_per_interval);
	tcase_add_test(tc, class_descriptors_after_endpoint);
	tcase_add_test(tc, vendor_class_by_number);
	suite_add_tcase(s, tc);
	tc = tcase_create("malformed");
	tcase_add_test(tc, truncated_at_every_offset);
	tcase_add_test(tc, every_byte_corrupted);
	tcase_add_test(tc, short_input_header);
	tcase_add_test(tc, bad_lengths);
	tcase_add_test(tc, bad_frames);
	tcase_add_test(tc, format_without_frames);
	tcase_add_test(tc, unknown_subtypes_skipped);
	tcase_add_test(tc, guid_table);
	suite_add_tcase(s, tc);
	tc = tcase_create("corpus");
	tcase_add_test(tc, corpus);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(uvc_descriptors_suite());
}
