/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The test picture: sizes, determinism, brightness, exact native layouts,
 * and the tolerance comparison: a good quality-85 JPEG always passes while a
 * wrong phase, a wrong brightness, a shifted, torn or half-filled frame
 * always fails. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

#include "picture.h"
#include "stamp.h"
#include "unit_run.h"

static uint8_t *xalloc(size_t n)
{
	uint8_t *p = malloc(n);
	ck_assert_ptr_nonnull(p);
	return p;
}

/* The expected picture of a frame: phase picture plus its stamp band. */
static uint8_t *expected(unsigned w, unsigned h, unsigned phase, int brightness)
{
	uint8_t *f = xalloc(picture_frame_size(PICTURE_YU12, w, h));
	ck_assert_int_eq(picture_render(f, w, h, phase, brightness), 0);
	struct stamp s = { .sequence = phase + 16 * 5, .time_ns = 1000000ull * phase,
			   .brightness = (int16_t)brightness };
	ck_assert_int_eq(stamp_write(PICTURE_YU12, f, w, h, &s), 0);
	return f;
}

static double mean_picture_luma(const uint8_t *yu12, unsigned w, unsigned h)
{
	unsigned band = stamp_band_height(w);
	uint64_t sum = 0;
	for (size_t i = (size_t)band * w; i < (size_t)w * h; i++)
		sum += yu12[i];
	return (double)sum / (double)((size_t)w * (h - band));
}

/* A quality 85, 4:2:2 JPEG of a limited-range YU12 picture (full-range
 * YCbCr inside, as JFIF wants). */
static uint8_t *jpeg_encode(const uint8_t *yu12, unsigned w, unsigned h, unsigned long *len)
{
	uint8_t *ycc = xalloc(picture_frame_size(PICTURE_YUV444, w, h));
	ck_assert_int_eq(picture_convert(yu12, w, h, PICTURE_YUV444, PICTURE_MATH_JFIF, ycc), 0);
	struct jpeg_compress_struct c;
	struct jpeg_error_mgr e;
	c.err = jpeg_std_error(&e);
	jpeg_create_compress(&c);
	unsigned char *out = NULL;
	*len = 0;
	jpeg_mem_dest(&c, &out, len);
	c.image_width = w;
	c.image_height = h;
	c.input_components = 3;
	c.in_color_space = JCS_YCbCr;
	jpeg_set_defaults(&c);
	jpeg_set_quality(&c, 85, TRUE);
	c.comp_info[0].h_samp_factor = 2;
	c.comp_info[0].v_samp_factor = 1;
	jpeg_start_compress(&c, TRUE);
	while (c.next_scanline < h) {
		JSAMPROW row = ycc + (size_t)c.next_scanline * w * 3;
		jpeg_write_scanlines(&c, &row, 1);
	}
	jpeg_finish_compress(&c);
	jpeg_destroy_compress(&c);
	free(ycc);
	return out;
}

/* Decoded as the checker does (YCbCr, no fancy upsampling) or as a
 * converter does (RGB, libjpeg's defaults). */
static uint8_t *jpeg_decode(const uint8_t *j, unsigned long len, unsigned w, unsigned h, bool rgb)
{
	uint8_t *out = xalloc((size_t)w * h * 3);
	struct jpeg_decompress_struct d;
	struct jpeg_error_mgr e;
	d.err = jpeg_std_error(&e);
	jpeg_create_decompress(&d);
	jpeg_mem_src(&d, j, len);
	jpeg_read_header(&d, TRUE);
	if (!rgb) {
		d.out_color_space = JCS_YCbCr;
		d.do_fancy_upsampling = FALSE;
	}
	jpeg_start_decompress(&d);
	ck_assert_uint_eq(d.output_width, w);
	ck_assert_uint_eq(d.output_height, h);
	while (d.output_scanline < h) {
		JSAMPROW row = out + (size_t)d.output_scanline * w * 3;
		jpeg_read_scanlines(&d, &row, 1);
	}
	jpeg_finish_decompress(&d);
	jpeg_destroy_decompress(&d);
	return out;
}

/* How a frame whose content is `content` (YU12), sent as JPEG, compares
 * with `want` in the three forms a capture can have: decoded YCbCr (the
 * checker's MJPEG path), RGB from a JPEG decoder, YU12 from the JPEG's raw
 * YCbCr (as libv4lconvert writes it). */
enum { AS_YCC, AS_RGB, AS_YU12, FORMS };
static const char *const form_names[] = { "ycc", "rgb", "yu12" };

struct judged {
	bool pass[FORMS];
	struct picture_diff d[FORMS];
};

static struct judged jpeg_judge(const uint8_t *content, const uint8_t *want, unsigned w, unsigned h)
{
	struct judged r;
	unsigned long len;
	uint8_t *j = jpeg_encode(content, w, h, &len);
	uint8_t *ycc = jpeg_decode(j, len, w, h, false);
	uint8_t *rgb = jpeg_decode(j, len, w, h, true);
	uint8_t *yu12 = xalloc(picture_frame_size(PICTURE_YU12, w, h));
	size_t n = (size_t)w * h, cw = w / 2;
	for (size_t i = 0; i < n; i++)
		yu12[i] = ycc[3 * i];
	for (unsigned y = 0; y < h; y += 2)
		for (unsigned x = 0; x < w; x += 2) {
			const uint8_t *px = ycc + ((size_t)(y + 1) * w + x) * 3; /* 2nd row of the pair */
			yu12[n + y / 2 * cw + x / 2] = px[1];
			yu12[n + n / 4 + y / 2 * cw + x / 2] = px[2];
		}
	ck_assert_int_eq(picture_compare(PICTURE_YUV444, PICTURE_MATH_JFIF, ycc, want, w, h, &r.d[AS_YCC]), 0);
	ck_assert_int_eq(picture_compare(PICTURE_RGB24, PICTURE_MATH_JPEGDEC, rgb, want, w, h, &r.d[AS_RGB]), 0);
	ck_assert_int_eq(picture_compare(PICTURE_YU12, PICTURE_MATH_JFIF, yu12, want, w, h, &r.d[AS_YU12]), 0);
	r.pass[AS_YCC] = picture_within(&r.d[AS_YCC], &picture_tolerance_jpeg);
	r.pass[AS_RGB] = picture_within(&r.d[AS_RGB], &picture_tolerance_jpeg_rgb);
	r.pass[AS_YU12] = picture_within(&r.d[AS_YU12], &picture_tolerance_jpeg_420);
	free(j);
	free(ycc);
	free(rgb);
	free(yu12);
	return r;
}

START_TEST(sizes)
{
	ck_assert(picture_size_ok(160, 120));
	ck_assert(picture_size_ok(16, 16));
	ck_assert(picture_size_ok(1920, 1080));
	ck_assert(picture_size_ok(16384, 4096));
	ck_assert(!picture_size_ok(161, 120));
	ck_assert(!picture_size_ok(160, 121));
	ck_assert(!picture_size_ok(14, 120));
	ck_assert(!picture_size_ok(16386, 120));
	ck_assert(!picture_size_ok(16384, 16384));
	ck_assert(!picture_size_ok(0, 0));
	ck_assert(!picture_size_ok(4000000000u, 2));
	ck_assert_uint_eq(picture_frame_size(PICTURE_YUYV, 640, 480), 614400);
	ck_assert_uint_eq(picture_frame_size(PICTURE_NV12, 640, 480), 460800);
	ck_assert_uint_eq(picture_frame_size(PICTURE_YU12, 640, 480), 460800);
	ck_assert_uint_eq(picture_frame_size(PICTURE_RGB24, 640, 480), 921600);
	ck_assert_uint_eq(picture_frame_size(PICTURE_YUYV, 641, 480), 0);
	uint8_t b[16];
	ck_assert_int_eq(picture_render(b, 2, 2, 0, 0), -EINVAL);
	ck_assert_int_eq(picture_render(NULL, 160, 120, 0, 0), -EINVAL);
	ck_assert_int_eq(picture_convert(b, 2, 2, PICTURE_YUYV, PICTURE_MATH_BT601, b), -EINVAL);
}
END_TEST

START_TEST(deterministic_and_moving)
{
	unsigned w = 320, h = 240;
	size_t n = picture_frame_size(PICTURE_YU12, w, h);
	uint8_t *ph[PICTURE_PHASES];
	for (unsigned p = 0; p < PICTURE_PHASES; p++) {
		ph[p] = xalloc(n);
		ck_assert_int_eq(picture_render(ph[p], w, h, p, 0), 0);
		uint8_t *again = xalloc(n);
		ck_assert_int_eq(picture_render(again, w, h, p + PICTURE_PHASES, 0), 0);
		ck_assert_mem_eq(ph[p], again, n);
		free(again);
	}
	for (unsigned a = 0; a < PICTURE_PHASES; a++)
		for (unsigned b = a + 1; b < PICTURE_PHASES; b++)
			ck_assert_msg(memcmp(ph[a], ph[b], n) != 0, "phases %u and %u", a, b);
	for (unsigned p = 0; p < PICTURE_PHASES; p++)
		free(ph[p]);
}
END_TEST

START_TEST(brightness_changes_luma)
{
	unsigned w = 640, h = 480;
	size_t n = picture_frame_size(PICTURE_YU12, w, h);
	uint8_t *a = xalloc(n), *b = xalloc(n);
	for (unsigned p = 0; p < PICTURE_PHASES; p += 5) {
		ck_assert_int_eq(picture_render(a, w, h, p, 0), 0);
		double base = mean_picture_luma(a, w, h);
		ck_assert_int_eq(picture_render(b, w, h, p, 32), 0);
		ck_assert_double_ge(mean_picture_luma(b, w, h) - base, 20.0);
		ck_assert_int_eq(picture_render(b, w, h, p, -32), 0);
		ck_assert_double_le(mean_picture_luma(b, w, h) - base, -20.0);
		ck_assert_int_eq(picture_render(b, w, h, p, 4), 0);
		ck_assert_double_ge(mean_picture_luma(b, w, h) - base, 3.0);
		/* Luma stays in the limited range; chroma does not move. */
		ck_assert_int_eq(picture_render(b, w, h, p, 400), 0);
		size_t out_of_range = 0; /* (one assertion per pixel would be slow in Check) */
		for (size_t i = 0; i < (size_t)w * h; i++)
			out_of_range += b[i] < 16 || b[i] > 235;
		ck_assert_uint_eq(out_of_range, 0);
		ck_assert_mem_eq(a + (size_t)w * h, b + (size_t)w * h, n - (size_t)w * h);
	}
	free(a);
	free(b);
}
END_TEST

/* Chroma is constant over each 2x2 square, so 4:2:2 and 4:2:0 carry the
 * picture exactly, and every layout agrees with the YU12 form. */
START_TEST(native_layouts_exact)
{
	static const unsigned sz[][2] = { { 160, 120 }, { 162, 122 }, { 640, 480 }, { 1280, 720 } };
	for (size_t k = 0; k < 4; k++) {
		unsigned w = sz[k][0], h = sz[k][1], cw = w / 2;
		uint8_t *yu12 = expected(w, h, 7, 12);
		uint8_t *yuyv = xalloc(picture_frame_size(PICTURE_YUYV, w, h));
		uint8_t *nv12 = xalloc(picture_frame_size(PICTURE_NV12, w, h));
		uint8_t *rgb = xalloc(picture_frame_size(PICTURE_RGB24, w, h));
		uint8_t *bgr = xalloc(picture_frame_size(PICTURE_BGR24, w, h));
		uint8_t *yv12 = xalloc(picture_frame_size(PICTURE_YV12, w, h));
		ck_assert_int_eq(picture_convert(yu12, w, h, PICTURE_YUYV, PICTURE_MATH_BT601, yuyv), 0);
		ck_assert_int_eq(picture_convert(yu12, w, h, PICTURE_NV12, PICTURE_MATH_BT601, nv12), 0);
		ck_assert_int_eq(picture_convert(yu12, w, h, PICTURE_YV12, PICTURE_MATH_BT601, yv12), 0);
		ck_assert_int_eq(picture_convert(yu12, w, h, PICTURE_RGB24, PICTURE_MATH_BT601, rgb), 0);
		ck_assert_int_eq(picture_convert(yu12, w, h, PICTURE_BGR24, PICTURE_MATH_BT601, bgr), 0);
		const uint8_t *Y = yu12, *U = yu12 + (size_t)w * h, *V = U + (size_t)w * h / 4;
		size_t wrong = 0; /* (one assertion per pixel would be slow in Check) */
		for (unsigned y = 0; y < h; y++)
			for (unsigned x = 0; x < w; x++) {
				size_t i = (size_t)y * w + x, c = (size_t)(y / 2) * cw + x / 2;
				size_t pair = ((size_t)y * w + (x & ~1u)) * 2;
				wrong += yuyv[2 * i] != Y[i];
				wrong += yuyv[pair + 1] != U[c] || yuyv[pair + 3] != V[c];
				wrong += nv12[(size_t)w * h + 2 * c] != U[c];
				wrong += nv12[(size_t)w * h + 2 * c + 1] != V[c];
				wrong += rgb[3 * i] != bgr[3 * i + 2] || rgb[3 * i + 2] != bgr[3 * i];
			}
		ck_assert_uint_eq(wrong, 0);
		/* Bayer: each sample its pattern's colour of RGB24 (GRBG: G R / B G) */
		static const enum picture_layout bayer[] = { PICTURE_SBGGR8, PICTURE_SGBRG8,
							     PICTURE_SGRBG8, PICTURE_SRGGB8 };
		static const char first_rows[4][5] = { "BGGR", "GBRG", "GRBG", "RGGB" };
		uint8_t *mosaic = xalloc(picture_frame_size(PICTURE_SGRBG8, w, h));
		for (size_t b = 0; b < 4; b++) {
			ck_assert_uint_eq(picture_frame_size(bayer[b], w, h), (size_t)w * h);
			ck_assert_int_eq(picture_convert(yu12, w, h, bayer[b], PICTURE_MATH_BT601, mosaic), 0);
			for (unsigned y = 0; y < h; y++)
				for (unsigned x = 0; x < w; x++) {
					char c = first_rows[b][(y % 2) * 2 + x % 2];
					unsigned ch = c == 'R' ? 0 : c == 'G' ? 1 : 2;
					wrong += picture_bayer_colour(bayer[b], x, y) != (int)ch;
					wrong += mosaic[(size_t)y * w + x] != rgb[((size_t)y * w + x) * 3 + ch];
				}
			struct picture_diff bd;
			ck_assert_int_eq(picture_compare(bayer[b], PICTURE_MATH_BT601, mosaic, yu12, w, h, &bd), 0);
			ck_assert_uint_eq(bd.mismatches, 0);
		}
		ck_assert_uint_eq(wrong, 0);
		ck_assert_int_eq(picture_bayer_colour(PICTURE_RGB24, 0, 0), -1);
		free(mosaic);
		ck_assert_mem_eq(yv12 + (size_t)w * h, V, (size_t)w * h / 4);
		ck_assert_mem_eq(yv12 + (size_t)w * h * 5 / 4, U, (size_t)w * h / 4);
		/* YUYV rows of a 2-row pair carry the same chroma: the picture
		 * survives 4:2:2 -> 4:2:0 either way. */
		struct picture_diff d;
		ck_assert_int_eq(picture_compare(PICTURE_YUYV, PICTURE_MATH_BT601, yuyv, yu12, w, h, &d), 0);
		ck_assert_uint_eq(d.mismatches, 0);
		ck_assert(picture_within(&d, &picture_tolerance_exact));
		ck_assert_int_eq(picture_compare(PICTURE_NV12, PICTURE_MATH_BT601, nv12, yu12, w, h, &d), 0);
		ck_assert_uint_eq(d.mismatches, 0);
		/* One byte off is not exact. */
		nv12[(size_t)w * h / 2 + 3] ^= 1;
		ck_assert_int_eq(picture_compare(PICTURE_NV12, PICTURE_MATH_BT601, nv12, yu12, w, h, &d), 0);
		ck_assert_uint_eq(d.mismatches, 1);
		ck_assert(!picture_within(&d, &picture_tolerance_exact));
		ck_assert(picture_within(&d, &picture_tolerance_converted));
		free(yu12);
		free(yuyv);
		free(nv12);
		free(rgb);
		free(bgr);
		free(yv12);
	}
}
END_TEST

/* Each converter's arithmetic is its own: a frame converted with one does
 * not pass as another, and a converted frame with a defect fails. */
START_TEST(converted_tolerance)
{
	unsigned w = 640, h = 480;
	const enum picture_math maths[] = { PICTURE_MATH_BT601, PICTURE_MATH_NOEXPAND, PICTURE_MATH_V4LFAST };
	uint8_t *want = expected(w, h, 3, 0);
	uint8_t *rgb = xalloc(picture_frame_size(PICTURE_RGB24, w, h));
	for (size_t a = 0; a < 3; a++) {
		ck_assert_int_eq(picture_convert(want, w, h, PICTURE_RGB24, maths[a], rgb), 0);
		for (size_t b = 0; b < 3; b++) {
			struct picture_diff d;
			ck_assert_int_eq(picture_compare(PICTURE_RGB24, maths[b], rgb, want, w, h, &d), 0);
			if (a == b)
				ck_assert_uint_eq(d.mismatches, 0);
			else
				ck_assert_msg(!picture_within(&d, &picture_tolerance_converted),
					      "%s passes as %s", picture_math_name(maths[a]),
					      picture_math_name(maths[b]));
		}
	}
	/* YU12 from a JPEG (full range) is not YU12 from YUYV. */
	uint8_t *yu = xalloc(picture_frame_size(PICTURE_YU12, w, h));
	struct picture_diff d;
	ck_assert_int_eq(picture_convert(want, w, h, PICTURE_YU12, PICTURE_MATH_JFIF, yu), 0);
	ck_assert_int_eq(picture_compare(PICTURE_YU12, PICTURE_MATH_BT601, yu, want, w, h, &d), 0);
	ck_assert(!picture_within(&d, &picture_tolerance_converted));
	ck_assert_int_eq(picture_compare(PICTURE_YU12, PICTURE_MATH_JFIF, yu, want, w, h, &d), 0);
	ck_assert_uint_eq(d.mismatches, 0);

	/* Defects in an RGB frame: shifted by 2 pixels, wrong phase, brightness off by 2. */
	uint8_t *bad = expected(w, h, 3, 0);
	unsigned band = stamp_band_height(w);
	ck_assert_int_eq(picture_convert(bad, w, h, PICTURE_RGB24, PICTURE_MATH_V4LFAST, rgb), 0);
	memmove(rgb + (size_t)band * w * 3 + 6, rgb + (size_t)band * w * 3, (size_t)(h - band) * w * 3 - 6);
	ck_assert_int_eq(picture_compare(PICTURE_RGB24, PICTURE_MATH_V4LFAST, rgb, want, w, h, &d), 0);
	ck_assert(!picture_within(&d, &picture_tolerance_converted));
	free(bad);
	bad = expected(w, h, 4, 0);
	ck_assert_int_eq(picture_convert(bad, w, h, PICTURE_RGB24, PICTURE_MATH_V4LFAST, rgb), 0);
	ck_assert_int_eq(picture_compare(PICTURE_RGB24, PICTURE_MATH_V4LFAST, rgb, want, w, h, &d), 0);
	ck_assert(!picture_within(&d, &picture_tolerance_converted));
	free(bad);
	bad = expected(w, h, 3, 2);
	ck_assert_int_eq(picture_convert(bad, w, h, PICTURE_RGB24, PICTURE_MATH_V4LFAST, rgb), 0);
	ck_assert_int_eq(picture_compare(PICTURE_RGB24, PICTURE_MATH_V4LFAST, rgb, want, w, h, &d), 0);
	ck_assert(!picture_within(&d, &picture_tolerance_converted));
	free(bad);
	free(want);
	free(rgb);
	free(yu);
}
END_TEST

static const unsigned jpeg_sizes[][2] = { { 160, 120 }, { 176, 144 }, { 640, 480 } };

/* Every phase at three brightnesses passes, decoded either way. */
START_TEST(jpeg_good_passes)
{
	unsigned w = jpeg_sizes[_i][0], h = jpeg_sizes[_i][1];
	const int bright[] = { -64, 0, 64 };
	for (unsigned p = 0; p < PICTURE_PHASES; p++)
		for (size_t k = 0; k < 3; k++) {
			uint8_t *want = expected(w, h, p, bright[k]);
			struct judged r = jpeg_judge(want, want, w, h);
			for (int f = 0; f < FORMS; f++)
				ck_assert_msg(r.pass[f], "%ux%u phase %u b %d as %s: mae %.2f bias %.2f block %.2f",
					      w, h, p, bright[k], form_names[f], r.d[f].mae, r.d[f].bias,
					      r.d[f].block);
			free(want);
		}
}
END_TEST

START_TEST(jpeg_good_passes_large)
{
	static const unsigned sz[][2] = { { 1280, 720 }, { 1920, 1080 } };
	for (size_t k = 0; k < 2; k++) {
		unsigned w = sz[k][0], h = sz[k][1];
		uint8_t *want = expected(w, h, 9, 16);
		struct judged r = jpeg_judge(want, want, w, h);
		for (int f = 0; f < FORMS; f++)
			ck_assert_msg(r.pass[f], "%ux%u as %s: block %.2f", w, h, form_names[f], r.d[f].block);
		free(want);
	}
}
END_TEST

/* Copies YU12 rows [from, h) of src into dst at the same rows. */
static void copy_rows(uint8_t *dst, const uint8_t *src, unsigned w, unsigned h, unsigned from)
{
	size_t n = (size_t)w * h, cw = w / 2;
	memcpy(dst + (size_t)from * w, src + (size_t)from * w, (size_t)(h - from) * w);
	for (size_t plane = 0; plane < 2; plane++) {
		size_t off = n + plane * n / 4;
		memcpy(dst + off + from / 2 * cw, src + off + from / 2 * cw, (h - from) / 2 * cw);
	}
}

enum defect {
	WRONG_PHASE, BRIGHTER_2, DARKER_2, BRIGHTER_4, DARKER_4, TEAR_16_ROWS, TEAR_HALF,
	HALF_BLACK, HALF_GREY, SHIFT_RIGHT_2, SHIFT_RIGHT_4, SHIFT_DOWN_2, SHIFT_DOWN_8, DEFECTS
};
static const char *const defect_names[] = {
	"wrong phase", "brightness +2", "brightness -2", "brightness +4", "brightness -4",
	"tear (bottom 16 rows)", "tear (bottom half)", "bottom half black", "bottom half grey",
	"shifted right 2 px", "shifted right 4 px", "shifted down 2 rows", "shifted down 8 rows",
};

/* The content a broken frame of phase p would show. */
static uint8_t *defective(enum defect d, unsigned w, unsigned h, unsigned p, int b)
{
	size_t n = picture_frame_size(PICTURE_YU12, w, h), cw = w / 2;
	unsigned band = stamp_band_height(w);
	uint8_t *good = expected(w, h, p, b), *f = NULL;
	switch (d) {
	case WRONG_PHASE:
		f = xalloc(n);
		ck_assert_int_eq(picture_render(f, w, h, (p + 1) % PICTURE_PHASES, b), 0);
		memcpy(f, good, (size_t)w * band); /* the band says phase p */
		break;
	case BRIGHTER_2:
	case DARKER_2:
	case BRIGHTER_4:
	case DARKER_4: {
		static const int delta[] = { 2, -2, 4, -4 };
		f = xalloc(n);
		ck_assert_int_eq(picture_render(f, w, h, p, b + delta[d - BRIGHTER_2]), 0);
		memcpy(f, good, (size_t)w * band); /* same band */
		break;
	}
	case TEAR_16_ROWS:
	case TEAR_HALF: {
		uint8_t *prev = expected(w, h, (p + PICTURE_PHASES - 1) % PICTURE_PHASES, b);
		f = good;
		good = NULL;
		copy_rows(f, prev, w, h, d == TEAR_HALF ? (h / 2) & ~1u : h - 16);
		free(prev);
		break;
	}
	case HALF_BLACK:
	case HALF_GREY:
		f = good;
		good = NULL;
		memset(f + (size_t)w * h / 2, d == HALF_BLACK ? 16 : 128, (size_t)w * h / 2);
		memset(f + n - n / 3 + (size_t)w * h / 8, 128, (size_t)w * h / 8);
		memset(f + n - n / 6 + (size_t)w * h / 8, 128, (size_t)w * h / 8);
		break;
	case SHIFT_RIGHT_2:
	case SHIFT_RIGHT_4: {
		unsigned dx = d == SHIFT_RIGHT_2 ? 2 : 4;
		f = xalloc(n);
		memcpy(f, good, n);
		for (unsigned y = band; y < h; y++)
			memcpy(f + (size_t)y * w + dx, good + (size_t)y * w, w - dx);
		for (size_t plane = 0; plane < 2; plane++) {
			size_t off = (size_t)w * h + plane * n / 6;
			for (unsigned y = band / 2; y < h / 2; y++)
				memcpy(f + off + y * cw + dx / 2, good + off + y * cw, cw - dx / 2);
		}
		break;
	}
	case SHIFT_DOWN_2:
	case SHIFT_DOWN_8: {
		unsigned dy = d == SHIFT_DOWN_2 ? 2 : 8;
		f = xalloc(n);
		memcpy(f, good, n);
		for (unsigned y = band + dy; y < h; y++)
			memcpy(f + (size_t)y * w, good + (size_t)(y - dy) * w, w);
		for (size_t plane = 0; plane < 2; plane++) {
			size_t off = (size_t)w * h + plane * n / 6;
			for (unsigned y = band / 2 + dy / 2; y < h / 2; y++)
				memcpy(f + off + y * cw, good + off + (y - dy / 2) * cw, cw);
		}
		break;
	}
	case DEFECTS:
		break;
	}
	free(good);
	return f;
}

START_TEST(jpeg_defects_fail)
{
	unsigned w = jpeg_sizes[_i][0], h = jpeg_sizes[_i][1];
	const int bright[] = { -64, 0, 64 };
	for (unsigned p = 0; p < PICTURE_PHASES; p += 3)
		for (int d = 0; d < DEFECTS; d++) {
			int b = bright[(p / 3 + (unsigned)d) % 3];
			uint8_t *want = expected(w, h, p, b);
			uint8_t *bad = defective((enum defect)d, w, h, p, b);
			struct judged r = jpeg_judge(bad, want, w, h);
			for (int f = 0; f < FORMS; f++)
				ck_assert_msg(!r.pass[f], "%ux%u phase %u b %d %s passes as %s: mae %.2f bias %.2f block %.2f",
					      w, h, p, b, defect_names[d], form_names[f], r.d[f].mae, r.d[f].bias,
					      r.d[f].block);
			free(want);
			free(bad);
		}
}
END_TEST

/* Converted raw frames with a defect fail even the lenient tolerances the
 * checker also allows for YU12 and RGB (in case a JPEG was the source). */
static const unsigned raw_sizes[][2] = { { 160, 120 }, { 640, 480 }, { 1920, 1080 } };

START_TEST(raw_defects_fail_lenient)
{
	unsigned w = raw_sizes[_i][0], h = raw_sizes[_i][1];
	uint8_t *rgb = xalloc(picture_frame_size(PICTURE_RGB24, w, h));
	for (unsigned p = 1; p < PICTURE_PHASES; p += 7)
		for (int d = 0; d < DEFECTS; d++) {
			uint8_t *want = expected(w, h, p, 0);
			uint8_t *bad = defective((enum defect)d, w, h, p, 0);
			struct picture_diff dy, dr;
			ck_assert_int_eq(picture_compare(PICTURE_YU12, PICTURE_MATH_BT601, bad, want, w, h, &dy), 0);
			ck_assert_int_eq(picture_convert(bad, w, h, PICTURE_RGB24, PICTURE_MATH_BT601, rgb), 0);
			ck_assert_int_eq(picture_compare(PICTURE_RGB24, PICTURE_MATH_BT601, rgb, want, w, h, &dr), 0);
			ck_assert_msg(!picture_within(&dy, &picture_tolerance_jpeg_420) &&
					      !picture_within(&dr, &picture_tolerance_jpeg_rgb),
				      "%ux%u phase %u %s passes: yu12 block %.2f bias %.2f, rgb block %.2f bias %.2f",
				      w, h, p, defect_names[d], dy.block, dy.bias, dr.block, dr.bias);
			free(want);
			free(bad);
		}
	free(rgb);
}
END_TEST

START_TEST(big_sizes_do_not_crash)
{
	unsigned w = 4096, h = 2160;
	uint8_t *f = xalloc(picture_frame_size(PICTURE_YUYV, w, h));
	ck_assert_int_eq(picture_generate(PICTURE_YUYV, PICTURE_MATH_BT601, f, w, h, 15, -300), 0);
	ck_assert_int_eq(picture_generate(PICTURE_YUYV, PICTURE_MATH_BT601, f, 16, 16, 1, 0), 0);
	ck_assert_int_eq(picture_generate(PICTURE_YUYV, PICTURE_MATH_BT601, f, 16, 1200, 2, 0), 0);
	ck_assert_int_eq(picture_generate(PICTURE_YUYV, PICTURE_MATH_BT601, f, 2000, 16, 3, 9), 0);
	ck_assert_int_eq(picture_generate(PICTURE_YUYV, PICTURE_MATH_BT601, f, 16386, 16, 3, 9), -EINVAL);
	free(f);
}
END_TEST

START_TEST(mean_luma)
{
	unsigned w = 64, h = 64;
	uint8_t *f = xalloc(picture_frame_size(PICTURE_RGB24, w, h));
	memset(f, 100, picture_frame_size(PICTURE_YUYV, w, h));
	ck_assert_double_eq_tol(picture_mean_luma(PICTURE_YUYV, f, w, h), 100.0, 1e-9);
	memset(f, 200, picture_frame_size(PICTURE_RGB24, w, h));
	ck_assert_double_eq_tol(picture_mean_luma(PICTURE_RGB24, f, w, h), 200.0, 1e-9);
	free(f);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("picture");
	TCase *tc = tcase_create("picture");
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, sizes);
	tcase_add_test(tc, deterministic_and_moving);
	tcase_add_test(tc, brightness_changes_luma);
	tcase_add_test(tc, native_layouts_exact);
	tcase_add_test(tc, converted_tolerance);
	tcase_add_loop_test(tc, jpeg_good_passes, 0, 3);
	tcase_add_test(tc, jpeg_good_passes_large);
	tcase_add_loop_test(tc, jpeg_defects_fail, 0, 3);
	tcase_add_loop_test(tc, raw_defects_fail_lenient, 0, 3);
	tcase_add_test(tc, big_sizes_do_not_crash);
	tcase_add_test(tc, mean_luma);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
