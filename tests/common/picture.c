/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The moving test picture: rendering, layout conversion and comparison. */
#include "picture.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stamp.h"

/* Thresholds (README.md has the measurements):
 * - converted: the maths model libv4lconvert exactly, so a converter from
 *   YUYV/NV12 is off by rounding only, while a 2-pixel shift gives a block
 *   of 8 or more and a brightness off by 2 a bias of 0.93 or more;
 * - jpeg: the camera's quality 85 4:2:2 JPEG decoded to YCbCr: good frames
 *   stay under mae 0.8, bias 0.13, block 5.0 at every size, phase and
 *   brightness, while a 2-row/2-pixel shift, a tear or a wrong phase give
 *   blocks of 13 and more, and a brightness off by 2 a bias of 1.39 or more;
 * - jpeg_rgb: the same decoded to RGB with fancy upsampling: good frames
 *   stay under mae 1.0, bias 0.25, block 6.7 (8.6 through ffmpeg's
 *   converter); defects give blocks of 16 and more and biases of 0.94 and
 *   more;
 * - jpeg_420: the same as YU12 (a JPEG's raw YCbCr, or made limited range):
 *   good frames stay under mae 0.6, bias 0.13, block 4.2; defects give
 *   blocks of 8 and more (a 2-pixel shift of a raw frame) and biases of 1.2
 *   and more. */
const struct picture_tolerance picture_tolerance_exact = { .exact = true };
const struct picture_tolerance picture_tolerance_converted = { .mae = 1.0, .bias = 0.5, .block = 4.0 };
const struct picture_tolerance picture_tolerance_jpeg = { .mae = 2.0, .bias = 0.75, .block = 8.5 };
const struct picture_tolerance picture_tolerance_jpeg_rgb = { .mae = 2.5, .bias = 0.75, .block = 12.0 };
const struct picture_tolerance picture_tolerance_jpeg_420 = { .mae = 1.5, .bias = 0.75, .block = 6.5 };

static int clamp8(int v)
{
	return v < 0 ? 0 : v > 255 ? 255 : v;
}

static int clamp_limited(int v)
{
	return v < 16 ? 16 : v > 235 ? 235 : v;
}

bool picture_size_ok(unsigned width, unsigned height)
{
	return width >= PICTURE_MIN_SIZE && height >= PICTURE_MIN_SIZE && width <= PICTURE_MAX_SIZE &&
	       height <= PICTURE_MAX_SIZE && width % 2 == 0 && height % 2 == 0 &&
	       (uint64_t)width * height <= PICTURE_MAX_PIXELS;
}

size_t picture_frame_size(enum picture_layout layout, unsigned width, unsigned height)
{
	if (!picture_size_ok(width, height))
		return 0;
	size_t px = (size_t)width * height;
	switch (layout) {
	case PICTURE_YUYV:
	case PICTURE_UYVY:
		return px * 2;
	case PICTURE_NV12:
	case PICTURE_YU12:
	case PICTURE_YV12:
		return px * 3 / 2;
	case PICTURE_RGB24:
	case PICTURE_BGR24:
	case PICTURE_YUV444:
		return px * 3;
	case PICTURE_SBGGR8:
	case PICTURE_SGBRG8:
	case PICTURE_SGRBG8:
	case PICTURE_SRGGB8:
		return px;
	}
	return 0;
}

int picture_bayer_colour(enum picture_layout layout, unsigned x, unsigned y)
{
	/* the 2x2 pattern, top row then bottom row */
	static const uint8_t patterns[4][4] = {
		[PICTURE_SBGGR8 - PICTURE_SBGGR8] = { 2, 1, 1, 0 },
		[PICTURE_SGBRG8 - PICTURE_SBGGR8] = { 1, 2, 0, 1 },
		[PICTURE_SGRBG8 - PICTURE_SBGGR8] = { 1, 0, 2, 1 },
		[PICTURE_SRGGB8 - PICTURE_SBGGR8] = { 0, 1, 1, 2 },
	};
	if (layout < PICTURE_SBGGR8 || layout > PICTURE_SRGGB8)
		return -1;
	return patterns[layout - PICTURE_SBGGR8][(y % 2) * 2 + x % 2];
}

const char *picture_layout_name(enum picture_layout layout)
{
	switch (layout) {
	case PICTURE_YUYV:
		return "YUYV";
	case PICTURE_NV12:
		return "NV12";
	case PICTURE_YU12:
		return "YU12";
	case PICTURE_YV12:
		return "YV12";
	case PICTURE_RGB24:
		return "RGB24";
	case PICTURE_BGR24:
		return "BGR24";
	case PICTURE_YUV444:
		return "YUV444";
	case PICTURE_UYVY:
		return "UYVY";
	case PICTURE_SBGGR8:
		return "SBGGR8";
	case PICTURE_SGBRG8:
		return "SGBRG8";
	case PICTURE_SGRBG8:
		return "SGRBG8";
	case PICTURE_SRGGB8:
		return "SRGGB8";
	}
	return "?";
}

const char *picture_math_name(enum picture_math math)
{
	switch (math) {
	case PICTURE_MATH_BT601:
		return "bt601";
	case PICTURE_MATH_JFIF:
		return "jfif";
	case PICTURE_MATH_NOEXPAND:
		return "noexpand";
	case PICTURE_MATH_V4LFAST:
		return "v4lfast";
	case PICTURE_MATH_JPEGDEC:
		return "jpegdec";
	case PICTURE_MATH_JPEGMERGED:
		return "jpegmerged";
	}
	return "?";
}

/* ---- rendering ---- */

struct yuv {
	uint8_t y, u, v;
};

/* BT.601 limited range from full-range RGB, rounded. */
static struct yuv from_rgb(int r, int g, int b)
{
	double y = 16.0 + (65.738 * r + 129.057 * g + 25.064 * b) / 256.0;
	double u = 128.0 + (-37.945 * r - 74.494 * g + 112.439 * b) / 256.0;
	double v = 128.0 + (112.439 * r - 94.154 * g - 18.285 * b) / 256.0;
	return (struct yuv){ (uint8_t)(y + 0.5), (uint8_t)(u + 0.5), (uint8_t)(v + 0.5) };
}

/* 75% bars: white, yellow, cyan, green, magenta, red, blue, black. */
static void bar_colours(struct yuv bars[8])
{
	for (unsigned i = 0; i < 8; i++) {
		unsigned c = 7 - i; /* bit 2: green, bit 1: red, bit 0: blue (as the classic order) */
		int g = c & 4 ? 191 : 0, r = c & 2 ? 191 : 0, b = c & 1 ? 191 : 0;
		bars[i] = from_rgb(r, g, b);
	}
}

/* cos(2 pi k / 16) * 1024 */
static const int cos16[16] = { 1024, 946, 724, 392, 0, -392, -724, -946,
			       -1024, -946, -724, -392, 0, 392, 724, 946 };

static unsigned even(unsigned v)
{
	return v & ~1u;
}

struct layout_geometry {
	unsigned band, bars_end, rev_end; /* rows */
	unsigned shift;                   /* bar scroll in pixels, even */
	unsigned box_x, box_y, box_side;  /* even */
};

static struct layout_geometry geometry(unsigned w, unsigned h, unsigned phase)
{
	struct layout_geometry g;
	unsigned band = stamp_band_height(w);
	g.band = band > h ? h : band;
	unsigned area = h - g.band;
	g.bars_end = g.band + even(area * 5 / 8);
	g.rev_end = g.band + even(area * 3 / 4);
	g.shift = even(phase * w / PICTURE_PHASES);
	g.box_side = even((w < area ? w : area) / 5); /* 0 when there is no room */
	long rx = (long)(w / 2) - (long)(g.box_side / 2) - 2;
	long ry = (long)(area / 2) - (long)(g.box_side / 2) - 2;
	rx = rx < 0 ? 0 : rx;
	ry = ry < 0 ? 0 : ry;
	/* sin(2 pi k / 16) = cos(2 pi (k - 4) / 16) */
	long cx = (long)w / 2 + rx * cos16[phase] / 1024;
	long cy = (long)g.band + (long)area / 2 + ry * cos16[(phase + 12) % 16] / 1024;
	long bx = cx - g.box_side / 2, by = cy - g.box_side / 2;
	if (bx < 0)
		bx = 0;
	if (bx + g.box_side > w)
		bx = w - g.box_side;
	if (by < (long)g.band)
		by = g.band;
	if (by + g.box_side > h)
		by = h >= g.box_side ? h - g.box_side : 0;
	g.box_x = even((unsigned)bx);
	g.box_y = even((unsigned)by);
	return g;
}

/* Luma ripple of the bars: a triangle of period 64 rows, -10..+10. */
static int ripple(unsigned y)
{
	unsigned t = y % 64;
	unsigned tri = t < 32 ? t : 64 - t; /* 0..32 */
	return (int)(tri * 20 / 32) - 10;
}

/* A luma map: clamp(clamp(v + ripple) + brightness) to the limited range. */
static void luma_map(uint8_t map[256], int rip, int brightness)
{
	for (int v = 0; v < 256; v++)
		map[v] = (uint8_t)clamp_limited(clamp_limited(v + rip) + brightness);
}

int picture_render(uint8_t *yu12, unsigned w, unsigned h, unsigned phase, int brightness)
{
	if (!yu12 || !picture_size_ok(w, h))
		return -EINVAL;
	phase %= PICTURE_PHASES;
	if (brightness < -255)
		brightness = -255;
	if (brightness > 255)
		brightness = 255;

	struct layout_geometry g = geometry(w, h, phase);
	struct yuv bars[8];
	bar_colours(bars);
	const struct yuv box_a = from_rgb(230, 120, 20), box_b = from_rgb(20, 170, 190);
	uint8_t *Y = yu12, *U = yu12 + (size_t)w * h, *V = U + (size_t)w * h / 4;
	unsigned cw = w / 2;

	/* One row of each section: bars, reversed bars, ramp. */
	uint8_t *t = malloc((size_t)w * 3 + (size_t)cw * 4);
	if (!t)
		return -ENOMEM;
	uint8_t *bars_y = t, *rev_y = t + w, *ramp_y = t + 2 * (size_t)w;
	uint8_t *bars_u = t + 3 * (size_t)w, *bars_v = bars_u + cw, *rev_u = bars_v + cw,
		*rev_v = rev_u + cw;
	for (unsigned x = 0; x < w; x += 2) {
		unsigned bar = (x + g.shift) % w * 8 / w;         /* x + shift is even */
		unsigned rbar = 7 - (x + w - g.shift) % w * 8 / w; /* scrolls the other way */
		bars_y[x] = bars_y[x + 1] = bars[bar].y;
		bars_u[x / 2] = bars[bar].u;
		bars_v[x / 2] = bars[bar].v;
		rev_y[x] = rev_y[x + 1] = bars[rbar].y;
		rev_u[x / 2] = bars[rbar].u;
		rev_v[x / 2] = bars[rbar].v;
	}
	unsigned ramp_shift = (2 * g.shift) % w;
	for (unsigned x = 0; x < w; x++)
		ramp_y[x] = (uint8_t)(16 + (uint64_t)((x + ramp_shift) % w) * 220 / w);

	/* The band: black, neutral. */
	memset(Y, STAMP_LUMA_ZERO, (size_t)w * g.band);
	memset(U, 128, (size_t)cw * g.band / 2);
	memset(V, 128, (size_t)cw * g.band / 2);

	uint8_t map[256], plain[256];
	int map_rip = INT32_MIN;
	luma_map(plain, 0, brightness);
	for (unsigned y = g.band; y < h; y++) {
		uint8_t *yr = Y + (size_t)y * w;
		uint8_t *ur = U + (size_t)(y / 2) * cw, *vr = V + (size_t)(y / 2) * cw;
		bool chroma_row = (y % 2) == 0;
		const uint8_t *src, *su, *sv;
		const uint8_t *m = plain;
		if (y < g.bars_end) {
			int rip = ripple(y);
			if (rip != map_rip) {
				luma_map(map, rip, brightness);
				map_rip = rip;
			}
			m = map;
			src = bars_y, su = bars_u, sv = bars_v;
		} else if (y < g.rev_end) {
			src = rev_y, su = rev_u, sv = rev_v;
		} else {
			src = ramp_y, su = sv = NULL;
		}
		for (unsigned x = 0; x < w; x++)
			yr[x] = m[src[x]];
		if (chroma_row) {
			if (su) {
				memcpy(ur, su, cw);
				memcpy(vr, sv, cw);
			} else {
				memset(ur, 128, cw);
				memset(vr, 128, cw);
			}
		}
		if (y >= g.box_y && y < g.box_y + g.box_side) {
			unsigned j = even(y - g.box_y);
			for (unsigned i = 0; i < g.box_side && g.box_x + i < w; i += 2) {
				const struct yuv *c = i + j < g.box_side ? &box_a : &box_b;
				unsigned x = g.box_x + i;
				yr[x] = yr[x + 1] = plain[c->y];
				if (chroma_row) {
					ur[x / 2] = c->u;
					vr[x / 2] = c->v;
				}
			}
		}
	}
	free(t);
	return 0;
}

/* ---- conversion ---- */

void picture_full_range_tables(uint8_t luma[256], uint8_t chroma[256])
{
	for (int i = 0; i < 256; i++) {
		/* round((i - 16) * 255 / 219) and round((i - 128) * 255 / 224) + 128 */
		int l = (i - 16) * 255 * 2;
		l = l < 0 ? 0 : (l + 219) / (2 * 219);
		int c = (i - 128) * 255 * 2;
		c = c >= 0 ? (c + 224) / (2 * 224) : -((-c + 224) / (2 * 224));
		luma[i] = (uint8_t)clamp8(l);
		chroma[i] = (uint8_t)clamp8(c + 128);
	}
}

/* Floor division by a power of two, also for negative values. */
static int shr(int v, unsigned bits)
{
	return v >= 0 ? v >> bits : -((-v + (1 << bits) - 1) >> bits);
}

static void to_rgb(enum picture_math math, int y, int u, int v, uint8_t rgb[3])
{
	int du = u - 128, dv = v - 128, r, g, b;
	switch (math) {
	case PICTURE_MATH_NOEXPAND:
		r = y + shr(dv * 1436, 10);
		g = y - shr(du * 352 + dv * 731, 10);
		b = y + shr(du * 1814, 10);
		break;
	case PICTURE_MATH_V4LFAST:
		r = y + shr(3 * dv, 1);
		g = y - shr(3 * du + 6 * dv, 3);
		b = y + shr(129 * du, 6);
		break;
	case PICTURE_MATH_JPEGDEC: /* y, u, v are full range here */
	case PICTURE_MATH_JPEGMERGED:
		r = y + shr(91881 * dv + 32768, 16);
		g = y + shr(-22554 * du - 46802 * dv + 32768, 16);
		b = y + shr(116130 * du + 32768, 16);
		break;
	case PICTURE_MATH_BT601:
	case PICTURE_MATH_JFIF:
	default: {
		int c = 76309 * (y - 16) + 32768;
		r = shr(c + 104597 * dv, 16);
		g = shr(c - 25675 * du - 53279 * dv, 16);
		b = shr(c + 132201 * du, 16);
		break;
	}
	}
	rgb[0] = (uint8_t)clamp8(r);
	rgb[1] = (uint8_t)clamp8(g);
	rgb[2] = (uint8_t)clamp8(b);
}

int picture_convert(const uint8_t *yu12, unsigned w, unsigned h, enum picture_layout layout,
		    enum picture_math math, uint8_t *out)
{
	if (!yu12 || !out || !picture_frame_size(layout, w, h))
		return -EINVAL;
	const uint8_t *Y = yu12, *U = yu12 + (size_t)w * h, *V = U + (size_t)w * h / 4;
	unsigned cw = w / 2;
	uint8_t lt[256], ct[256];
	bool rgb = layout == PICTURE_RGB24 || layout == PICTURE_BGR24 ||
		   picture_bayer_colour(layout, 0, 0) >= 0;
	bool jpeg_rgb = math == PICTURE_MATH_JPEGDEC || math == PICTURE_MATH_JPEGMERGED;
	if ((math == PICTURE_MATH_JFIF && !rgb) || jpeg_rgb) {
		picture_full_range_tables(lt, ct);
	} else {
		for (int i = 0; i < 256; i++)
			lt[i] = ct[i] = (uint8_t)i;
	}

	switch (layout) {
	case PICTURE_YUYV:
	case PICTURE_UYVY: {
		/* packed 4:2:2, luma first (YUYV) or chroma first (UYVY) */
		unsigned luma = layout == PICTURE_UYVY, chroma = !luma;
		for (unsigned y = 0; y < h; y++) {
			const uint8_t *yr = Y + (size_t)y * w, *ur = U + (size_t)(y / 2) * cw,
				      *vr = V + (size_t)(y / 2) * cw;
			uint8_t *o = out + (size_t)y * w * 2;
			for (unsigned x = 0; x < cw; x++) {
				o[4 * x + luma] = lt[yr[2 * x]];
				o[4 * x + chroma] = ct[ur[x]];
				o[4 * x + 2 + luma] = lt[yr[2 * x + 1]];
				o[4 * x + 2 + chroma] = ct[vr[x]];
			}
		}
		return 0;
	}
	case PICTURE_NV12: {
		for (size_t i = 0; i < (size_t)w * h; i++)
			out[i] = lt[Y[i]];
		uint8_t *uv = out + (size_t)w * h;
		for (size_t i = 0; i < (size_t)cw * (h / 2); i++) {
			uv[2 * i] = ct[U[i]];
			uv[2 * i + 1] = ct[V[i]];
		}
		return 0;
	}
	case PICTURE_YU12:
	case PICTURE_YV12: {
		size_t n = (size_t)w * h, q = n / 4;
		for (size_t i = 0; i < n; i++)
			out[i] = lt[Y[i]];
		uint8_t *first = out + n, *second = first + q;
		const uint8_t *a = layout == PICTURE_YU12 ? U : V, *b = layout == PICTURE_YU12 ? V : U;
		for (size_t i = 0; i < q; i++) {
			first[i] = ct[a[i]];
			second[i] = ct[b[i]];
		}
		return 0;
	}
	case PICTURE_YUV444:
		for (unsigned y = 0; y < h; y++) {
			const uint8_t *yr = Y + (size_t)y * w, *ur = U + (size_t)(y / 2) * cw,
				      *vr = V + (size_t)(y / 2) * cw;
			uint8_t *o = out + (size_t)y * w * 3;
			for (unsigned x = 0; x < w; x++) {
				o[3 * x] = lt[yr[x]];
				o[3 * x + 1] = ct[ur[x / 2]];
				o[3 * x + 2] = ct[vr[x / 2]];
			}
		}
		return 0;
	case PICTURE_RGB24:
	case PICTURE_BGR24:
	case PICTURE_SBGGR8:
	case PICTURE_SGBRG8:
	case PICTURE_SGRBG8:
	case PICTURE_SRGGB8: {
		bool bgr = layout == PICTURE_BGR24, bayer = picture_bayer_colour(layout, 0, 0) >= 0;
		for (unsigned y = 0; y < h; y++) {
			const uint8_t *yr = Y + (size_t)y * w, *ur = U + (size_t)(y / 2) * cw,
				      *vr = V + (size_t)(y / 2) * cw;
			uint8_t *o = out + (size_t)y * w * 3;
			for (unsigned x = 0; x < w; x++) {
				uint8_t rgb[3];
				int cu, cv;
				if (math == PICTURE_MATH_JPEGDEC) {
					/* Triangle filter: 3/4 of this sample, 1/4 of the
					 * neighbour on the pixel's side, rounding as libjpeg. */
					unsigned i = x / 2;
					unsigned n = x % 2 ? (i + 1 < cw ? i + 1 : i) : (i ? i - 1 : 0);
					int bias = x % 2 ? 2 : 1;
					cu = (3 * ct[ur[i]] + ct[ur[n]] + bias) >> 2;
					cv = (3 * ct[vr[i]] + ct[vr[n]] + bias) >> 2;
				} else if (math == PICTURE_MATH_JPEGMERGED) {
					cu = ct[ur[x / 2]];
					cv = ct[vr[x / 2]];
				} else {
					cu = ur[x / 2];
					cv = vr[x / 2];
				}
				to_rgb(math, lt[yr[x]], cu, cv, rgb);
				if (bayer) {
					out[(size_t)y * w + x] = rgb[picture_bayer_colour(layout, x, y)];
					continue;
				}
				o[3 * x] = rgb[bgr ? 2 : 0];
				o[3 * x + 1] = rgb[1];
				o[3 * x + 2] = rgb[bgr ? 0 : 2];
			}
		}
		return 0;
	}
	}
	return -EINVAL;
}

int picture_generate(enum picture_layout layout, enum picture_math math, uint8_t *out,
		     unsigned w, unsigned h, unsigned phase, int brightness)
{
	if (!out || !picture_frame_size(layout, w, h))
		return -EINVAL;
	if (layout == PICTURE_YU12 && math != PICTURE_MATH_JFIF)
		return picture_render(out, w, h, phase, brightness);
	uint8_t *yu12 = malloc(picture_frame_size(PICTURE_YU12, w, h));
	if (!yu12)
		return -ENOMEM;
	int err = picture_render(yu12, w, h, phase, brightness);
	if (!err)
		err = picture_convert(yu12, w, h, layout, math, out);
	free(yu12);
	return err;
}

/* ---- comparison ---- */

/* One plane of a layout: which pixel each byte belongs to and whether it is
 * luma (for the bias). */
struct plane {
	size_t offset;
	unsigned row_bytes, rows;
	unsigned bytes_per_px_num, bytes_per_px_den; /* pixel x = byte * den / num */
	unsigned row_scale;                           /* pixel y = row * row_scale */
	unsigned luma_mod;                            /* luma when byte % luma_mod == luma_phase; 0: none */
	unsigned luma_phase;
};

static unsigned planes_of(enum picture_layout layout, unsigned w, unsigned h, struct plane p[3])
{
	size_t n = (size_t)w * h;
	switch (layout) {
	case PICTURE_YUYV:
		p[0] = (struct plane){ 0, 2 * w, h, 2, 1, 1, 2, 0 };
		return 1;
	case PICTURE_UYVY:
		p[0] = (struct plane){ 0, 2 * w, h, 2, 1, 1, 2, 1 };
		return 1;
	case PICTURE_NV12:
		p[0] = (struct plane){ 0, w, h, 1, 1, 1, 1, 0 };
		p[1] = (struct plane){ n, w, h / 2, 1, 1, 2, 0, 0 };
		return 2;
	case PICTURE_YU12:
	case PICTURE_YV12:
		p[0] = (struct plane){ 0, w, h, 1, 1, 1, 1, 0 };
		p[1] = (struct plane){ n, w / 2, h / 2, 1, 2, 2, 0, 0 };
		p[2] = (struct plane){ n + n / 4, w / 2, h / 2, 1, 2, 2, 0, 0 };
		return 3;
	case PICTURE_RGB24:
	case PICTURE_BGR24:
		p[0] = (struct plane){ 0, 3 * w, h, 3, 1, 1, 1, 0 };
		return 1;
	case PICTURE_YUV444:
		p[0] = (struct plane){ 0, 3 * w, h, 3, 1, 1, 3, 0 };
		return 1;
	case PICTURE_SBGGR8:
	case PICTURE_SGBRG8:
	case PICTURE_SGRBG8:
	case PICTURE_SRGGB8: /* every sample counts toward the bias */
		p[0] = (struct plane){ 0, w, h, 1, 1, 1, 1, 0 };
		return 1;
	}
	return 0;
}

int picture_compare(enum picture_layout layout, enum picture_math math, const uint8_t *frame,
		    const uint8_t *expected_yu12, unsigned w, unsigned h, struct picture_diff *diff)
{
	size_t size = picture_frame_size(layout, w, h);
	if (!frame || !expected_yu12 || !diff || !size)
		return -EINVAL;
	memset(diff, 0, sizeof(*diff));
	unsigned nbx = (w + PICTURE_BLOCK - 1) / PICTURE_BLOCK,
		 nby = (h + PICTURE_BLOCK - 1) / PICTURE_BLOCK;
	uint8_t *want = malloc(size);
	uint64_t *bsum = calloc((size_t)nbx * nby, sizeof(*bsum));
	uint64_t *bcount = calloc((size_t)nbx * nby, sizeof(*bcount));
	/* a row's bytes fall into column blocks in runs (the block of byte b
	 * grows with b): each run is summed on its own, so the inner loop is
	 * plain arithmetic the compiler can vectorize */
	struct run { unsigned block, from, to; } *runs = malloc(sizeof(*runs) * 3 * (size_t)w);
	if (!want || !bsum || !bcount || !runs) {
		free(want);
		free(bsum);
		free(bcount);
		free(runs);
		return -ENOMEM;
	}
	int err = picture_convert(expected_yu12, w, h, layout, math, want);
	if (err)
		goto out;

	struct plane planes[3];
	unsigned np = planes_of(layout, w, h, planes);
	/* The bias is the picture's: the band's blocks do not follow brightness. */
	unsigned band = stamp_band_height(w);
	uint64_t abs_sum = 0, samples = 0, mismatches = 0, luma_n = 0;
	int64_t luma_signed = 0;
	for (unsigned k = 0; k < np; k++) {
		const struct plane *p = &planes[k];
		unsigned nruns = 0;
		for (unsigned b = 0; b < p->row_bytes; b++) {
			unsigned block = (unsigned)((uint64_t)b * p->bytes_per_px_den /
						    p->bytes_per_px_num) /
					 PICTURE_BLOCK;
			if (!nruns || runs[nruns - 1].block != block)
				runs[nruns++] = (struct run){ block, b, b };
			runs[nruns - 1].to = b + 1;
		}
		for (unsigned r = 0; r < p->rows; r++) {
			const uint8_t *got = frame + p->offset + (size_t)r * p->row_bytes;
			const uint8_t *exp = want + p->offset + (size_t)r * p->row_bytes;
			uint64_t *rsum = bsum + (size_t)(r * p->row_scale / PICTURE_BLOCK) * nbx;
			uint64_t *rcount = bcount + (size_t)(r * p->row_scale / PICTURE_BLOCK) * nbx;
			bool bias_row = p->luma_mod && r * p->row_scale >= band;
			uint64_t row_abs = 0;
			int64_t row_signed = 0;
			for (unsigned i = 0; i < nruns; i++) {
				const struct run *run = &runs[i];
				uint32_t run_abs = 0, run_mismatches = 0;
				for (unsigned b = run->from; b < run->to; b++) {
					int d = (int)got[b] - (int)exp[b];
					uint32_t a = (uint32_t)(d < 0 ? -d : d);
					run_abs += a;
					run_mismatches += a != 0;
				}
				rcount[run->block] += run->to - run->from;
				rsum[run->block] += run_abs;
				row_abs += run_abs;
				mismatches += run_mismatches;
			}
			/* luma bytes: every luma_mod-th one */
			if (p->luma_mod)
				for (unsigned b = p->luma_phase; b < p->row_bytes; b += p->luma_mod)
					row_signed += (int)got[b] - (int)exp[b];
			if (bias_row) {
				luma_signed += row_signed;
				luma_n += p->row_bytes / p->luma_mod;
			}
			abs_sum += row_abs;
		}
		samples += (uint64_t)p->rows * p->row_bytes;
	}
	diff->samples = samples;
	diff->mismatches = mismatches;
	diff->mae = samples ? (double)abs_sum / (double)samples : 0;
	diff->bias = luma_n ? (double)luma_signed / (double)luma_n : 0;
	for (unsigned by = 0; by < nby; by++)
		for (unsigned bx = 0; bx < nbx; bx++) {
			size_t i = (size_t)by * nbx + bx;
			double m = bcount[i] ? (double)bsum[i] / (double)bcount[i] : 0;
			if (m > diff->block) {
				diff->block = m;
				diff->block_x = bx * PICTURE_BLOCK;
				diff->block_y = by * PICTURE_BLOCK;
			}
		}
out:
	free(want);
	free(bsum);
	free(bcount);
	free(runs);
	return err;
}

bool picture_within(const struct picture_diff *d, const struct picture_tolerance *t)
{
	if (t->exact)
		return d->mismatches == 0;
	double bias = d->bias < 0 ? -d->bias : d->bias;
	return d->mae <= t->mae && bias <= t->bias && d->block <= t->block;
}

double picture_mean_luma(enum picture_layout layout, const uint8_t *frame, unsigned w, unsigned h)
{
	if (!frame || !picture_frame_size(layout, w, h))
		return 0;
	size_t n = (size_t)w * h;
	uint64_t sum = 0;
	switch (layout) {
	case PICTURE_YUYV:
		for (size_t i = 0; i < n; i++)
			sum += frame[2 * i];
		break;
	case PICTURE_UYVY:
		for (size_t i = 0; i < n; i++)
			sum += frame[2 * i + 1];
		break;
	case PICTURE_NV12:
	case PICTURE_YU12:
	case PICTURE_YV12:
		for (size_t i = 0; i < n; i++)
			sum += frame[i];
		break;
	case PICTURE_YUV444:
		for (size_t i = 0; i < n; i++)
			sum += frame[3 * i];
		break;
	case PICTURE_RGB24:
	case PICTURE_BGR24: {
		unsigned ri = layout == PICTURE_RGB24 ? 0 : 2, bi = 2 - ri;
		for (size_t i = 0; i < n; i++)
			sum += (77u * frame[3 * i + ri] + 150u * frame[3 * i + 1] +
				29u * frame[3 * i + bi] + 128) >> 8;
		break;
	}
	case PICTURE_SBGGR8: /* the mean of the samples: half of them green */
	case PICTURE_SGBRG8:
	case PICTURE_SGRBG8:
	case PICTURE_SRGGB8:
		for (size_t i = 0; i < n; i++)
			sum += frame[i];
		break;
	}
	return (double)sum / (double)n;
}
