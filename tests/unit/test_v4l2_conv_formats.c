/* SPDX-License-Identifier: GPL-2.0-or-later */
/* src/v4l2/conv_formats.c: the converted formats after the camera's own in
 * ENUM_FMT, their sizes and intervals (unions over the sources) and the
 * source chosen for them, on the vcam's profiles. */
#include <check.h>
#include <errno.h>
#include <string.h>

#include <linux/videodev2.h>

#include "descriptors.h" /* tests/vcam */
#include "profile.h"
#include "unit_run.h"
#include "vcam_fixture.h"
#include "uvc/descriptors.h"
#include "v4l2/conv_formats.h"
#include "v4l2/formats.h"

static struct uvc_camera *parse_named(const char *name)
{
	const struct vcam_profile *p = vcam_profile_find(name);
	ck_assert_ptr_nonnull(p);
	return fixture_camera(p);
}

START_TEST(test_enum_fmt)
{
	struct uvc_camera *cam = parse_named("default");
	const struct uvc_streaming *s = &cam->streams[0];
	static const struct {
		uint32_t fourcc;
		const char *name;
		uint32_t flags;
	} want[] = {
		{ V4L2_PIX_FMT_YUYV, "YUYV 4:2:2", 0 },
		{ V4L2_PIX_FMT_MJPEG, "Motion-JPEG", V4L2_FMT_FLAG_COMPRESSED },
		{ V4L2_PIX_FMT_RGB24, "24-bit RGB 8-8-8", 0 },
		{ V4L2_PIX_FMT_BGR24, "24-bit BGR 8-8-8", 0 },
		{ V4L2_PIX_FMT_YUV420, "Planar YUV 4:2:0", 0 },
		{ V4L2_PIX_FMT_YVU420, "Planar YVU 4:2:0", 0 },
	};
	for (unsigned i = 0; i < 6; i++) {
		struct v4l2_fmtdesc d;
		memset(&d, 0xff, sizeof(d));
		d.index = i;
		d.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
		ck_assert_int_eq(cfmt_enum(s, &d), 0);
		ck_assert_uint_eq(d.index, i);
		ck_assert_uint_eq(d.pixelformat, want[i].fourcc);
		ck_assert_str_eq((const char *)d.description, want[i].name);
		ck_assert_uint_eq(d.flags, want[i].flags); /* never EMULATED */
		ck_assert_uint_eq(d.mbus_code, 0);
		ck_assert_uint_eq(d.reserved[0], 0);
	}
	struct v4l2_fmtdesc d = { .index = 6, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	ck_assert_int_eq(cfmt_enum(s, &d), -EINVAL);
	d = (struct v4l2_fmtdesc){ .index = 0, .type = V4L2_BUF_TYPE_VIDEO_OUTPUT };
	ck_assert_int_eq(cfmt_enum(s, &d), -EINVAL);
	d = (struct v4l2_fmtdesc){ .index = UINT32_MAX, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	ck_assert_int_eq(cfmt_enum(s, &d), -EINVAL);
	ck_assert(cfmt_is_converted(s, V4L2_PIX_FMT_RGB24));
	ck_assert(!cfmt_is_converted(s, V4L2_PIX_FMT_YUYV));
	uvc_camera_free(cam);
}
END_TEST

static unsigned list_sizes(const struct uvc_streaming *s, uint32_t fourcc, unsigned out[][2])
{
	unsigned n = 0;
	for (;; n++) {
		struct v4l2_frmsizeenum fs = { .index = n, .pixel_format = fourcc };
		if (cfmt_enum_framesizes(s, &fs))
			return n;
		ck_assert_uint_eq(fs.type, V4L2_FRMSIZE_TYPE_DISCRETE);
		out[n][0] = fs.discrete.width;
		out[n][1] = fs.discrete.height;
	}
}

/* Frame rates (1/interval) at a size, in enumeration order. */
static unsigned list_rates(const struct uvc_streaming *s, uint32_t fourcc, unsigned w, unsigned h,
			   unsigned *out)
{
	unsigned n = 0;
	for (;; n++) {
		struct v4l2_frmivalenum fi = { .index = n, .pixel_format = fourcc, .width = w,
					       .height = h };
		if (cfmt_enum_frameintervals(s, &fi))
			return n;
		ck_assert_uint_eq(fi.type, V4L2_FRMIVAL_TYPE_DISCRETE);
		ck_assert_uint_eq(fi.discrete.numerator, 1);
		out[n] = fi.discrete.denominator;
	}
}

START_TEST(test_sizes_and_intervals)
{
	unsigned sizes[16][2], rates[16];
	struct uvc_camera *cam = parse_named("default");
	const struct uvc_streaming *s = &cam->streams[0];
	for (unsigned d = 0; d < 4; d++) {
		uint32_t fourcc = (uint32_t[]){ V4L2_PIX_FMT_RGB24, V4L2_PIX_FMT_BGR24,
						V4L2_PIX_FMT_YUV420, V4L2_PIX_FMT_YVU420 }[d];
		/* YUYV's 640x480 and 1280x720, then MJPEG's 1920x1080 */
		ck_assert_uint_eq(list_sizes(s, fourcc, sizes), 3);
		ck_assert_uint_eq(sizes[0][0], 640);
		ck_assert_uint_eq(sizes[1][0], 1280);
		ck_assert_uint_eq(sizes[2][0], 1920);
		ck_assert_uint_eq(sizes[2][1], 1080);
		ck_assert_uint_eq(list_rates(s, fourcc, 1280, 720, rates), 3);
		ck_assert_uint_eq(rates[0], 30);
		ck_assert_uint_eq(rates[1], 15);
		ck_assert_uint_eq(rates[2], 5);
		ck_assert_uint_eq(list_rates(s, fourcc, 1920, 1080, rates), 2);
		ck_assert_uint_eq(list_rates(s, fourcc, 800, 600, rates), 0);
	}
	/* Native formats answer as uvcvideo. */
	ck_assert_uint_eq(list_sizes(s, V4L2_PIX_FMT_YUYV, sizes), 2);
	ck_assert_uint_eq(list_rates(s, V4L2_PIX_FMT_YUYV, 640, 480, rates), 3);
	struct v4l2_frmsizeenum fs = { .pixel_format = V4L2_PIX_FMT_NV12 };
	ck_assert_int_eq(cfmt_enum_framesizes(s, &fs), -EINVAL);
	uvc_camera_free(cam);

	/* usb3: YUYV 30/15/5 and MJPEG 60/30 at 1280x720 merge fastest first. */
	cam = parse_named("usb3");
	s = &cam->streams[0];
	ck_assert_uint_eq(list_rates(s, V4L2_PIX_FMT_RGB24, 1280, 720, rates), 4);
	ck_assert_uint_eq(rates[0], 60);
	ck_assert_uint_eq(rates[1], 30);
	ck_assert_uint_eq(rates[2], 15);
	ck_assert_uint_eq(rates[3], 5);
	uvc_camera_free(cam);

	/* h264: H.264 is no source, so only YUYV's and MJPEG's 640x480. */
	cam = parse_named("h264");
	s = &cam->streams[0];
	ck_assert_uint_eq(list_sizes(s, V4L2_PIX_FMT_YUV420, sizes), 1);
	ck_assert_uint_eq(sizes[0][0], 640);
	ck_assert_uint_eq(list_rates(s, V4L2_PIX_FMT_YUV420, 640, 480, rates), 3);
	uvc_camera_free(cam);
}
END_TEST

START_TEST(test_source)
{
	struct uvc_camera *cam = parse_named("default");
	const struct uvc_streaming *s = &cam->streams[0];
	const struct uvc_format *f = cfmt_source(s, V4L2_PIX_FMT_RGB24, 640, 480, 333333);
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->fourcc, V4L2_PIX_FMT_YUYV);
	f = cfmt_source(s, V4L2_PIX_FMT_YUV420, 1920, 1080, 333333);
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->fourcc, V4L2_PIX_FMT_MJPEG);
	ck_assert_ptr_null(cfmt_source(s, V4L2_PIX_FMT_RGB24, 800, 600, 333333));
	uvc_camera_free(cam);

	cam = parse_named("usb3");
	s = &cam->streams[0];
	f = cfmt_source(s, V4L2_PIX_FMT_BGR24, 1280, 720, 166666);
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->fourcc, V4L2_PIX_FMT_MJPEG);
	f = cfmt_source(s, V4L2_PIX_FMT_BGR24, 1280, 720, 333333);
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->fourcc, V4L2_PIX_FMT_YUYV);
	uvc_camera_free(cam);

	cam = parse_named("nv12");
	s = &cam->streams[0];
	f = cfmt_source(s, V4L2_PIX_FMT_RGB24, 1280, 720, 666666);
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->fourcc, V4L2_PIX_FMT_NV12);
	uvc_camera_free(cam);
}
END_TEST

/* cfmt_choose: nearest listed size, nearest listed interval, then the
 * source rule with its reason; the answer's layout. */
START_TEST(test_choose)
{
	struct uvc_camera *cam = parse_named("h264");
	const struct uvc_streaming *s = &cam->streams[0];
	struct cfmt_choice c;
	/* 1280x720 exists only as H.264, never a source: the nearest size
	 * that converts is 640x480, where YUYV (raw, after MJPEG in the
	 * camera's order) has 30 fps */
	ck_assert_int_eq(cfmt_choose(s, V4L2_PIX_FMT_RGB24, 1280, 720, 333333, &c), 0);
	ck_assert_uint_eq(c.frame->width, 640);
	ck_assert_uint_eq(c.format->fourcc, V4L2_PIX_FMT_YUYV);
	ck_assert_uint_eq(c.reason, CFMT_RAW_AT_INTERVAL);
	ck_assert_int_eq(cfmt_choose(s, V4L2_PIX_FMT_H264, 1280, 720, 333333, &c), -EINVAL);
	uvc_camera_free(cam);

	cam = parse_named("nv12");
	s = &cam->streams[0];
	/* 5 fps is not listed at 1280x720: the nearest listed (15 fps) */
	ck_assert_int_eq(cfmt_choose(s, V4L2_PIX_FMT_YVU420, 1280, 720, 2000000, &c), 0);
	ck_assert_uint_eq(c.format->fourcc, V4L2_PIX_FMT_NV12);
	ck_assert_uint_eq(c.interval, 666666);
	struct v4l2_pix_format pix;
	memset(&pix, 0xff, sizeof(pix));
	cfmt_fill_pix(&pix, &c);
	ck_assert_uint_eq(pix.pixelformat, V4L2_PIX_FMT_YVU420);
	ck_assert_uint_eq(pix.width, 1280);
	ck_assert_uint_eq(pix.height, 720);
	ck_assert_uint_eq(pix.bytesperline, 1280);
	ck_assert_uint_eq(pix.sizeimage, 1280 * 720 * 3 / 2);
	ck_assert_uint_eq(pix.field, V4L2_FIELD_NONE);
	ck_assert_uint_eq(pix.quantization, V4L2_QUANTIZATION_DEFAULT);
	uvc_camera_free(cam);

	cam = parse_named("default");
	s = &cam->streams[0];
	ck_assert_int_eq(cfmt_choose(s, V4L2_PIX_FMT_RGB24, 1920, 1080, 333333, &c), 0);
	ck_assert_uint_eq(c.format->fourcc, V4L2_PIX_FMT_MJPEG);
	ck_assert_uint_eq(c.reason, CFMT_MJPEG);
	ck_assert_str_eq(cfmt_reason_text(c.reason), "no raw format has that size at that interval");
	/* a native format is not a converted one */
	ck_assert_int_eq(cfmt_choose(s, V4L2_PIX_FMT_YUYV, 640, 480, 333333, &c), -EINVAL);
	uvc_camera_free(cam);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("v4l2-conv-formats");
	TCase *tc = tcase_create("conv_formats");
	tcase_add_test(tc, test_enum_fmt);
	tcase_add_test(tc, test_sizes_and_intervals);
	tcase_add_test(tc, test_source);
	tcase_add_test(tc, test_choose);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
