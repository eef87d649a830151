/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The PipeWire bridge's modes (src/pipewire/modes.c): V4L2 modes become
 * fixed SPA EnumFormat objects that SPA's own parser reads back as the same
 * mode, duplicates and unnamed formats are left out, and a negotiated
 * Format names exactly one offered mode. */
#include <check.h>
#include <string.h>

#include <linux/videodev2.h>
#include <spa/param/video/format-utils.h>
#include <spa/pod/iter.h>

#include "modes.h"
#include "unit_run.h"

static const struct bridge_mode yuyv_vga_30 = { V4L2_PIX_FMT_YUYV, 640, 480, 30, 1 };
static const struct bridge_mode mjpeg_720_15 = { V4L2_PIX_FMT_MJPEG, 1280, 720, 15, 1 };

/* Builds m's EnumFormat, then reads it as PipeWire would once the
 * consumer has fixed it: the same mode must come back. */
static void round_trip(const struct bridge_mode *m)
{
	uint8_t space[512];
	struct spa_pod_builder b = SPA_POD_BUILDER_INIT(space, sizeof(space));
	const struct spa_pod *p = bridge_mode_enum_format(&b, m);
	ck_assert_ptr_nonnull(p);
	ck_assert(spa_pod_is_object_type(p, SPA_TYPE_OBJECT_Format));
	ck_assert_uint_eq(((const struct spa_pod_object *)p)->body.id, SPA_PARAM_EnumFormat);
	/* every property fixed: no choice for PipeWire to make */
	const struct spa_pod_prop *prop;
	SPA_POD_OBJECT_FOREACH((const struct spa_pod_object *)p, prop)
		ck_assert_uint_ne(SPA_POD_TYPE(&prop->value), SPA_TYPE_Choice);
	struct bridge_mode back;
	memset(&back, 0xa5, sizeof(back));
	ck_assert_int_eq(bridge_mode_from_format(p, &back), 0);
	ck_assert_uint_eq(back.fourcc, m->fourcc);
	ck_assert_uint_eq(back.width, m->width);
	ck_assert_uint_eq(back.height, m->height);
	ck_assert_uint_eq(back.fps_num, m->fps_num);
	ck_assert_uint_eq(back.fps_den, m->fps_den);
}

START_TEST(raw_formats_round_trip)
{
	static const uint32_t raw[] = { V4L2_PIX_FMT_YUYV, V4L2_PIX_FMT_UYVY, V4L2_PIX_FMT_NV12,
					V4L2_PIX_FMT_YUV420, V4L2_PIX_FMT_YVU420, V4L2_PIX_FMT_RGB24,
					V4L2_PIX_FMT_BGR24, V4L2_PIX_FMT_GREY };
	for (size_t i = 0; i < sizeof(raw) / sizeof(raw[0]); i++) {
		struct bridge_mode m = { raw[i], 1920, 1080, 30, 1 };
		round_trip(&m);
	}
}
END_TEST

START_TEST(compressed_formats_round_trip)
{
	round_trip(&mjpeg_720_15);
	struct bridge_mode h264 = { V4L2_PIX_FMT_H264, 1920, 1080, 30000, 1001 };
	round_trip(&h264);
}
END_TEST

START_TEST(raw_and_mjpeg_are_told_apart)
{
	uint8_t space[512];
	struct spa_pod_builder b = SPA_POD_BUILDER_INIT(space, sizeof(space));
	const struct spa_pod *p = bridge_mode_enum_format(&b, &mjpeg_720_15);
	uint32_t type, subtype;
	ck_assert_int_ge(spa_format_parse(p, &type, &subtype), 0);
	ck_assert_uint_eq(type, SPA_MEDIA_TYPE_video);
	ck_assert_uint_eq(subtype, SPA_MEDIA_SUBTYPE_mjpg);
	p = bridge_mode_enum_format(&b, &yuyv_vga_30);
	ck_assert_int_ge(spa_format_parse(p, &type, &subtype), 0);
	ck_assert_uint_eq(subtype, SPA_MEDIA_SUBTYPE_raw);
	struct spa_video_info_raw info;
	ck_assert_int_ge(spa_format_video_raw_parse(p, &info), 0);
	ck_assert_uint_eq(info.format, SPA_VIDEO_FORMAT_YUY2);
}
END_TEST

START_TEST(unknown_formats_are_left_out)
{
	struct bridge_modes ms = { 0 };
	struct bridge_mode bayer = { V4L2_PIX_FMT_SGRBG8, 640, 480, 30, 1 };
	ck_assert(!bridge_mode_fourcc_known(bayer.fourcc));
	ck_assert_int_eq(bridge_modes_add(&ms, &bayer), 0);
	ck_assert_uint_eq(ms.n, 0);
	uint8_t space[512];
	struct spa_pod_builder b = SPA_POD_BUILDER_INIT(space, sizeof(space));
	ck_assert_ptr_null(bridge_mode_enum_format(&b, &bayer));
	/* a zero size or rate is no mode either */
	struct bridge_mode zero = yuyv_vga_30;
	zero.fps_den = 0;
	ck_assert_int_eq(bridge_modes_add(&ms, &zero), 0);
	zero = yuyv_vga_30;
	zero.width = 0;
	ck_assert_int_eq(bridge_modes_add(&ms, &zero), 0);
	ck_assert_uint_eq(ms.n, 0);
	bridge_modes_clear(&ms);
}
END_TEST

START_TEST(duplicates_are_kept_once)
{
	struct bridge_modes ms = { 0 };
	ck_assert_int_eq(bridge_modes_add(&ms, &yuyv_vga_30), 0);
	struct bridge_mode same = { V4L2_PIX_FMT_YUYV, 640, 480, 60, 2 }; /* 30 fps again */
	ck_assert_int_eq(bridge_modes_add(&ms, &same), 0);
	ck_assert_int_eq(bridge_modes_add(&ms, &mjpeg_720_15), 0);
	ck_assert_uint_eq(ms.n, 2);
	ck_assert_int_eq(bridge_modes_find(&ms, &same), 0);
	ck_assert_int_eq(bridge_modes_find(&ms, &mjpeg_720_15), 1);
	struct bridge_mode other = yuyv_vga_30;
	other.fps_num = 15;
	ck_assert_int_eq(bridge_modes_find(&ms, &other), -1);
	/* many modes: the array grows */
	for (uint32_t w = 16; w < 16 * 200; w += 16) {
		struct bridge_mode m = { V4L2_PIX_FMT_NV12, w, 480, 30, 1 };
		ck_assert_int_eq(bridge_modes_add(&ms, &m), 0);
	}
	ck_assert_uint_eq(ms.n, 2 + 199);
	bridge_modes_clear(&ms);
	ck_assert_uint_eq(ms.n, 0);
	ck_assert_ptr_null(ms.v);
}
END_TEST

START_TEST(not_a_video_format_is_refused)
{
	uint8_t space[512];
	struct spa_pod_builder b = SPA_POD_BUILDER_INIT(space, sizeof(space));
	const struct spa_pod *audio = spa_pod_builder_add_object(
		&b, SPA_TYPE_OBJECT_Format, SPA_PARAM_Format, SPA_FORMAT_mediaType,
		SPA_POD_Id(SPA_MEDIA_TYPE_audio), SPA_FORMAT_mediaSubtype,
		SPA_POD_Id(SPA_MEDIA_SUBTYPE_raw));
	struct bridge_mode m = yuyv_vga_30;
	ck_assert_int_eq(bridge_mode_from_format(audio, &m), -EINVAL);
	ck_assert_uint_eq(m.fourcc, V4L2_PIX_FMT_YUYV); /* untouched */
	const struct spa_pod *bgra = spa_pod_builder_add_object(
		&b, SPA_TYPE_OBJECT_Format, SPA_PARAM_Format, SPA_FORMAT_mediaType,
		SPA_POD_Id(SPA_MEDIA_TYPE_video), SPA_FORMAT_mediaSubtype,
		SPA_POD_Id(SPA_MEDIA_SUBTYPE_raw), SPA_FORMAT_VIDEO_format,
		SPA_POD_Id(SPA_VIDEO_FORMAT_BGRA), SPA_FORMAT_VIDEO_size,
		SPA_POD_Rectangle(&SPA_RECTANGLE(640, 480)));
	ck_assert_int_eq(bridge_mode_from_format(bgra, &m), -EINVAL);
	ck_assert_int_eq(bridge_mode_from_format(NULL, &m), -EINVAL);
}
END_TEST

START_TEST(a_full_builder_gives_null)
{
	uint8_t space[24];
	struct spa_pod_builder b = SPA_POD_BUILDER_INIT(space, sizeof(space));
	ck_assert_ptr_null(bridge_mode_enum_format(&b, &yuyv_vga_30));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bridge_modes");
	TCase *tc = tcase_create("modes");
	tcase_add_test(tc, raw_formats_round_trip);
	tcase_add_test(tc, compressed_formats_round_trip);
	tcase_add_test(tc, raw_and_mjpeg_are_told_apart);
	tcase_add_test(tc, unknown_formats_are_left_out);
	tcase_add_test(tc, duplicates_are_kept_once);
	tcase_add_test(tc, not_a_video_format_is_refused);
	tcase_add_test(tc, a_full_builder_gives_null);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
