/* SPDX-License-Identifier: GPL-2.0-or-later */
/* src/v4l2/formats.c: what ENUM_FMT, ENUM_FRAMESIZES, ENUM_FRAMEINTERVALS
 * and TRY_FMT answer for the vcam's profiles, as uvcvideo (6.1) does. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/videodev2.h>

#include "descriptors.h" /* tests/vcam */
#include "profile.h"
#include "unit_run.h"
#include "vcam_fixture.h"
#include "uvc/descriptors.h"
#include "v4l2/formats.h"


static struct uvc_camera *parse_named(const char *name)
{
	const struct vcam_profile *p = vcam_profile_find(name);
	ck_assert_ptr_nonnull(p);
	return fixture_camera(p);
}

/* The V4L2 view of a vcam pixel: fourcc, what uvcvideo prints for it in the
 * VM, and its compressed flag. */
static void pixel_v4l2(enum vcam_pixel pixel, uint32_t *fourcc, const char **name, bool *comp)
{
	switch (pixel) {
	case VCAM_PIXEL_YUYV:
		*fourcc = V4L2_PIX_FMT_YUYV, *name = "YUYV 4:2:2", *comp = false;
		return;
	case VCAM_PIXEL_NV12:
		*fourcc = V4L2_PIX_FMT_NV12, *name = "Y/UV 4:2:0", *comp = false;
		return;
	case VCAM_PIXEL_MJPEG:
		*fourcc = V4L2_PIX_FMT_MJPEG, *name = "Motion-JPEG", *comp = true;
		return;
	case VCAM_PIXEL_H264:
		*fourcc = V4L2_PIX_FMT_H264, *name = "H.264", *comp = true;
		return;
	default: /* only impersonated cameras have the others */
		break;
	}
	ck_abort_msg("unknown pixel %d", (int)pixel);
}

/* The whole enumeration of every profile equals what --describe prints:
 * "format FOURCC WxH FPS" lines, fps to three decimals from the fraction
 * we report. */
START_TEST(test_enumeration_matches_profiles)
{
	for (size_t n = 0; n < vcam_profile_count; n++) {
		const struct vcam_profile *p = &vcam_profiles[n];
		struct uvc_camera *cam = fixture_camera(p);
		const struct uvc_streaming *s = &cam->streams[0];
		char want[4096] = "", got[4096] = "";
		size_t wl = 0, gl = 0;

		for (unsigned f = 0; f < p->n_formats; f++) {
			const struct vcam_format *vf = &p->formats[f];
			uint32_t fourcc;
			const char *name;
			bool comp;
			pixel_v4l2(vf->pixel, &fourcc, &name, &comp);

			struct v4l2_fmtdesc d;
			memset(&d, 0xa5, sizeof(d));
			d.index = f;
			d.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
			ck_assert_int_eq(fmt_enum(s, &d), 0);
			ck_assert_uint_eq(d.index, f);
			ck_assert_uint_eq(d.pixelformat, fourcc);
			ck_assert_str_eq((const char *)d.description, name);
			ck_assert_uint_eq(d.flags, comp ? V4L2_FMT_FLAG_COMPRESSED : 0);
			ck_assert_uint_eq(d.mbus_code, 0);
			for (size_t r = 0; r < sizeof(d.reserved) / sizeof(d.reserved[0]); r++)
				ck_assert_uint_eq(d.reserved[r], 0);
			for (size_t c = strlen(name); c < sizeof(d.description); c++)
				ck_assert_uint_eq(d.description[c], 0);

			for (unsigned k = 0; k < vf->n_frames; k++) {
				const struct vcam_frame_size *fs = &vf->frames[k];
				for (unsigned i = 0; i < fs->n_intervals; i++)
					wl += (size_t)snprintf(want + wl, sizeof(want) - wl,
							       "format %.4s %ux%u %.3f\n",
							       (const char *)&fourcc, fs->width,
							       fs->height,
							       10000000.0 / fs->intervals[i]);
			}

			for (uint32_t k = 0;; k++) {
				struct v4l2_frmsizeenum fse = { .index = k, .pixel_format = fourcc };
				if (fmt_enum_framesizes(s, &fse) < 0) {
					ck_assert_uint_eq(k, vf->n_frames);
					break;
				}
				ck_assert_uint_eq(fse.type, V4L2_FRMSIZE_TYPE_DISCRETE);
				for (uint32_t i = 0;; i++) {
					struct v4l2_frmivalenum fie = {
						.index = i,
						.pixel_format = fourcc,
						.width = fse.discrete.width,
						.height = fse.discrete.height,
					};
					if (fmt_enum_frameintervals(s, &fie) < 0)
						break;
					ck_assert_uint_eq(fie.type, V4L2_FRMIVAL_TYPE_DISCRETE);
					gl += (size_t)snprintf(got + gl, sizeof(got) - gl,
							       "format %.4s %ux%u %.3f\n",
							       (const char *)&fourcc,
							       fse.discrete.width,
							       fse.discrete.height,
							       (double)fie.discrete.denominator /
								       fie.discrete.numerator);
				}
			}
		}
		struct v4l2_fmtdesc d = { .index = p->n_formats,
					  .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
		ck_assert_int_eq(fmt_enum(s, &d), -EINVAL);
		ck_assert_msg(strcmp(want, got) == 0, "profile %s:\nwant\n%sgot\n%s", p->name,
			      want, got);
		uvc_camera_free(cam);
	}
}
END_TEST

START_TEST(test_enum_errors)
{
	struct uvc_camera *cam = parse_named("default");
	const struct uvc_streaming *s = &cam->streams[0];

	struct v4l2_fmtdesc d = { .index = 0, .type = V4L2_BUF_TYPE_VIDEO_OUTPUT };
	ck_assert_int_eq(fmt_enum(s, &d), -EINVAL);
	d.type = V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE;
	ck_assert_int_eq(fmt_enum(s, &d), -EINVAL);
	d.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	d.index = 2;
	ck_assert_int_eq(fmt_enum(s, &d), -EINVAL);
	d.index = UINT32_MAX;
	ck_assert_int_eq(fmt_enum(s, &d), -EINVAL);

	struct v4l2_frmsizeenum fse = { .index = 0, .pixel_format = V4L2_PIX_FMT_NV12 };
	ck_assert_int_eq(fmt_enum_framesizes(s, &fse), -EINVAL);
	fse.pixel_format = 0;
	ck_assert_int_eq(fmt_enum_framesizes(s, &fse), -EINVAL);
	fse.pixel_format = V4L2_PIX_FMT_MJPEG;
	fse.index = 3;
	ck_assert_int_eq(fmt_enum_framesizes(s, &fse), -EINVAL);
	fse.index = 2;
	memset(fse.reserved, 0xff, sizeof(fse.reserved));
	ck_assert_int_eq(fmt_enum_framesizes(s, &fse), 0);
	ck_assert_uint_eq(fse.discrete.width, 1920);
	ck_assert_uint_eq(fse.discrete.height, 1080);
	ck_assert_uint_eq(fse.reserved[0], 0);
	ck_assert_uint_eq(fse.reserved[1], 0);

	struct v4l2_frmivalenum fie = { .index = 0, .pixel_format = V4L2_PIX_FMT_YUYV,
					.width = 1920, .height = 1080 };
	ck_assert_int_eq(fmt_enum_frameintervals(s, &fie), -EINVAL);
	fie.width = 640;
	fie.height = 481;
	ck_assert_int_eq(fmt_enum_frameintervals(s, &fie), -EINVAL);
	fie.height = 480;
	fie.index = 3;
	ck_assert_int_eq(fmt_enum_frameintervals(s, &fie), -EINVAL);
	fie.index = 2;
	ck_assert_int_eq(fmt_enum_frameintervals(s, &fie), 0);
	ck_assert_uint_eq(fie.discrete.numerator, 1);
	ck_assert_uint_eq(fie.discrete.denominator, 5);
	fie.pixel_format = V4L2_PIX_FMT_H264;
	fie.index = 0;
	ck_assert_int_eq(fmt_enum_frameintervals(s, &fie), -EINVAL);
	uvc_camera_free(cam);
}
END_TEST

/* uvc_simplify_fraction(8, 333) on the intervals the profiles use. */
START_TEST(test_fractions)
{
	static const struct {
		uint32_t interval, num, den;
	} cases[] = {
		{ 333333, 1, 30 }, { 666666, 1, 15 }, { 2000000, 1, 5 },   { 166666, 1, 60 },
		{ 333334, 1, 30 }, { 10000000, 1, 1 }, { 400000, 1, 25 }, { 1, 1, 10000000 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct v4l2_fract f = fmt_interval_fract(cases[i].interval);
		ck_assert_msg(f.numerator == cases[i].num && f.denominator == cases[i].den,
			      "%u -> %u/%u", cases[i].interval, f.numerator, f.denominator);
	}
	ck_assert_uint_eq(fmt_fract_to_interval(1, 30), 333333);
	ck_assert_uint_eq(fmt_fract_to_interval(1, 60), 166666);
	ck_assert_uint_eq(fmt_fract_to_interval(1, 5), 2000000);
	ck_assert_uint_eq(fmt_fract_to_interval(1, 0), UINT32_MAX);
	ck_assert_uint_eq(fmt_fract_to_interval(1000, 1), UINT32_MAX);
}
END_TEST

/* Every fourcc the GUID table produces has the 6.1 core's description. */
START_TEST(test_descriptions_cover_guid_table)
{
	static const char *fourccs[] = {
		"YUY2", "NV12", "MJPG", "YV12", "I420", "M420", "UYVY", "Y800", "Y8  ",
		"Y10 ", "Y12 ", "Y16 ", "BY8 ", "BA81", "GBRG", "GRBG", "RGGB", "RGBP",
		"H264", "H265", "HEVC", "Y8I ", "Y12I", "Z16 ", "RW10", "BG16", "GB16",
		"RG16", "GR16", "C   ",
	};
	for (size_t i = 0; i < sizeof(fourccs) / sizeof(fourccs[0]); i++) {
		uint8_t guid[16] = { 0, 0, 0, 0, 0x00, 0x00, 0x10, 0x00,
				     0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71 };
		memcpy(guid, fourccs[i], 4);
		uint32_t fourcc = uvc_guid_to_fourcc(guid);
		ck_assert_msg(fourcc != 0, "%s: no fourcc", fourccs[i]);
		ck_assert_msg(fmt_describe(fourcc, NULL) != NULL, "%s: no description", fourccs[i]);
		ck_assert_uint_lt(strlen(fmt_describe(fourcc, NULL)), 32);
	}
	/* DirectShow's RGB32 GUID: BGRX in memory */
	static const uint8_t rgb32[16] = { 0x7e, 0xeb, 0x36, 0xe4, 0x4f, 0x52, 0xce, 0x11,
					   0x9f, 0x53, 0x00, 0x20, 0xaf, 0x0b, 0xa7, 0x70 };
	ck_assert_uint_eq(uvc_guid_to_fourcc(rgb32), V4L2_PIX_FMT_XBGR32);
	ck_assert_str_eq(fmt_describe(V4L2_PIX_FMT_XBGR32, NULL), "32-bit BGRX 8-8-8-8");
	/* formats later kernels added and 6.1 leaves out: not ours either */
	uint8_t p010[16] = { 'P', '0', '1', '0', 0x00, 0x00, 0x10, 0x00,
			     0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71 };
	ck_assert_uint_eq(uvc_guid_to_fourcc(p010), 0);
	memcpy(p010, "INZI", 4); /* INZI has a GUID of its own, not the standard tail */
	ck_assert_uint_eq(uvc_guid_to_fourcc(p010), 0);
	uint32_t flags = 99;
	ck_assert_str_eq(fmt_describe(V4L2_PIX_FMT_GREY, &flags), "8-bit Greyscale");
	ck_assert_uint_eq(flags, 0);
	ck_assert_str_eq(fmt_describe(V4L2_PIX_FMT_HEVC, &flags), "HEVC");
	ck_assert_uint_eq(flags, V4L2_FMT_FLAG_COMPRESSED);
	ck_assert_ptr_null(fmt_describe(0, &flags));
	ck_assert_uint_eq(flags, 0);
}
END_TEST

static struct v4l2_format request(uint32_t fourcc, uint32_t w, uint32_t h)
{
	struct v4l2_format f;
	memset(&f, 0, sizeof(f));
	f.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	f.fmt.pix.pixelformat = fourcc;
	f.fmt.pix.width = w;
	f.fmt.pix.height = h;
	f.fmt.pix.field = V4L2_FIELD_INTERLACED;
	f.fmt.pix.bytesperline = 12345;
	f.fmt.pix.quantization = V4L2_QUANTIZATION_LIM_RANGE;
	return f;
}

START_TEST(test_try_yuyv)
{
	struct uvc_camera *cam = parse_named("default");
	const struct uvc_streaming *s = &cam->streams[0];
	struct fmt_choice c;

	struct v4l2_format f = request(V4L2_PIX_FMT_YUYV, 641, 479);
	ck_assert_int_eq(fmt_try(s, NULL, &f, &c), 0);
	ck_assert_uint_eq(f.fmt.pix.pixelformat, V4L2_PIX_FMT_YUYV);
	ck_assert_uint_eq(f.fmt.pix.width, 640);
	ck_assert_uint_eq(f.fmt.pix.height, 480);
	ck_assert_uint_eq(f.fmt.pix.field, V4L2_FIELD_NONE);
	ck_assert_uint_eq(f.fmt.pix.bytesperline, 1280);
	ck_assert_uint_eq(f.fmt.pix.sizeimage, 640 * 480 * 2);
	/* The vcam's color matching descriptor: BT.709 primaries and
	 * transfer, SMPTE 170M matrix. */
	ck_assert_uint_eq(f.fmt.pix.colorspace, V4L2_COLORSPACE_SRGB);
	ck_assert_uint_eq(f.fmt.pix.xfer_func, V4L2_XFER_FUNC_709);
	ck_assert_uint_eq(f.fmt.pix.ycbcr_enc, V4L2_YCBCR_ENC_601);
	ck_assert_uint_eq(f.fmt.pix.quantization, 0); /* sanitized: no priv magic */
	ck_assert_uint_eq(f.fmt.pix.priv, V4L2_PIX_FMT_PRIV_MAGIC);
	ck_assert_uint_eq(c.format->index, 1);
	ck_assert_uint_eq(c.frame->index, 1);
	ck_assert_uint_eq(c.interval, 333333);

	/* Nearer to 640x480 than to 1280x720 by non-overlapping area. */
	f = request(V4L2_PIX_FMT_YUYV, 1000, 600);
	ck_assert_int_eq(fmt_try(s, NULL, &f, &c), 0);
	ck_assert_uint_eq(f.fmt.pix.width, 640);
	f = request(V4L2_PIX_FMT_YUYV, 1000, 700);
	ck_assert_int_eq(fmt_try(s, NULL, &f, &c), 0);
	ck_assert_uint_eq(f.fmt.pix.width, 1280);
	ck_assert_uint_eq(c.frame->index, 2);
	f = request(V4L2_PIX_FMT_YUYV, 0, 0);
	ck_assert_int_eq(fmt_try(s, NULL, &f, &c), 0);
	ck_assert_uint_eq(f.fmt.pix.width, 640);
	f = request(V4L2_PIX_FMT_YUYV, 5000, 5000);
	ck_assert_int_eq(fmt_try(s, NULL, &f, &c), 0);
	ck_assert_uint_eq(f.fmt.pix.width, 1280);
	ck_assert_uint_eq(f.fmt.pix.height, 720);
	ck_assert_uint_eq(f.fmt.pix.sizeimage, 1280 * 720 * 2);
	/* uvcvideo reads the request as 16 bits: 65536+640 is 640. */
	f = request(V4L2_PIX_FMT_YUYV, 65536 + 640, 65536 + 480);
	ck_assert_int_eq(fmt_try(s, NULL, &f, &c), 0);
	ck_assert_uint_eq(f.fmt.pix.width, 640);

	/* With the magic, the core keeps the fields past priv it does not set. */
	f = request(V4L2_PIX_FMT_YUYV, 640, 480);
	f.fmt.pix.priv = V4L2_PIX_FMT_PRIV_MAGIC;
	ck_assert_int_eq(fmt_try(s, NULL, &f, &c), 0);
	ck_assert_uint_eq(f.fmt.pix.quantization, V4L2_QUANTIZATION_LIM_RANGE);

	f = request(V4L2_PIX_FMT_YUYV, 640, 480);
	f.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
	ck_assert_int_eq(fmt_try(s, NULL, &f, &c), -EINVAL);
	uvc_camera_free(cam);
}
END_TEST

START_TEST(test_try_fallback_and_compressed)
{
	struct uvc_camera *cam = parse_named("h264");
	const struct uvc_streaming *s = &cam->streams[0];
	struct fmt_choice c;

	/* Unknown fourcc: the default format (here the first, H.264). */
	struct v4l2_format f = request(v4l2_fourcc('A', 'B', 'C', 'D'), 640, 480);
	ck_assert_int_eq(fmt_try(s, NULL, &f, &c), 0);
	ck_assert_uint_eq(f.fmt.pix.pixelformat, V4L2_PIX_FMT_H264);
	ck_assert_uint_eq(f.fmt.pix.width, 1280);
	ck_assert_uint_eq(f.fmt.pix.height, 720);
	/* 6.1 applies bBitsPerPixel (16) to frame-based formats. */
	ck_assert_uint_eq(f.fmt.pix.bytesperline, 2560);
	ck_assert_uint_eq(f.fmt.pix.sizeimage, 0); /* from the probe */
	ck_assert_uint_eq(c.format->index, 1);

	/* ... or the one GET_CUR named at start-up. */
	const struct uvc_format *yuyv = fmt_find(s, V4L2_PIX_FMT_YUYV);
	ck_assert_ptr_nonnull(yuyv);
	f = request(0, 1920, 1080);
	ck_assert_int_eq(fmt_try(s, yuyv, &f, &c), 0);
	ck_assert_uint_eq(f.fmt.pix.pixelformat, V4L2_PIX_FMT_YUYV);
	ck_assert_uint_eq(f.fmt.pix.width, 640);
	ck_assert_uint_eq(c.format->index, 3);

	f = request(V4L2_PIX_FMT_MJPEG, 320, 240);
	ck_assert_int_eq(fmt_try(s, NULL, &f, &c), 0);
	ck_assert_uint_eq(f.fmt.pix.pixelformat, V4L2_PIX_FMT_MJPEG);
	ck_assert_uint_eq(f.fmt.pix.width, 640);
	ck_assert_uint_eq(f.fmt.pix.bytesperline, 0);
	ck_assert_uint_eq(f.fmt.pix.sizeimage, c.frame->max_buffer_size);
	ck_assert_uint_gt(f.fmt.pix.sizeimage, 0);
	ck_assert_uint_eq(c.format->index, 2);
	uvc_camera_free(cam);

	cam = parse_named("nv12");
	s = &cam->streams[0];
	f = request(V4L2_PIX_FMT_NV12, 1280, 720);
	ck_assert_int_eq(fmt_try(s, NULL, &f, &c), 0);
	ck_assert_uint_eq(f.fmt.pix.bytesperline, 1280); /* luma plane */
	ck_assert_uint_eq(f.fmt.pix.sizeimage, 1280 * 720 * 3 / 2);
	uvc_camera_free(cam);
}
END_TEST

/* A hand-made stream: an unknown GUID, a duplicate size, a continuous
 * frame, no color matching descriptor. */
static uint32_t ivals[] = { 333333, 666666, 2000000 };
static uint32_t ivals2[] = { 166666 };
static struct uvc_frame frames_a[] = {
	{ .index = 1, .width = 640, .height = 480, .default_interval = 666666,
	  .n_intervals = 3, .intervals = ivals, .max_buffer_size = 1 },
	{ .index = 2, .width = 640, .height = 480, .default_interval = 166666,
	  .n_intervals = 1, .intervals = ivals2 },
	{ .index = 3, .width = 320, .height = 240, .default_interval = 99999999,
	  .continuous = true, .range = { 333333, 2000000, 333333 } },
};
static struct uvc_format formats_x[] = {
	{ .index = 1, .kind = UVC_FORMAT_UNCOMPRESSED, .fourcc = 0, .bpp = 16 },
	{ .index = 2, .kind = UVC_FORMAT_UNCOMPRESSED, .fourcc = V4L2_PIX_FMT_UYVY, .bpp = 16,
	  .n_frames = 3, .frames = frames_a },
};
static const struct uvc_streaming stream_x = { .n_formats = 2, .formats = formats_x };

START_TEST(test_hand_made_stream)
{
	const struct uvc_streaming *s = &stream_x;
	ck_assert_uint_eq(fmt_count(s), 1);

	struct v4l2_fmtdesc d = { .index = 0, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	ck_assert_int_eq(fmt_enum(s, &d), 0);
	ck_assert_uint_eq(d.pixelformat, V4L2_PIX_FMT_UYVY);
	ck_assert_str_eq((const char *)d.description, "UYVY 4:2:2");
	d.index = 1;
	ck_assert_int_eq(fmt_enum(s, &d), -EINVAL);

	/* 640x480 twice in a row: one size. */
	struct v4l2_frmsizeenum fse = { .index = 1, .pixel_format = V4L2_PIX_FMT_UYVY };
	ck_assert_int_eq(fmt_enum_framesizes(s, &fse), 0);
	ck_assert_uint_eq(fse.discrete.width, 320);
	fse.index = 2;
	ck_assert_int_eq(fmt_enum_framesizes(s, &fse), -EINVAL);

	/* Both 640x480 frames' intervals, in order. */
	static const uint32_t den[] = { 30, 15, 5, 60 };
	for (uint32_t i = 0; i < 4; i++) {
		struct v4l2_frmivalenum fie = { .index = i, .pixel_format = V4L2_PIX_FMT_UYVY,
						.width = 640, .height = 480 };
		ck_assert_int_eq(fmt_enum_frameintervals(s, &fie), 0);
		ck_assert_uint_eq(fie.discrete.numerator, 1);
		ck_assert_uint_eq(fie.discrete.denominator, den[i]);
	}
	struct v4l2_frmivalenum fie = { .index = 4, .pixel_format = V4L2_PIX_FMT_UYVY,
					.width = 640, .height = 480 };
	ck_assert_int_eq(fmt_enum_frameintervals(s, &fie), -EINVAL);

	/* Continuous: one stepwise entry. */
	fie = (struct v4l2_frmivalenum){ .index = 0, .pixel_format = V4L2_PIX_FMT_UYVY,
					 .width = 320, .height = 240 };
	ck_assert_int_eq(fmt_enum_frameintervals(s, &fie), 0);
	ck_assert_uint_eq(fie.type, V4L2_FRMIVAL_TYPE_STEPWISE);
	ck_assert_uint_eq(fie.stepwise.min.numerator, 1);
	ck_assert_uint_eq(fie.stepwise.min.denominator, 30);
	ck_assert_uint_eq(fie.stepwise.max.numerator, 1);
	ck_assert_uint_eq(fie.stepwise.max.denominator, 5);
	ck_assert_uint_eq(fie.stepwise.step.numerator, 1);
	ck_assert_uint_eq(fie.stepwise.step.denominator, 30);
	fie.index = 1;
	ck_assert_int_eq(fmt_enum_frameintervals(s, &fie), -EINVAL);

	/* TRY_FMT: the unknown-GUID format is never picked; first frame of
	 * the exact size wins; its default interval; no color descriptor. */
	struct v4l2_format f = request(0, 640, 480);
	struct fmt_choice c;
	ck_assert_int_eq(fmt_try(s, &formats_x[0], &f, &c), 0);
	ck_assert_uint_eq(f.fmt.pix.pixelformat, V4L2_PIX_FMT_UYVY);
	ck_assert_uint_eq(c.frame->index, 1);
	ck_assert_uint_eq(c.interval, 666666);
	ck_assert_uint_eq(f.fmt.pix.sizeimage, 640 * 480 * 2); /* not the descriptor's 1 */
	ck_assert_uint_eq(f.fmt.pix.colorspace, V4L2_COLORSPACE_SRGB);
	ck_assert_uint_eq(f.fmt.pix.xfer_func, V4L2_XFER_FUNC_DEFAULT);
	ck_assert_uint_eq(f.fmt.pix.ycbcr_enc, V4L2_YCBCR_ENC_DEFAULT);

	/* The continuous frame's default is clamped into its range. */
	f = request(V4L2_PIX_FMT_UYVY, 300, 200);
	ck_assert_int_eq(fmt_try(s, NULL, &f, &c), 0);
	ck_assert_uint_eq(c.frame->index, 3);
	/* ... and then rounded to min + k * step, as uvcvideo does. */
	ck_assert_uint_eq(c.interval, 1999998);
}
END_TEST

/* uvc_try_frame_interval: nearest discrete interval; continuous ranges
 * rounded to the step and clamped. */
START_TEST(test_interval_snapping)
{
	const struct uvc_frame *d = &frames_a[0], *c = &frames_a[2];
	ck_assert_uint_eq(fmt_try_interval(d, 333333), 333333);
	ck_assert_uint_eq(fmt_try_interval(d, 0), 333333);
	ck_assert_uint_eq(fmt_try_interval(d, 400000), 333333);
	ck_assert_uint_eq(fmt_try_interval(d, 499999), 333333);
	ck_assert_uint_eq(fmt_try_interval(d, 500000), 666666);
	ck_assert_uint_eq(fmt_try_interval(d, 1333332), 666666);
	/* A tie goes on to the later interval, as the loop only stops on a
	 * strictly larger distance. */
	ck_assert_uint_eq(fmt_try_interval(d, 1333333), 2000000);
	ck_assert_uint_eq(fmt_try_interval(d, 1500000), 2000000);
	ck_assert_uint_eq(fmt_try_interval(d, 10000000), 2000000);
	ck_assert_uint_eq(fmt_try_interval(&frames_a[1], 1), 166666);

	ck_assert_uint_eq(fmt_try_interval(c, 333333), 333333);
	ck_assert_uint_eq(fmt_try_interval(c, 700000), 666666);
	ck_assert_uint_eq(fmt_try_interval(c, 850000), 999999);
	ck_assert_uint_eq(fmt_try_interval(c, 5000000), 2000000);

	ck_assert_uint_eq(fmt_default_interval(d), 666666);
	ck_assert_uint_eq(fmt_default_interval(c), 2000000);
	ck_assert_uint_eq(fmt_default_interval(&frames_a[1]), 166666);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("v4l2-formats");
	TCase *tc = tcase_create("formats");
	tcase_add_test(tc, test_enumeration_matches_profiles);
	tcase_add_test(tc, test_enum_errors);
	tcase_add_test(tc, test_fractions);
	tcase_add_test(tc, test_descriptions_cover_guid_table);
	tcase_add_test(tc, test_try_yuyv);
	tcase_add_test(tc, test_try_fallback_and_compressed);
	tcase_add_test(tc, test_hand_made_stream);
	tcase_add_test(tc, test_interval_snapping);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
