/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The frame stamp: band round trips in every layout and through
 * conversions, corruption detected, the JPEG COM segment, and splitting
 * concatenated JPEGs. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "picture.h"
#include "stamp.h"
#include "unit_run.h"

static const enum picture_layout all_layouts[] = {
	PICTURE_YUYV, PICTURE_NV12, PICTURE_YU12, PICTURE_YV12,
	PICTURE_RGB24, PICTURE_BGR24, PICTURE_YUV444, PICTURE_UYVY,
	PICTURE_SBGGR8, PICTURE_SGBRG8, PICTURE_SGRBG8, PICTURE_SRGGB8,
};
#define N_LAYOUTS (sizeof(all_layouts) / sizeof(all_layouts[0]))

static const struct stamp samples[] = {
	{ 0, 0, 0 },
	{ 1, 1234567890123ull, 32 },
	{ 0xffffffffu, 0xffffffffffffffffull, -32768 },
	{ 0x80000001u, 0x8000000000000001ull, 32767 },
	{ 4242, 98765432100ull, -64 },
};
#define N_SAMPLES (sizeof(samples) / sizeof(samples[0]))

static bool same(const struct stamp *a, const struct stamp *b)
{
	return a->sequence == b->sequence && a->time_ns == b->time_ns &&
	       a->brightness == b->brightness;
}

/* Sets the luma of one pixel (all of R, G, B for RGB layouts). */
static void set_luma(enum picture_layout layout, uint8_t *f, unsigned w, unsigned x, unsigned y,
		     uint8_t v)
{
	switch (layout) {
	case PICTURE_YUYV:
		f[((size_t)y * w + x) * 2] = v;
		break;
	case PICTURE_UYVY:
		f[((size_t)y * w + x) * 2 + 1] = v;
		break;
	case PICTURE_RGB24:
	case PICTURE_BGR24:
	case PICTURE_YUV444:
		for (unsigned k = 0; k < (layout == PICTURE_YUV444 ? 1u : 3u); k++)
			f[((size_t)y * w + x) * 3 + k] = v;
		break;
	default:
		f[(size_t)y * w + x] = v;
		break;
	}
}

static uint8_t *picture(enum picture_layout layout, unsigned w, unsigned h, unsigned phase)
{
	uint8_t *f = malloc(picture_frame_size(layout, w, h));
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(picture_generate(layout, PICTURE_MATH_BT601, f, w, h, phase, 0), 0);
	return f;
}

START_TEST(crc32_known_value)
{
	ck_assert_uint_eq(stamp_crc32(0, "123456789", 9), 0xcbf43926u);
	ck_assert_uint_eq(stamp_crc32(0, "", 0), 0);
}
END_TEST

START_TEST(pack_round_trip)
{
	for (size_t i = 0; i < N_SAMPLES; i++) {
		uint8_t b[STAMP_BYTES];
		struct stamp s;
		stamp_pack(&samples[i], b);
		ck_assert_int_eq(stamp_unpack(b, &s), 0);
		ck_assert(same(&s, &samples[i]));
		for (unsigned bit = 0; bit < STAMP_BITS; bit++) {
			b[bit / 8] ^= (uint8_t)(0x80u >> (bit % 8));
			int err = stamp_unpack(b, &s);
			ck_assert_msg(err == -EBADMSG || err == -ENOMSG, "bit %u flip undetected", bit);
			b[bit / 8] ^= (uint8_t)(0x80u >> (bit % 8));
		}
	}
}
END_TEST

START_TEST(band_height)
{
	ck_assert_uint_eq(stamp_band_height(1920), 8);
	ck_assert_uint_eq(stamp_band_height(1280), 8);
	ck_assert_uint_eq(stamp_band_height(640), 16);
	ck_assert_uint_eq(stamp_band_height(320), 32);
	ck_assert_uint_eq(stamp_band_height(160), 64);
	ck_assert_uint_eq(stamp_band_height(16), 640);
	ck_assert_uint_eq(stamp_band_height(15), 0);
	ck_assert_uint_eq(stamp_band_height(0), 0);
}
END_TEST

static const unsigned widths[] = { 160, 162, 176, 320, 640, 1000, 1280, 1920 };

START_TEST(band_round_trip_every_layout)
{
	unsigned w = widths[_i];
	unsigned h = stamp_band_height(w) + 56;
	for (size_t l = 0; l < N_LAYOUTS; l++) {
		uint8_t *f = picture(all_layouts[l], w, h, 3);
		for (size_t i = 0; i < N_SAMPLES; i++) {
			struct stamp s;
			ck_assert_int_eq(stamp_write(all_layouts[l], f, w, h, &samples[i]), 0);
			ck_assert_int_eq(stamp_read(all_layouts[l], f, w, h, &s), 0);
			ck_assert_msg(same(&s, &samples[i]), "%s %ux%u sample %zu",
				      picture_layout_name(all_layouts[l]), w, h, i);
		}
		free(f);
	}
}
END_TEST

START_TEST(write_touches_only_the_band)
{
	unsigned w = 640, h = 480, band = stamp_band_height(w);
	for (size_t l = 0; l < N_LAYOUTS; l++) {
		size_t n = picture_frame_size(all_layouts[l], w, h);
		uint8_t *f = malloc(n), *g = malloc(n);
		for (size_t i = 0; i < n; i++)
			f[i] = (uint8_t)(i * 7 + 1);
		memcpy(g, f, n);
		ck_assert_int_eq(stamp_write(all_layouts[l], f, w, h, &samples[1]), 0);
		/* Bytes past the band rows (and past the band's chroma rows). */
		size_t changed_after = 0;
		switch (all_layouts[l]) {
		case PICTURE_NV12:
			changed_after = (size_t)w * band;
			ck_assert_mem_eq(f + changed_after, g + changed_after, (size_t)w * h - changed_after);
			ck_assert_mem_eq(f + (size_t)w * h + (size_t)w * band / 2,
					 g + (size_t)w * h + (size_t)w * band / 2, (size_t)w * (h - band) / 2);
			break;
		case PICTURE_YU12:
		case PICTURE_YV12: {
			size_t y = (size_t)w * h, q = y / 4, cb = (size_t)(w / 2) * (band / 2);
			ck_assert_mem_eq(f + (size_t)w * band, g + (size_t)w * band, y - (size_t)w * band);
			ck_assert_mem_eq(f + y + cb, g + y + cb, q - cb);
			ck_assert_mem_eq(f + y + q + cb, g + y + q + cb, q - cb);
			break;
		}
		default: {
			size_t row = n / h * band;
			ck_assert_mem_eq(f + row, g + row, n - row);
			break;
		}
		}
		free(f);
		free(g);
	}
}
END_TEST

/* The stamp in a YU12 picture converted by each converter's arithmetic. */
START_TEST(band_survives_conversion)
{
	unsigned w = 640, h = 480;
	size_t n = picture_frame_size(PICTURE_YU12, w, h);
	uint8_t *yu12 = malloc(n), *out = malloc(picture_frame_size(PICTURE_RGB24, w, h));
	ck_assert_int_eq(picture_render(yu12, w, h, 5, 40), 0);
	ck_assert_int_eq(stamp_write(PICTURE_YU12, yu12, w, h, &samples[4]), 0);
	const enum picture_math maths[] = { PICTURE_MATH_BT601, PICTURE_MATH_JFIF, PICTURE_MATH_NOEXPAND,
					    PICTURE_MATH_V4LFAST, PICTURE_MATH_JPEGDEC,
					    PICTURE_MATH_JPEGMERGED };
	for (size_t l = 0; l < N_LAYOUTS; l++)
		for (size_t m = 0; m < sizeof(maths) / sizeof(maths[0]); m++) {
			struct stamp s;
			ck_assert_int_eq(picture_convert(yu12, w, h, all_layouts[l], maths[m], out), 0);
			ck_assert_int_eq(stamp_read(all_layouts[l], out, w, h, &s), 0);
			ck_assert(same(&s, &samples[4]));
		}
	free(yu12);
	free(out);
}
END_TEST

/* Inverting one block (one bit) or greying it is detected. */
START_TEST(band_corruption_detected)
{
	unsigned w = 320, h = 240, per_row = w / STAMP_BLOCK;
	const enum picture_layout layouts[] = { PICTURE_YUYV, PICTURE_NV12, PICTURE_RGB24 };
	for (size_t l = 0; l < 3; l++) {
		enum picture_layout layout = layouts[l];
		uint8_t *f = picture(layout, w, h, 0);
		size_t bpp = layout == PICTURE_YUYV ? 2 : layout == PICTURE_RGB24 ? 3 : 1;
		for (unsigned bit = 0; bit < STAMP_BITS; bit += 7) {
			ck_assert_int_eq(stamp_write(layout, f, w, h, &samples[1]), 0);
			unsigned bx = bit % per_row * STAMP_BLOCK, by = bit / per_row * STAMP_BLOCK;
			bool one = f[((size_t)by * w + bx) * bpp] > 128;
			for (unsigned y = by; y < by + STAMP_BLOCK; y++)
				for (unsigned x = bx; x < bx + STAMP_BLOCK; x++)
					set_luma(layout, f, w, x, y, one ? STAMP_LUMA_ZERO : STAMP_LUMA_ONE);
			struct stamp s;
			int err = stamp_read(layout, f, w, h, &s);
			ck_assert_msg(err == -EBADMSG || err == -ENOMSG, "%s bit %u: %d",
				      picture_layout_name(layout), bit, err);
		}
		/* A grey block is no stamp. */
		ck_assert_int_eq(stamp_write(layout, f, w, h, &samples[1]), 0);
		for (unsigned y = 0; y < STAMP_BLOCK; y++)
			for (unsigned x = 16; x < 24; x++)
				set_luma(layout, f, w, x, y, 128);
		struct stamp s;
		ck_assert_int_eq(stamp_read(layout, f, w, h, &s), -ENOMSG);
		/* A plain picture has no stamp. */
		uint8_t *g = picture(layout, w, h, 1);
		memset(g, 200, w * bpp * 8);
		ck_assert_int_ne(stamp_read(layout, g, w, h, &s), 0);
		free(g);
		free(f);
	}
}
END_TEST

START_TEST(band_bad_sizes)
{
	uint8_t buf[64];
	struct stamp s;
	ck_assert_int_eq(stamp_write(PICTURE_YUYV, buf, 8, 2, &samples[0]), -EINVAL);
	ck_assert_int_eq(stamp_read(PICTURE_YUYV, buf, 8, 2, &s), -EINVAL);
	/* 160 wide needs 64 rows. */
	uint8_t *f = malloc(picture_frame_size(PICTURE_YUYV, 160, 120));
	ck_assert_int_eq(stamp_write(PICTURE_YUYV, f, 160, 62, &samples[0]), -EINVAL);
	ck_assert_int_eq(stamp_write(PICTURE_YUYV, f, 160, 64, &samples[0]), 0);
	ck_assert_int_eq(stamp_write(PICTURE_YUYV, f, 161, 64, &samples[0]), -EINVAL);
	ck_assert_int_eq(stamp_write(PICTURE_YUYV, NULL, 160, 64, &samples[0]), -EINVAL);
	free(f);
}
END_TEST

START_TEST(com_round_trip)
{
	for (size_t i = 0; i < N_SAMPLES; i++) {
		char text[STAMP_COM_MAX + 1];
		size_t n = stamp_com_text(&samples[i], text);
		ck_assert_uint_gt(n, 20);
		ck_assert_uint_le(n, STAMP_COM_MAX);
		ck_assert(strncmp(text, STAMP_COM_PREFIX, strlen(STAMP_COM_PREFIX)) == 0);
		struct stamp s;
		ck_assert_int_eq(stamp_com_parse((const uint8_t *)text, n, &s), 0);
		ck_assert(same(&s, &samples[i]));
		/* Every single-character change after the prefix is caught. */
		for (size_t k = strlen(STAMP_COM_PREFIX); k < n; k++) {
			char t[STAMP_COM_MAX + 1];
			memcpy(t, text, n);
			t[k] = t[k] == '1' ? '2' : '1';
			ck_assert_msg(stamp_com_parse((const uint8_t *)t, n, &s) == -EBADMSG, "%.*s",
				      (int)n, t);
		}
		ck_assert_int_eq(stamp_com_parse((const uint8_t *)text, n - 1, &s), -EBADMSG);
	}
	const char *junk[] = { "hello", "uvcuse-stamp", "uvcuse-stamp seq=1", "uvcuse-stamp seq=-1 t=0 b=0 crc=00000000",
			       "uvcuse-stamp seq=99999999999 t=0 b=0 crc=00000000",
			       "uvcuse-stamp seq=1 t=99999999999999999999999 b=0 crc=00000000",
			       "uvcuse-stamp seq=1 t=1 b=40000 crc=00000000" };
	for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
		struct stamp s;
		ck_assert_int_ne(stamp_com_parse((const uint8_t *)junk[i], strlen(junk[i]), &s), 0);
	}
	struct stamp s;
	ck_assert_int_eq(stamp_com_parse((const uint8_t *)"hello", 5, &s), -ENOMSG);
}
END_TEST

/* A small JPEG-shaped stream: SOI, APP0 and COM holding FF bytes, SOS,
 * entropy data with stuffed FF00 and restart markers, EOI. */
static size_t fake_jpeg(uint8_t *out, unsigned variant)
{
	static const uint8_t head[] = {
		0xff, 0xd8,                                           /* SOI */
		0xff, 0xe0, 0x00, 0x0a, 'J', 'F', 'I', 'F', 0, 0xff, 0xd9, 0xff, /* APP0 with FF D9 FF */
		0xff, 0xfe, 0x00, 0x08, 0xff, 0xd8, 0xff, 0xd9, 0xff, 0x00, /* COM with SOI/EOI bytes */
		0xff, 0xdd, 0x00, 0x04, 0x00, 0x01,                   /* DRI */
		0xff, 0xda, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3f, 0x00, /* SOS */
	};
	size_t n = 0;
	memcpy(out, head, sizeof(head));
	n += sizeof(head);
	const uint8_t scan[] = { 0x12, 0xff, 0x00, 0x34, 0xff, 0xd0, 0x56, 0xff, 0xff, 0xd1,
				 (uint8_t)variant, 0xff, 0x00 };
	memcpy(out + n, scan, sizeof(scan));
	n += sizeof(scan);
	out[n++] = 0xff;
	out[n++] = 0xd9; /* EOI */
	return n;
}

START_TEST(jpeg_split_concatenated)
{
	uint8_t buf[1024];
	size_t lens[4], n = 0;
	for (unsigned i = 0; i < 4; i++) {
		lens[i] = fake_jpeg(buf + n, i);
		n += lens[i];
	}
	size_t pos = 0;
	for (unsigned i = 0; i < 4; i++) {
		size_t s, e;
		ck_assert_int_eq(stamp_jpeg_next(buf + pos, n - pos, &s, &e), STAMP_JPEG_WHOLE);
		ck_assert_uint_eq(s, 0);
		ck_assert_uint_eq(e, lens[i]);
		pos += e;
	}
	size_t s, e;
	ck_assert_int_eq(stamp_jpeg_next(buf + pos, n - pos, &s, &e), STAMP_JPEG_NONE);
}
END_TEST

START_TEST(jpeg_split_broken)
{
	uint8_t buf[1024];
	size_t n = 0, s, e;
	/* Junk, a JPEG cut in its scan, then a whole one. */
	memcpy(buf, "junk\xff\x00\xff", 7);
	n = 7;
	size_t first = n, l1 = fake_jpeg(buf + n, 1);
	n += l1 - 6; /* cut before the end of the scan */
	size_t second = n, l2 = fake_jpeg(buf + n, 2);
	n += l2;
	ck_assert_int_eq(stamp_jpeg_next(buf, n, &s, &e), STAMP_JPEG_BROKEN);
	ck_assert_uint_eq(s, first);
	ck_assert_uint_eq(e, second);
	ck_assert_int_eq(stamp_jpeg_next(buf + e, n - e, &s, &e), STAMP_JPEG_WHOLE);
	ck_assert_uint_eq(s, 0);
	ck_assert_uint_eq(e, l2);
	/* Truncated in a segment length. */
	ck_assert_int_eq(stamp_jpeg_next(buf + first, 16, &s, &e), STAMP_JPEG_BROKEN);
	ck_assert_uint_eq(e, 16);
	/* A segment length of 1 is malformed. */
	uint8_t bad[] = { 0xff, 0xd8, 0xff, 0xe0, 0x00, 0x01, 0xff, 0xd9 };
	ck_assert_int_eq(stamp_jpeg_next(bad, sizeof(bad), &s, &e), STAMP_JPEG_BROKEN);
	/* Nothing at all. */
	ck_assert_int_eq(stamp_jpeg_next((const uint8_t *)"abc", 3, &s, &e), STAMP_JPEG_NONE);
	ck_assert_uint_eq(s, 3);
	ck_assert_int_eq(stamp_jpeg_next(buf, 0, &s, &e), STAMP_JPEG_NONE);
}
END_TEST

START_TEST(jpeg_com_insert_and_read)
{
	uint8_t j[256], out[512];
	size_t n = fake_jpeg(j, 0);
	struct stamp s;
	/* The fake JPEG's own COM is not ours. */
	ck_assert_int_eq(stamp_jpeg_read(j, n, &s), -ENOMSG);
	size_t m = stamp_jpeg_insert(out, sizeof(out), j, n, &samples[2]);
	ck_assert_uint_gt(m, n);
	ck_assert_uint_le(m, n + STAMP_COM_MAX + 4);
	ck_assert(out[2] == 0xff && out[3] == 0xfe);
	ck_assert_int_eq(stamp_jpeg_read(out, m, &s), 0);
	ck_assert(same(&s, &samples[2]));
	size_t e, st;
	ck_assert_int_eq(stamp_jpeg_next(out, m, &st, &e), STAMP_JPEG_WHOLE);
	ck_assert_uint_eq(e, m);
	/* Flip one bit anywhere in the COM text. */
	for (size_t k = 6 + strlen(STAMP_COM_PREFIX); k < 6 + (size_t)(out[4] << 8 | out[5]) - 2; k++) {
		out[k] ^= 0x01;
		ck_assert_int_eq(stamp_jpeg_read(out, m, &s), -EBADMSG);
		out[k] ^= 0x01;
	}
	/* Too small an output, not a JPEG, truncated header. */
	ck_assert_uint_eq(stamp_jpeg_insert(out, n, j, n, &samples[2]), 0);
	ck_assert_uint_eq(stamp_jpeg_insert(out, sizeof(out), j + 1, n - 1, &samples[2]), 0);
	ck_assert_int_eq(stamp_jpeg_read(out, 20, &s), -EBADMSG);
	ck_assert_int_eq(stamp_jpeg_read(j + 2, n - 2, &s), -EBADMSG);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("stamp");
	TCase *tc = tcase_create("stamp");
	tcase_add_test(tc, crc32_known_value);
	tcase_add_test(tc, pack_round_trip);
	tcase_add_test(tc, band_height);
	tcase_add_loop_test(tc, band_round_trip_every_layout, 0, sizeof(widths) / sizeof(widths[0]));
	tcase_add_test(tc, write_touches_only_the_band);
	tcase_add_test(tc, band_survives_conversion);
	tcase_add_test(tc, band_corruption_detected);
	tcase_add_test(tc, band_bad_sizes);
	tcase_add_test(tc, com_round_trip);
	tcase_add_test(tc, jpeg_split_concatenated);
	tcase_add_test(tc, jpeg_split_broken);
	tcase_add_test(tc, jpeg_com_insert_and_read);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(suite());
}
