/* SPDX-License-Identifier: GPL-2.0-or-later */
/* src/convert/: the catalogue, the source rule on every vcam profile, and
 * every (source, destination) pair converted on the shared test picture. */
#include <check.h>
#include <errno.h>
#include <linux/videodev2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

#include "convert/catalogue.h"
#include "convert/converter.h"
#include "frames.h"
#include "picture.h"
#include "stamp.h"
#include "unit_run.h"
#include "vcam_fixture.h"

#define TW 640u
#define TH 480u

/* ---- catalogue ---- */

START_TEST(test_destinations)
{
	ck_assert_str_eq(convert_description(V4L2_PIX_FMT_RGB24), "24-bit RGB 8-8-8");
	ck_assert_str_eq(convert_description(V4L2_PIX_FMT_BGR24), "24-bit BGR 8-8-8");
	ck_assert_str_eq(convert_description(V4L2_PIX_FMT_YUV420), "Planar YUV 4:2:0");
	ck_assert_str_eq(convert_description(V4L2_PIX_FMT_YVU420), "Planar YVU 4:2:0");
	ck_assert_ptr_null(convert_description(V4L2_PIX_FMT_YUYV));
	ck_assert(convert_is_source(V4L2_PIX_FMT_MJPEG));
	ck_assert(!convert_is_raw_source(V4L2_PIX_FMT_MJPEG));
	ck_assert(convert_is_raw_source(V4L2_PIX_FMT_NV12));
	ck_assert(!convert_is_source(V4L2_PIX_FMT_H264));
	ck_assert(!convert_is_source(V4L2_PIX_FMT_HEVC));

	uint32_t bpl, size;
	ck_assert_int_eq(convert_frame_layout(V4L2_PIX_FMT_BGR24, 1280, 720, &bpl, &size), 0);
	ck_assert_uint_eq(bpl, 3840);
	ck_assert_uint_eq(size, 1280 * 720 * 3);
	ck_assert_int_eq(convert_frame_layout(V4L2_PIX_FMT_YVU420, 640, 480, &bpl, &size), 0);
	ck_assert_uint_eq(bpl, 640);
	ck_assert_uint_eq(size, 640 * 480 * 3 / 2);
	ck_assert_int_eq(convert_frame_layout(V4L2_PIX_FMT_YUV420, 641, 480, &bpl, &size), -EINVAL);
	ck_assert_int_eq(convert_frame_layout(V4L2_PIX_FMT_YUV420, 0, 480, &bpl, &size), -EINVAL);
	ck_assert_int_eq(convert_frame_layout(V4L2_PIX_FMT_MJPEG, 640, 480, &bpl, &size), -EINVAL);
}
END_TEST

START_TEST(test_offered)
{
	uint32_t out[CONVERT_N_DESTINATIONS];
	const uint32_t webcam[] = { V4L2_PIX_FMT_YUYV, V4L2_PIX_FMT_MJPEG };
	ck_assert_uint_eq(convert_offered(webcam, 2, out), 4);
	ck_assert_uint_eq(out[0], V4L2_PIX_FMT_RGB24);
	ck_assert_uint_eq(out[1], V4L2_PIX_FMT_BGR24);
	ck_assert_uint_eq(out[2], V4L2_PIX_FMT_YUV420);
	ck_assert_uint_eq(out[3], V4L2_PIX_FMT_YVU420);
	/* A destination the camera sends itself is not offered again. */
	const uint32_t rgb[] = { V4L2_PIX_FMT_BGR24, V4L2_PIX_FMT_YUV420 };
	ck_assert_uint_eq(convert_offered(rgb, 2, out), 2);
	ck_assert_uint_eq(out[0], V4L2_PIX_FMT_RGB24);
	ck_assert_uint_eq(out[1], V4L2_PIX_FMT_YVU420);
	/* Compressed formats are never sources. */
	const uint32_t h264[] = { V4L2_PIX_FMT_H264, V4L2_PIX_FMT_HEVC };
	ck_assert_uint_eq(convert_offered(h264, 2, out), 0);
	ck_assert_uint_eq(convert_offered(NULL, 0, out), 0);
}
END_TEST

START_TEST(test_choose_rule)
{
	const struct convert_candidate c[] = {
		{ V4L2_PIX_FMT_H264, true, true },
		{ V4L2_PIX_FMT_MJPEG, true, true },
		{ V4L2_PIX_FMT_YUYV, true, false },
		{ V4L2_PIX_FMT_NV12, true, true },
	};
	ck_assert_int_eq(convert_choose_source(c, 4), 3); /* raw at the interval */
	ck_assert_int_eq(convert_choose_source(c, 3), 1); /* else MJPEG */
	const struct convert_candidate raw_only[] = {
		{ V4L2_PIX_FMT_MJPEG, false, false },
		{ V4L2_PIX_FMT_YUYV, true, false },
	};
	ck_assert_int_eq(convert_choose_source(raw_only, 2), 1); /* raw at another interval */
	const struct convert_candidate none[] = { { V4L2_PIX_FMT_H264, true, true } };
	ck_assert_int_eq(convert_choose_source(none, 1), -ENOENT);
	ck_assert_int_eq(convert_choose_source(NULL, 0), -ENOENT);
}
END_TEST

/* The candidates a parsed camera gives for a size and interval (100 ns). */
static size_t candidates_of(const struct uvc_streaming *s, unsigned w, unsigned h,
			    uint32_t interval, struct convert_candidate *out)
{
	for (unsigned i = 0; i < s->n_formats; i++) {
		const struct uvc_format *f = &s->formats[i];
		out[i] = (struct convert_candidate){ .fourcc = f->fourcc };
		for (unsigned j = 0; j < f->n_frames; j++) {
			const struct uvc_frame *fr = &f->frames[j];
			if (fr->width != w || fr->height != h)
				continue;
			out[i].has_size = true;
			for (unsigned k = 0; k < fr->n_intervals; k++)
				out[i].has_interval |= fr->intervals[k] == interval;
		}
	}
	return s->n_formats;
}

#define FPS(n) (10000000u / (n))

struct rule_case {
	const char *profile;
	unsigned width, height;
	uint32_t interval;
	uint32_t want; /* 0: no source */
};

static const struct rule_case rule_cases[] = {
	{ "default", 640, 480, FPS(30), V4L2_PIX_FMT_YUYV },
	{ "default", 1280, 720, FPS(30), V4L2_PIX_FMT_YUYV },
	{ "default", 1280, 720, FPS(5), V4L2_PIX_FMT_YUYV },
	{ "default", 1920, 1080, FPS(30), V4L2_PIX_FMT_MJPEG },
	{ "default", 1920, 1080, FPS(5), V4L2_PIX_FMT_MJPEG },
	{ "default", 800, 600, FPS(30), 0 },
	{ "bulk", 640, 480, FPS(15), V4L2_PIX_FMT_YUYV },
	{ "bulk", 1920, 1080, FPS(15), V4L2_PIX_FMT_MJPEG },
	{ "nv12", 640, 480, FPS(30), V4L2_PIX_FMT_NV12 },
	{ "nv12", 1280, 720, FPS(15), V4L2_PIX_FMT_NV12 },
	{ "h264", 640, 480, FPS(30), V4L2_PIX_FMT_YUYV },
	{ "h264", 1280, 720, FPS(30), 0 },
	{ "h264", 1920, 1080, FPS(30), 0 },
	{ "usb3", 1280, 720, FPS(30), V4L2_PIX_FMT_YUYV },
	{ "usb3", 1280, 720, FPS(60), V4L2_PIX_FMT_MJPEG },
	{ "usb3", 1920, 1080, FPS(60), V4L2_PIX_FMT_MJPEG },
	{ "usb3", 1920, 1080, FPS(30), V4L2_PIX_FMT_YUYV },
	{ "usb3", 640, 480, FPS(60), V4L2_PIX_FMT_YUYV },
};

START_TEST(test_choose_profiles)
{
	/* Every profile appears in the table. */
	for (size_t p = 0; p < vcam_profile_count; p++) {
		bool seen = false;
		for (size_t i = 0; i < sizeof(rule_cases) / sizeof(rule_cases[0]); i++)
			seen |= strcmp(rule_cases[i].profile, vcam_profiles[p].name) == 0;
		ck_assert_msg(seen, "profile %s has no source rule case", vcam_profiles[p].name);
	}
	for (size_t i = 0; i < sizeof(rule_cases) / sizeof(rule_cases[0]); i++) {
		const struct rule_case *rc = &rule_cases[i];
		const struct vcam_profile *p = vcam_profile_find(rc->profile);
		ck_assert_ptr_nonnull(p);
		struct uvc_camera *cam = fixture_camera(p);
		struct convert_candidate cand[16];
		ck_assert_uint_le(cam->streams[0].n_formats, 16);
		size_t n = candidates_of(&cam->streams[0], rc->width, rc->height, rc->interval, cand);
		int got = convert_choose_source(cand, n);
		if (rc->want == 0)
			ck_assert_msg(got == -ENOENT, "%s %ux%u: source %d", rc->profile, rc->width,
				      rc->height, got);
		else
			ck_assert_msg(got >= 0 && cand[got].fourcc == rc->want,
				      "%s %ux%u @%u: wrong source", rc->profile, rc->width,
				      rc->height, rc->interval);
		uint32_t native[16], out[CONVERT_N_DESTINATIONS];
		for (size_t k = 0; k < n; k++)
			native[k] = cand[k].fourcc;
		ck_assert_uint_eq(convert_offered(native, n, out), 4);
		uvc_camera_free(cam);
	}
}
END_TEST

/* ---- pixels ---- */

enum src_kind { SRC_PICTURE, SRC_UYVY, SRC_MJPEG };

struct source {
	const char *name;
	uint32_t fourcc;
	enum src_kind kind;
	enum picture_layout layout; /* SRC_PICTURE */
};

static const struct source sources[] = {
	{ "YUYV", V4L2_PIX_FMT_YUYV, SRC_PICTURE, PICTURE_YUYV },
	{ "UYVY", V4L2_PIX_FMT_UYVY, SRC_UYVY, PICTURE_YUYV },
	{ "NV12", V4L2_PIX_FMT_NV12, SRC_PICTURE, PICTURE_NV12 },
	{ "YU12", V4L2_PIX_FMT_YUV420, SRC_PICTURE, PICTURE_YU12 },
	{ "YV12", V4L2_PIX_FMT_YVU420, SRC_PICTURE, PICTURE_YV12 },
	{ "MJPEG", V4L2_PIX_FMT_MJPEG, SRC_MJPEG, PICTURE_YUYV },
};
#define N_SOURCES (sizeof(sources) / sizeof(sources[0]))

static enum picture_layout layout_of(uint32_t fourcc)
{
	switch (fourcc) {
	case V4L2_PIX_FMT_RGB24: return PICTURE_RGB24;
	case V4L2_PIX_FMT_BGR24: return PICTURE_BGR24;
	case V4L2_PIX_FMT_YUV420: return PICTURE_YU12;
	default: return PICTURE_YV12;
	}
}

/* The math libv4lconvert uses for a pair and the tolerance it gets. */
static void model_of(const struct source *s, uint32_t dst, enum picture_math *math,
		     const struct picture_tolerance **tol)
{
	bool rgb = dst == V4L2_PIX_FMT_RGB24 || dst == V4L2_PIX_FMT_BGR24;
	if (s->kind == SRC_MJPEG) {
		/* RGB: libjpeg's merged upsampling (src/convert/jpeg.c) */
		*math = rgb ? PICTURE_MATH_JPEGMERGED : PICTURE_MATH_JFIF;
		*tol = rgb ? &picture_tolerance_jpeg_rgb : &picture_tolerance_jpeg_420;
		return;
	}
	if (!rgb) {
		/* 4:2:0 from 4:2:0 is a copy; from 4:2:2 the picture's chroma is
		 * the same on both rows of a pair, so also exact. */
		*math = PICTURE_MATH_BT601;
		*tol = &picture_tolerance_exact;
		return;
	}
	*math = s->fourcc == V4L2_PIX_FMT_NV12 ? PICTURE_MATH_NOEXPAND : PICTURE_MATH_V4LFAST;
	*tol = &picture_tolerance_converted;
}

/* The source frame of a phase: the vcam's own frames (stamped, JPEG-coded
 * for MJPEG) or the picture in a raw layout with the same stamp. */
static uint8_t *make_source_sized(const struct source *s, const struct stamp *st, unsigned w,
				  unsigned h, size_t *len)
{
	struct vcam_frames *f =
		vcam_frames_new(s->kind == SRC_MJPEG ? VCAM_PIXEL_MJPEG : VCAM_PIXEL_YUYV, w, h, 0);
	ck_assert_ptr_nonnull(f);
	uint8_t *out = NULL;
	if (s->kind == SRC_MJPEG) {
		const uint8_t *jpeg = vcam_frames_get(f, st->sequence, st->time_ns, len);
		ck_assert_ptr_nonnull(jpeg);
		out = malloc(*len);
		ck_assert_ptr_nonnull(out);
		memcpy(out, jpeg, *len);
	} else {
		enum picture_layout l = s->layout;
		*len = picture_frame_size(l, w, h);
		out = malloc(*len);
		ck_assert_ptr_nonnull(out);
		ck_assert_int_eq(picture_generate(l, PICTURE_MATH_BT601, out, w, h,
						  st->sequence % PICTURE_PHASES, 0), 0);
		ck_assert_int_eq(stamp_write(l, out, w, h, st), 0);
		if (s->kind == SRC_UYVY)
			for (size_t i = 0; i + 1 < *len; i += 2) {
				uint8_t t = out[i];
				out[i] = out[i + 1];
				out[i + 1] = t;
			}
	}
	vcam_frames_free(f);
	return out;
}

static uint8_t *make_source(const struct source *s, const struct stamp *st, size_t *len)
{
	return make_source_sized(s, st, TW, TH, len);
}

static void check_pair(const struct source *s, uint32_t dst, unsigned w, unsigned h)
{
	struct converter *c = converter_new();
	ck_assert_ptr_nonnull(c);
	uint32_t bpl, size;
	ck_assert_int_eq(convert_frame_layout(dst, w, h, &bpl, &size), 0);
	uint8_t *out = malloc(size);
	uint8_t *want = malloc(picture_frame_size(PICTURE_YU12, w, h));
	ck_assert_ptr_nonnull(out);
	ck_assert_ptr_nonnull(want);
	for (uint32_t seq = 5; seq < 8; seq++) {
		struct stamp st = { .sequence = seq, .time_ns = 1000000000ull * seq, .brightness = 0 };
		size_t len;
		uint8_t *src = make_source_sized(s, &st, w, h, &len);
		memset(out, 0xa5, size);
		long n = converter_run(c, s->fourcc, w, h, src, len, dst, out, size);
		ck_assert_msg(n == (long)size, "%s -> %.4s: %ld (%s)", s->name, (const char *)&dst, n,
			      converter_error(c));
		ck_assert_int_eq(picture_render(want, w, h, seq % PICTURE_PHASES, 0), 0);
		ck_assert_int_eq(stamp_write(PICTURE_YU12, want, w, h, &st), 0);
		enum picture_math math;
		const struct picture_tolerance *tol;
		model_of(s, dst, &math, &tol);
		struct picture_diff d;
		ck_assert_int_eq(picture_compare(layout_of(dst), math, out, want, w, h, &d), 0);
		ck_assert_msg(picture_within(&d, tol),
			      "%s -> %.4s: mae %.3f bias %.3f block %.3f mismatches %llu", s->name,
			      (const char *)&dst, d.mae, d.bias, d.block,
			      (unsigned long long)d.mismatches);
		free(src);
	}
	free(out);
	free(want);
	converter_free(c);
}

START_TEST(test_pairs)
{
	const struct source *s = &sources[_i / CONVERT_N_DESTINATIONS];
	uint32_t dst = convert_destinations[_i % CONVERT_N_DESTINATIONS];
	if (s->fourcc != dst) /* else native: no conversion */
		check_pair(s, dst, TW, TH);
}
END_TEST

/* MJPEG at 1280x720, at a height off the 8-row grid (the last rows libjpeg
 * writes fall outside the frame) and at a width off the 16-pixel grid (RGB
 * only: the planar outputs are not offered there). */
START_TEST(test_mjpeg_sizes)
{
	static const unsigned sizes[][2] = { { 1280, 720 }, { 640, 486 }, { 648, 480 } };
	unsigned w = sizes[_i][0], h = sizes[_i][1];
	for (unsigned d = 0; d < CONVERT_N_DESTINATIONS; d++) {
		uint32_t dst = convert_destinations[d];
		if (convert_pair_supported(V4L2_PIX_FMT_MJPEG, dst, w, h))
			check_pair(&sources[N_SOURCES - 1], dst, w, h);
		else
			ck_assert(w % 16 && (dst == V4L2_PIX_FMT_YUV420 || dst == V4L2_PIX_FMT_YVU420));
	}
	ck_assert(!convert_pair_supported(V4L2_PIX_FMT_MJPEG, V4L2_PIX_FMT_YUV420, 648, 480));
	ck_assert(convert_pair_supported(V4L2_PIX_FMT_YUYV, V4L2_PIX_FMT_YUV420, 648, 480));
	ck_assert(!convert_pair_supported(V4L2_PIX_FMT_RGB24, V4L2_PIX_FMT_RGB24, 640, 480));
	ck_assert(!convert_pair_supported(V4L2_PIX_FMT_H264, V4L2_PIX_FMT_RGB24, 640, 480));
}
END_TEST

/* ---- bad input ---- */

/* A destination frame of fourcc at w x h: its bytes, *size of them. */
static uint8_t *dst_frame(uint32_t fourcc, unsigned w, unsigned h, uint32_t *size)
{
	uint32_t bpl;
	ck_assert_int_eq(convert_frame_layout(fourcc, w, h, &bpl, size), 0);
	uint8_t *out = malloc(*size);
	ck_assert_ptr_nonnull(out);
	return out;
}

START_TEST(test_bad_jpeg)
{
	const struct source *s = &sources[N_SOURCES - 1];
	struct stamp st = { .sequence = 3, .time_ns = 3000000000ull };
	size_t len;
	uint8_t *jpeg = make_source(s, &st, &len);
	struct converter *c = converter_new();
	ck_assert_ptr_nonnull(c);
	uint32_t size;
	uint8_t *out = dst_frame(V4L2_PIX_FMT_RGB24, TW, TH, &size);

	/* Truncated at many points, the header included. */
	for (size_t cut = 0; cut < len; cut += cut < 1024 ? 61 : 4099)
		ck_assert_int_eq(converter_run(c, V4L2_PIX_FMT_MJPEG, TW, TH, jpeg, cut,
					       V4L2_PIX_FMT_RGB24, out, size),
				 -EBADMSG);
	/* Garbage in the entropy-coded data and in the headers. */
	uint8_t *bad = malloc(len);
	ck_assert_ptr_nonnull(bad);
	unsigned seed = 7;
	for (unsigned round = 0; round < 40; round++) {
		memcpy(bad, jpeg, len);
		size_t from = round < 20 ? 2 : len / 3;
		size_t span = round < 20 ? 600 : len - from - 2;
		for (unsigned k = 0; k < 64; k++) {
			seed = seed * 1103515245u + 12345u;
			bad[from + (seed >> 8) % span] = (uint8_t)(seed >> 3);
		}
		/* 64 bytes of garbage always trip libjpeg (bad code, marker in
		 * the scan, broken header); a frame it only warns about counts. */
		ck_assert_int_eq(converter_run(c, V4L2_PIX_FMT_MJPEG, TW, TH, bad, len,
					       round % 2 ? V4L2_PIX_FMT_YUV420 : V4L2_PIX_FMT_BGR24,
					       out, size),
				 -EBADMSG);
	}
	/* The vcam's corrupt-JPEG fault. */
	memcpy(bad, jpeg, len);
	ck_assert_int_eq(vcam_frames_corrupt_jpeg(bad, len), 0);
	ck_assert_int_eq(converter_run(c, V4L2_PIX_FMT_MJPEG, TW, TH, bad, len, V4L2_PIX_FMT_RGB24,
				       out, size),
			 -EBADMSG);
	ck_assert_int_eq(converter_run(c, V4L2_PIX_FMT_MJPEG, TW, TH, bad, len,
				       V4L2_PIX_FMT_YVU420, out, size),
			 -EBADMSG);
	ck_assert_int_eq(vcam_frames_corrupt_jpeg(bad, 100), -EINVAL);
	/* A JPEG of another size than the format says. */
	ck_assert_int_eq(converter_run(c, V4L2_PIX_FMT_MJPEG, 320, 240, jpeg, len,
				       V4L2_PIX_FMT_RGB24, out, size),
			 -EBADMSG);
	/* The converter still works after all of it. */
	ck_assert_int_eq(converter_run(c, V4L2_PIX_FMT_MJPEG, TW, TH, jpeg, len, V4L2_PIX_FMT_RGB24,
				       out, size),
			 (long)size);
	free(bad);
	free(out);
	free(jpeg);
	converter_free(c);
}
END_TEST

/* A flat w x h JPEG of one YCbCr colour (grey: luma only), every component
 * sampled h x v as given (1x1 all: 4:4:4). */
static uint8_t *flat_jpeg(unsigned w, unsigned h, bool grey, int hs, int vs, size_t *len)
{
	struct jpeg_compress_struct c;
	struct jpeg_error_mgr err;
	unsigned char *out = NULL;
	unsigned long out_len = 0;
	c.err = jpeg_std_error(&err);
	jpeg_create_compress(&c);
	jpeg_mem_dest(&c, &out, &out_len);
	c.image_width = w;
	c.image_height = h;
	c.input_components = grey ? 1 : 3;
	c.in_color_space = grey ? JCS_GRAYSCALE : JCS_YCbCr;
	jpeg_set_defaults(&c);
	jpeg_set_quality(&c, 95, TRUE);
	c.comp_info[0].h_samp_factor = hs;
	c.comp_info[0].v_samp_factor = vs;
	for (int i = 1; i < c.num_components; i++)
		c.comp_info[i].h_samp_factor = c.comp_info[i].v_samp_factor = 1;
	jpeg_start_compress(&c, TRUE);
	uint8_t *row = malloc((size_t)w * 3);
	ck_assert_ptr_nonnull(row);
	for (unsigned x = 0; x < w; x++)
		memcpy(row + x * (grey ? 1 : 3), (const uint8_t[]){ 100, 80, 200 }, grey ? 1 : 3);
	while (c.next_scanline < h) {
		JSAMPROW r = row;
		jpeg_write_scanlines(&c, &r, 1);
	}
	jpeg_finish_compress(&c);
	jpeg_destroy_compress(&c);
	free(row);
	*len = out_len;
	return out;
}

/* YU12/YV12 from the subsamplings libjpeg's planes do not give straight
 * (4:4:4, 4:4:0, grey): decoded here, not by libv4lconvert's own decoder,
 * which crashed on a damaged 4:4:0 frame the fuzzer made (below). */
START_TEST(test_jpeg_other_subsampling)
{
	const unsigned w = 64, h = 48;
	struct converter *c = converter_new();
	ck_assert_ptr_nonnull(c);
	uint32_t size;
	uint8_t *out = dst_frame(V4L2_PIX_FMT_YUV420, w, h, &size);
	static const struct { bool grey; int hs, vs; } kinds[] = {
		{ false, 1, 1 }, { false, 1, 2 }, { true, 1, 1 },
	};
	for (unsigned k = 0; k < 3; k++) {
		size_t len;
		uint8_t *jpeg = flat_jpeg(w, h, kinds[k].grey, kinds[k].hs, kinds[k].vs, &len);
		for (int yv = 0; yv < 2; yv++) {
			uint32_t dst = yv ? V4L2_PIX_FMT_YVU420 : V4L2_PIX_FMT_YUV420;
			memset(out, 0, size);
			ck_assert_int_eq(converter_run(c, V4L2_PIX_FMT_MJPEG, w, h, jpeg, len, dst,
						       out, size),
					 (long)size);
			const uint8_t *cb = out + w * h + (yv ? w * h / 4 : 0);
			const uint8_t *cr = out + w * h + (yv ? 0 : w * h / 4);
			for (size_t i = 0; i < (size_t)w * h; i++)
				ck_assert_int_le(abs(out[i] - 100), 2);
			for (size_t i = 0; i < (size_t)w * h / 4; i++) {
				ck_assert_int_le(abs(cb[i] - (kinds[k].grey ? 128 : 80)), 2);
				ck_assert_int_le(abs(cr[i] - (kinds[k].grey ? 128 : 200)), 2);
			}
		}
		free(jpeg);
	}
	/* SOF0 with three components sampled 1x2, no tables: libv4lconvert
	 * read past it (SEGV); a frame that does not decode. */
	static const uint8_t damaged[] = {
		0xff, 0xd8, 0xff, 0x00, 0x85, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x00, 0x30, 0x00,
		0x40, 0x03, 0x01, 0x12, 0x00, 0x02, 0x12, 0x00, 0x03, 0x12, 0x00, 0xff, 0xda,
		0x00, 0x0c, 0x03, 0x01, 0x00, 0x02, 0x11, 0x03, 0x11, 0x4e, 0x58, 0xc9,
	};
	ck_assert_int_eq(converter_run(c, V4L2_PIX_FMT_MJPEG, w, h, damaged, sizeof(damaged),
				       V4L2_PIX_FMT_YUV420, out, size),
			 -EBADMSG);
	ck_assert_str_ne(converter_error(c), "");
	free(out);
	converter_free(c);
}
END_TEST

START_TEST(test_bad_args)
{
	struct converter *c = converter_new();
	ck_assert_ptr_nonnull(c);
	static uint8_t src[TW * TH * 2], out[TW * TH * 3];
	/* Short raw frame, small destination, unknown pairs. */
	ck_assert_int_eq(converter_run(c, V4L2_PIX_FMT_YUYV, TW, TH, src, sizeof(src) - 1,
				       V4L2_PIX_FMT_RGB24, out, sizeof(out)),
			 -EBADMSG);
	ck_assert_int_eq(converter_run(c, V4L2_PIX_FMT_YUYV, TW, TH, src, sizeof(src),
				       V4L2_PIX_FMT_RGB24, out, sizeof(out) - 1),
			 -ENOSPC);
	ck_assert_int_eq(converter_run(c, V4L2_PIX_FMT_H264, TW, TH, src, sizeof(src),
				       V4L2_PIX_FMT_RGB24, out, sizeof(out)),
			 -EINVAL);
	ck_assert_int_eq(converter_run(c, V4L2_PIX_FMT_YUYV, TW, TH, src, sizeof(src),
				       V4L2_PIX_FMT_NV12, out, sizeof(out)),
			 -EINVAL);
	ck_assert_int_eq(converter_run(c, V4L2_PIX_FMT_YUYV, TW, TH - 1, src, sizeof(src),
				       V4L2_PIX_FMT_RGB24, out, sizeof(out)),
			 -EINVAL);
	ck_assert_int_eq(converter_run(c, V4L2_PIX_FMT_YUYV, TW, TH, src, sizeof(src),
				       V4L2_PIX_FMT_RGB24, out, sizeof(out)),
			 (long)(TW * TH * 3));
	converter_free(c);
	converter_free(NULL);
}
END_TEST

static Suite *convert_suite(void)
{
	Suite *s = suite_create("convert");
	TCase *tc = tcase_create("catalogue");
	tcase_add_test(tc, test_destinations);
	tcase_add_test(tc, test_offered);
	tcase_add_test(tc, test_choose_rule);
	tcase_add_test(tc, test_choose_profiles);
	suite_add_tcase(s, tc);
	tc = tcase_create("pixels");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_pairs, 0, (int)(N_SOURCES * CONVERT_N_DESTINATIONS));
	tcase_add_loop_test(tc, test_mjpeg_sizes, 0, 3);
	tcase_add_test(tc, test_bad_jpeg);
	tcase_add_test(tc, test_jpeg_other_subsampling);
	tcase_add_test(tc, test_bad_args);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(convert_suite());
}
