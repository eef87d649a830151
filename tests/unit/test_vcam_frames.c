/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The camera's frame source: stamped raw and MJPEG frames that decode back
 * to their sequence, time and brightness and match the picture; brightness
 * changes; H.264 access units; per-frame cost. */
#include <check.h>
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jpeglib.h>

#include "frames.h"
#include "picture.h"
#include "stamp.h"
#include "unit_run.h"

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint8_t *expected(unsigned w, unsigned h, const struct stamp *s)
{
	uint8_t *f = malloc(picture_frame_size(PICTURE_YU12, w, h));
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(picture_render(f, w, h, s->sequence % PICTURE_PHASES, s->brightness), 0);
	ck_assert_int_eq(stamp_write(PICTURE_YU12, f, w, h, s), 0);
	return f;
}

struct jerr {
	struct jpeg_error_mgr pub;
	jmp_buf jump;
	unsigned warnings;
};

static void jerr_exit(j_common_ptr c)
{
	longjmp(((struct jerr *)c->err)->jump, 1);
}

static void jerr_message(j_common_ptr c, int level)
{
	if (level < 0)
		((struct jerr *)c->err)->warnings++;
}

/* Decodes to YCbCr 4:4:4 without fancy upsampling; fails the test on any
 * error or warning. */
static uint8_t *decode(const uint8_t *j, size_t len, unsigned w, unsigned h)
{
	uint8_t *out = malloc((size_t)w * h * 3);
	ck_assert_ptr_nonnull(out);
	struct jpeg_decompress_struct d;
	struct jerr e;
	d.err = jpeg_std_error(&e.pub);
	e.pub.error_exit = jerr_exit;
	e.pub.emit_message = jerr_message;
	e.warnings = 0;
	jpeg_create_decompress(&d);
	if (setjmp(e.jump)) {
		jpeg_destroy_decompress(&d);
		ck_abort_msg("JPEG does not decode");
	}
	jpeg_mem_src(&d, j, (unsigned long)len);
	jpeg_read_header(&d, TRUE);
	ck_assert_uint_eq(d.image_width, w);
	ck_assert_uint_eq(d.image_height, h);
	ck_assert_int_eq(d.comp_info[0].h_samp_factor, 2);
	ck_assert_int_eq(d.comp_info[0].v_samp_factor, 1);
	d.out_color_space = JCS_YCbCr;
	d.do_fancy_upsampling = FALSE;
	jpeg_start_decompress(&d);
	while (d.output_scanline < h) {
		JSAMPROW row = out + (size_t)d.output_scanline * w * 3;
		jpeg_read_scanlines(&d, &row, 1);
	}
	jpeg_finish_decompress(&d);
	jpeg_destroy_decompress(&d);
	ck_assert_uint_eq(e.warnings, 0);
	return out;
}

START_TEST(bad_arguments)
{
	errno = 0;
	ck_assert_ptr_null(vcam_frames_new(VCAM_PIXEL_YUYV, 641, 480, 0));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(vcam_frames_new(VCAM_PIXEL_MJPEG, 0, 0, 0));
	ck_assert_ptr_null(vcam_frames_new(VCAM_PIXEL_NV12, 16, 16, 0)); /* no room for the band */
	ck_assert_ptr_null(vcam_frames_new(VCAM_PIXEL_YUYV, 20000, 480, 0));
	ck_assert_ptr_null(vcam_frames_new((enum vcam_pixel)(VCAM_PIXEL_LAST + 1), 640, 480, 0));
	size_t len;
	ck_assert_ptr_null(vcam_frames_get(NULL, 0, 0, &len));
	vcam_frames_free(NULL);
	ck_assert_uint_eq(vcam_frames_max_size(NULL), 0);
}
END_TEST

static const unsigned raw_sizes[][2] = { { 160, 120 }, { 640, 480 }, { 1280, 720 } };

START_TEST(raw_frames_stamped)
{
	unsigned w = raw_sizes[_i][0], h = raw_sizes[_i][1];
	/* from YU12 on: impersonated cameras' native formats */
	const enum vcam_pixel pixels[] = { VCAM_PIXEL_YUYV,   VCAM_PIXEL_NV12,	 VCAM_PIXEL_YU12,
					   VCAM_PIXEL_YV12,   VCAM_PIXEL_RGB24,	 VCAM_PIXEL_BGR24,
					   VCAM_PIXEL_UYVY,   VCAM_PIXEL_SBGGR8, VCAM_PIXEL_SGBRG8,
					   VCAM_PIXEL_SGRBG8, VCAM_PIXEL_SRGGB8 };
	const enum picture_layout layouts[] = { PICTURE_YUYV,	PICTURE_NV12,	PICTURE_YU12,
						PICTURE_YV12,	PICTURE_RGB24,	PICTURE_BGR24,
						PICTURE_UYVY,	PICTURE_SBGGR8, PICTURE_SGBRG8,
						PICTURE_SGRBG8, PICTURE_SRGGB8 };
	for (size_t k = 0; k < sizeof(pixels) / sizeof(pixels[0]); k++) {
		struct vcam_frames *f = vcam_frames_new(pixels[k], w, h, -20);
		ck_assert_ptr_nonnull(f);
		size_t size = picture_frame_size(layouts[k], w, h);
		ck_assert_uint_eq(vcam_frames_max_size(f), size);
		for (uint32_t seq = 4000000000u; seq < 4000000000u + 20; seq++) {
			uint64_t t = 5000000000ull + seq * 33333333ull;
			size_t len = 0;
			const uint8_t *p = vcam_frames_get(f, seq, t, &len);
			ck_assert_ptr_nonnull(p);
			ck_assert_uint_eq(len, size);
			struct stamp s;
			ck_assert_int_eq(stamp_read(layouts[k], p, w, h, &s), 0);
			ck_assert_uint_eq(s.sequence, seq);
			ck_assert_uint_eq(s.time_ns, t);
			ck_assert_int_eq(s.brightness, -20);
			uint8_t *want = expected(w, h, &s);
			struct picture_diff d;
			ck_assert_int_eq(picture_compare(layouts[k], PICTURE_MATH_BT601, p, want, w, h, &d), 0);
			ck_assert_uint_eq(d.mismatches, 0);
			free(want);
		}
		vcam_frames_free(f);
	}
}
END_TEST

/* Formats the picture has no layout for: grey frames of the right length,
 * at any size (an impersonated camera's 170x130 Y16 too). */
START_TEST(opaque_frames)
{
	const enum vcam_pixel pixels[] = { VCAM_PIXEL_OPAQUE8, VCAM_PIXEL_OPAQUE12,
					   VCAM_PIXEL_OPAQUE16, VCAM_PIXEL_OPAQUE24 };
	const unsigned bits[] = { 8, 12, 16, 24 };
	for (size_t k = 0; k < 4; k++) {
		ck_assert_uint_eq(vcam_pixel_opaque_bits(pixels[k]), bits[k]);
		struct vcam_frames *f = vcam_frames_new(pixels[k], 170, 130, 0);
		ck_assert_ptr_nonnull(f);
		size_t len = 0;
		const uint8_t *p = vcam_frames_get(f, 7, 1000, &len);
		ck_assert_ptr_nonnull(p);
		ck_assert_uint_eq(len, 170u * 130u * bits[k] / 8);
		ck_assert_uint_eq(vcam_frames_max_size(f), len);
		for (size_t i = 0; i < len; i++)
			ck_assert_uint_eq(p[i], 0x80);
		vcam_frames_free(f);
	}
	ck_assert_uint_eq(vcam_pixel_opaque_bits(VCAM_PIXEL_YUYV), 0);
}
END_TEST

static const unsigned jpeg_sizes[][2] = { { 160, 120 }, { 162, 122 }, { 640, 480 }, { 1280, 720 } };

START_TEST(mjpeg_frames_stamped)
{
	unsigned w = jpeg_sizes[_i][0], h = jpeg_sizes[_i][1];
	struct vcam_frames *f = vcam_frames_new(VCAM_PIXEL_MJPEG, w, h, 24);
	ck_assert_ptr_nonnull(f);
	/* The band is coded without libjpeg, exactly as libjpeg would. */
	ck_assert(vcam_frames_fast_band(f));
	unsigned frames = w > 640 ? 4 : 18;
	for (uint32_t seq = 100; seq < 100 + frames; seq++) {
		uint64_t t = 77ull + seq * 16666666ull;
		size_t len = 0;
		const uint8_t *p = vcam_frames_get(f, seq, t, &len);
		ck_assert_ptr_nonnull(p);
		ck_assert_uint_le(len, vcam_frames_max_size(f));
		ck_assert(p[0] == 0xff && p[1] == 0xd8 && p[2] == 0xff && p[3] == 0xfe);
		ck_assert(p[len - 2] == 0xff && p[len - 1] == 0xd9);
		size_t s0, e0;
		ck_assert_int_eq(stamp_jpeg_next(p, len, &s0, &e0), STAMP_JPEG_WHOLE);
		ck_assert_uint_eq(s0, 0);
		ck_assert_uint_eq(e0, len);
		struct stamp s, band;
		ck_assert_int_eq(stamp_jpeg_read(p, len, &s), 0);
		ck_assert_uint_eq(s.sequence, seq);
		ck_assert_uint_eq(s.time_ns, t);
		ck_assert_int_eq(s.brightness, 24);
		uint8_t *ycc = decode(p, len, w, h);
		ck_assert_int_eq(stamp_read(PICTURE_YUV444, ycc, w, h, &band), 0);
		ck_assert_uint_eq(band.sequence, seq);
		ck_assert_uint_eq(band.time_ns, t);
		uint8_t *want = expected(w, h, &s);
		struct picture_diff d;
		ck_assert_int_eq(picture_compare(PICTURE_YUV444, PICTURE_MATH_JFIF, ycc, want, w, h, &d), 0);
		ck_assert_msg(picture_within(&d, &picture_tolerance_jpeg), "seq %u: mae %.2f bias %.2f block %.2f",
			      seq, d.mae, d.bias, d.block);
		free(want);
		free(ycc);
	}
	vcam_frames_free(f);
}
END_TEST

/* Concatenated frames (as v4l2-ctl --stream-to writes them) split back. */
START_TEST(mjpeg_stream_splits)
{
	unsigned w = 320, h = 240;
	struct vcam_frames *f = vcam_frames_new(VCAM_PIXEL_MJPEG, w, h, 0);
	ck_assert_ptr_nonnull(f);
	size_t cap = 1 << 20, n = 0, lens[40];
	uint8_t *stream = malloc(cap);
	for (unsigned i = 0; i < 40; i++) {
		size_t len;
		const uint8_t *p = vcam_frames_get(f, i, (uint64_t)i * 1000, &len);
		ck_assert_ptr_nonnull(p);
		ck_assert_uint_le(n + len, cap);
		memcpy(stream + n, p, len);
		n += len;
		lens[i] = len;
	}
	size_t pos = 0;
	for (unsigned i = 0; i < 40; i++) {
		size_t s, e;
		ck_assert_int_eq(stamp_jpeg_next(stream + pos, n - pos, &s, &e), STAMP_JPEG_WHOLE);
		ck_assert_uint_eq(s, 0);
		ck_assert_uint_eq(e, lens[i]);
		struct stamp st;
		ck_assert_int_eq(stamp_jpeg_read(stream + pos, e, &st), 0);
		ck_assert_uint_eq(st.sequence, i);
		pos += e;
	}
	ck_assert_uint_eq(pos, n);
	free(stream);
	vcam_frames_free(f);
}
END_TEST

START_TEST(brightness_change)
{
	unsigned w = 320, h = 240;
	const enum vcam_pixel pixels[] = { VCAM_PIXEL_YUYV, VCAM_PIXEL_MJPEG };
	for (size_t k = 0; k < 2; k++) {
		struct vcam_frames *f = vcam_frames_new(pixels[k], w, h, 0);
		ck_assert_ptr_nonnull(f);
		size_t len;
		const uint8_t *p = vcam_frames_get(f, 3, 1, &len);
		ck_assert_ptr_nonnull(p);
		double before = pixels[k] == VCAM_PIXEL_YUYV ? picture_mean_luma(PICTURE_YUYV, p, w, h) : 0;
		uint8_t *ycc = NULL;
		if (pixels[k] == VCAM_PIXEL_MJPEG) {
			ycc = decode(p, len, w, h);
			before = picture_mean_luma(PICTURE_YUV444, ycc, w, h);
			free(ycc);
		}
		ck_assert_int_eq(vcam_frames_set_brightness(f, 40), 0);
		p = vcam_frames_get(f, 19, 2, &len); /* the same phase */
		ck_assert_ptr_nonnull(p);
		struct stamp s;
		double after;
		if (pixels[k] == VCAM_PIXEL_YUYV) {
			ck_assert_int_eq(stamp_read(PICTURE_YUYV, p, w, h, &s), 0);
			after = picture_mean_luma(PICTURE_YUYV, p, w, h);
			uint8_t *want = expected(w, h, &s);
			struct picture_diff d;
			ck_assert_int_eq(picture_compare(PICTURE_YUYV, PICTURE_MATH_BT601, p, want, w, h, &d), 0);
			ck_assert_uint_eq(d.mismatches, 0);
			free(want);
		} else {
			ck_assert_int_eq(stamp_jpeg_read(p, len, &s), 0);
			ycc = decode(p, len, w, h);
			after = picture_mean_luma(PICTURE_YUV444, ycc, w, h);
			free(ycc);
		}
		ck_assert_int_eq(s.brightness, 40);
		ck_assert_uint_eq(s.sequence, 19);
		ck_assert_double_ge(after - before, 20.0);
		/* Out of range values are clamped, not refused. */
		ck_assert_int_eq(vcam_frames_set_brightness(f, 1000000), 0);
		ck_assert_ptr_nonnull(vcam_frames_get(f, 20, 3, &len));
		vcam_frames_free(f);
	}
}
END_TEST

static char *write_temp(const uint8_t *data, size_t len)
{
	char *path = strdup("/tmp/uvcuse-test-h264-XXXXXX");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
	return path;
}

START_TEST(h264_access_units)
{
	struct vcam_frames *f = vcam_frames_new(VCAM_PIXEL_H264, 1280, 720, 0);
	ck_assert_ptr_nonnull(f);
	size_t len;
	errno = 0;
	ck_assert_ptr_null(vcam_frames_get(f, 0, 0, &len));
	ck_assert_int_eq(errno, ENODATA);
	ck_assert_uint_eq(vcam_frames_max_size(f), 1280 * 720 * 2);
	ck_assert_int_eq(vcam_frames_set_h264_file(f, "/nonexistent/stream.h264"), -ENOENT);

	/* AU0: SPS PPS IDR(first_mb 0) IDR(first_mb 1); AU1: slice(first_mb 0)
	 * slice(first_mb 1); AU2: AUD SEI slice. */
	static const uint8_t stream[] = {
		0, 0, 0, 1, 0x67, 0x42, 0x00, 0x1f,       /* SPS */
		0, 0, 0, 1, 0x68, 0xce, 0x3c, 0x80,       /* PPS */
		0, 0, 0, 1, 0x65, 0x88, 0x84, 0x00,       /* IDR, first_mb 0 */
		0, 0, 1, 0x65, 0x40, 0x11, 0x22,          /* IDR, first_mb 1 */
		0, 0, 0, 1, 0x41, 0x9a, 0x00, 0x00, 0x03, 0x01, /* P, first_mb 0 */
		0, 0, 1, 0x41, 0x50, 0x33,                /* P, first_mb 1 */
		0, 0, 0, 1, 0x09, 0xf0,                   /* AUD */
		0, 0, 1, 0x06, 0x05, 0x01, 0x80,          /* SEI */
		0, 0, 1, 0x41, 0x9b, 0x44, 0x55, 0x66,    /* P, first_mb 0 */
	};
	static const size_t starts[] = { 0, 31, 47 };
	char *path = write_temp(stream, sizeof(stream));
	ck_assert_int_eq(vcam_frames_set_h264_file(f, path), 0);
	ck_assert_uint_eq(vcam_frames_max_size(f), 31);
	for (unsigned round = 0; round < 2; round++)
		for (unsigned i = 0; i < 3; i++) {
			const uint8_t *p = vcam_frames_get(f, 100 + i, 0, &len);
			ck_assert_ptr_nonnull(p);
			size_t end = i < 2 ? starts[i + 1] : sizeof(stream);
			ck_assert_uint_eq(len, end - starts[i]);
			ck_assert_mem_eq(p, stream + starts[i], len);
		}
	vcam_frames_get(f, 0, 0, &len);
	vcam_frames_rewind(f);
	const uint8_t *a = vcam_frames_get(f, 0, 0, &len);
	ck_assert_uint_eq(len, 31);
	const uint8_t *b = vcam_frames_get(f, 0, 0, &len);
	ck_assert_ptr_eq(b, a + 31);
	unlink(path);
	free(path);

	/* No slice at all: not H.264 frames. */
	static const uint8_t junk[] = { 0, 0, 1, 0x67, 1, 2, 3, 0, 0, 1, 0x68, 4 };
	path = write_temp(junk, sizeof(junk));
	ck_assert_int_eq(vcam_frames_set_h264_file(f, path), -EINVAL);
	unlink(path);
	free(path);
	vcam_frames_free(f);

	/* Other formats refuse a file. */
	f = vcam_frames_new(VCAM_PIXEL_YUYV, 320, 240, 0);
	ck_assert_int_eq(vcam_frames_set_h264_file(f, "/dev/null"), -EINVAL);
	vcam_frames_rewind(f);
	vcam_frames_free(f);
}
END_TEST

/* Per-frame cost once the phases exist, and the one-off costs (printed;
 * the VM under TCG is about ten times slower). */
static void measure(enum vcam_pixel pixel, unsigned w, unsigned h, const char *name)
{
	struct vcam_frames *f = vcam_frames_new(pixel, w, h, 0);
	ck_assert_ptr_nonnull(f);
	size_t len;
	uint64_t t0 = now_ns();
	ck_assert_int_eq(vcam_frames_prepare(f), 0);
	uint64_t t1 = now_ns();
	unsigned n = 64;
	for (uint32_t i = 0; i < n; i++)
		ck_assert_ptr_nonnull(vcam_frames_get(f, i, i, &len));
	uint64_t t2 = now_ns();
	ck_assert_int_eq(vcam_frames_set_brightness(f, 10), 0);
	ck_assert_int_eq(vcam_frames_prepare(f), 0);
	uint64_t t3 = now_ns();
	ck_assert_ptr_nonnull(vcam_frames_get(f, 0, 0, &len));
	printf("%s: %.1f us per frame; all %u phases made in %.1f ms, again after a brightness "
	       "change in %.1f ms; %zu bytes\n",
	       name, (double)(t2 - t1) / n / 1e3, PICTURE_PHASES, (double)(t1 - t0) / 1e6,
	       (double)(t3 - t2) / 1e6, len);
	vcam_frames_free(f);
}

START_TEST(per_frame_cost)
{
	measure(VCAM_PIXEL_MJPEG, 1920, 1080, "MJPEG 1920x1080");
	measure(VCAM_PIXEL_YUYV, 1280, 720, "YUYV 1280x720");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("vcam_frames");
	TCase *tc = tcase_create("vcam_frames");
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, bad_arguments);
	tcase_add_test(tc, opaque_frames);
	tcase_add_loop_test(tc, raw_frames_stamped, 0, 3);
	tcase_add_loop_test(tc, mjpeg_frames_stamped, 0, 4);
	tcase_add_test(tc, mjpeg_stream_splits);
	tcase_add_test(tc, brightness_change);
	tcase_add_test(tc, h264_access_units);
	tcase_add_test(tc, per_frame_cost);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
