/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The moving test picture shared by the virtual camera and the checker.
 *
 * Deterministic from (phase, width, height, brightness); PICTURE_PHASES
 * phases, phase = sequence % PICTURE_PHASES. Top to bottom:
 *   - the stamp band (stamp.h), black here; the stamp is written per frame;
 *   - 75% colour bars scrolling right by width/16 per phase, with a
 *     vertical luma ripple (triangle, period 64 rows, +-10);
 *   - reversed bars scrolling left;
 *   - a grey ramp scrolling right twice as fast;
 *   - over all of it a box travelling round an ellipse, one turn per cycle.
 * Brightness is added to luma (clamped to 16..235) outside the band.
 *
 * The picture is defined as 4:2:0 limited-range (BT.601) YUV whose chroma is
 * constant over each 2x2 pixel square and whose edges fall on even columns
 * and rows, so YUYV (4:2:2) and NV12 carry it exactly. Pure code, no I/O. */
#ifndef UVCUSE_PICTURE_H
#define UVCUSE_PICTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PICTURE_PHASES 16u
#define PICTURE_MIN_SIZE 16u
#define PICTURE_MAX_SIZE 16384u
#define PICTURE_MAX_PIXELS (64u << 20) /* 64 Mpixel */
#define PICTURE_BLOCK 16u /* side of the blocks compare() judges */

enum picture_layout {
	PICTURE_YUYV,   /* packed 4:2:2 Y0 U Y1 V */
	PICTURE_NV12,   /* Y plane, then interleaved U V plane at 4:2:0 */
	PICTURE_YU12,   /* Y, U, V planes at 4:2:0 (I420) */
	PICTURE_YV12,   /* Y, V, U planes at 4:2:0 */
	PICTURE_RGB24,  /* R G B per pixel */
	PICTURE_BGR24,  /* B G R per pixel */
	PICTURE_YUV444, /* Y Cb Cr per pixel: a decoded JPEG */
	PICTURE_UYVY,   /* packed 4:2:2 U Y0 V Y1 (cameras that send it) */
	/* 8-bit Bayer mosaics (sensors that send them raw): each pixel the one
	 * colour of its RGB (as RGB24 has it) its place in the 2x2 pattern
	 * names, first row first */
	PICTURE_SBGGR8,
	PICTURE_SGBRG8,
	PICTURE_SGRBG8,
	PICTURE_SRGGB8,
};

/* The colour (0 R, 1 G, 2 B) a Bayer layout holds at (x, y); -1 for a
 * layout that is not Bayer. */
int picture_bayer_colour(enum picture_layout layout, unsigned x, unsigned y);

/* How YUV values map to what the layout holds. The picture is BT.601
 * limited-range YUV; a converter may have used other arithmetic. */
enum picture_math {
	PICTURE_MATH_BT601,    /* YUV layouts: limited range as is; RGB: BT.601 limited -> full RGB */
	PICTURE_MATH_JFIF,     /* YUV layouts: full range (JPEG/JFIF YCbCr); RGB: as BT601 */
	PICTURE_MATH_NOEXPAND, /* RGB: JFIF equations on the limited values, luma not expanded
				* (libv4lconvert NV12->RGB); YUV layouts: as BT601 */
	PICTURE_MATH_V4LFAST,  /* RGB: libv4lconvert's shift-only YUYV/YU12->RGB approximation;
				* YUV layouts: as BT601 */
	PICTURE_MATH_JPEGDEC,  /* RGB as a JPEG decoder makes it from the camera's 4:2:2 JPEG:
				* full-range chroma upsampled by the triangle filter
				* ("fancy upsampling"), JFIF equations; YUV layouts: as JFIF */
	PICTURE_MATH_JPEGMERGED, /* RGB as libjpeg's merged upsampling (and ffmpeg's unscaled
				  * swscale) makes it: full-range chroma, each sample for its
				  * two pixels, JFIF equations; YUV layouts: as JFIF */
};

/* Thresholds of picture_within(). Exact means every byte equal. */
struct picture_tolerance {
	bool exact;
	double mae;   /* mean absolute error over every sample */
	double bias;  /* |mean signed error| of luma samples (all samples for RGB) below the band */
	double block; /* mean absolute error of the worst PICTURE_BLOCK square */
};

extern const struct picture_tolerance picture_tolerance_exact;
extern const struct picture_tolerance picture_tolerance_converted; /* RGB/YU12/YV12 from raw */
extern const struct picture_tolerance picture_tolerance_jpeg;      /* JPEG decoded to YCbCr */
extern const struct picture_tolerance picture_tolerance_jpeg_rgb;  /* JPEG decoded to RGB */
extern const struct picture_tolerance picture_tolerance_jpeg_420;  /* JPEG decoded to YU12/YV12 */

struct picture_diff {
	uint64_t samples;    /* bytes compared */
	uint64_t mismatches; /* bytes that differ */
	double mae, bias, block;
	unsigned block_x, block_y; /* top-left pixel of the worst block */
};

/* Even, 16..16384 each way, at most PICTURE_MAX_PIXELS. */
bool picture_size_ok(unsigned width, unsigned height);
/* Bytes of one frame in this layout; 0 when the size is not ok. */
size_t picture_frame_size(enum picture_layout layout, unsigned width, unsigned height);
const char *picture_layout_name(enum picture_layout layout);
const char *picture_math_name(enum picture_math math);

/* The picture as YU12 (limited range), the form everything derives from.
 * The band rows are black. 0 or -EINVAL. */
int picture_render(uint8_t *yu12, unsigned width, unsigned height, unsigned phase, int brightness);

/* Converts a YU12 picture to a layout under some math (exact for YUYV, NV12,
 * YU12, YV12 under BT601). 0 or -EINVAL. */
int picture_convert(const uint8_t *yu12, unsigned width, unsigned height, enum picture_layout layout,
		    enum picture_math math, uint8_t *out);

/* Limited (BT.601) to full range (JFIF) maps, rounded: luma 16..235 to
 * 0..255, chroma 16..240 to 1..255 around 128. */
void picture_full_range_tables(uint8_t luma[256], uint8_t chroma[256]);

/* render + convert. 0, -EINVAL or -ENOMEM. */
int picture_generate(enum picture_layout layout, enum picture_math math, uint8_t *out,
		     unsigned width, unsigned height, unsigned phase, int brightness);

/* Compares a frame in a layout with the expected YU12 picture converted
 * under math. 0, -EINVAL or -ENOMEM. */
int picture_compare(enum picture_layout layout, enum picture_math math, const uint8_t *frame,
		    const uint8_t *expected_yu12, unsigned width, unsigned height,
		    struct picture_diff *diff);

bool picture_within(const struct picture_diff *diff, const struct picture_tolerance *tol);

/* Mean luma of a frame in its own scale (Y for YUV layouts, BT.601 luma of
 * full-range RGB for RGB layouts). */
double picture_mean_luma(enum picture_layout layout, const uint8_t *frame, unsigned width,
			 unsigned height);

#endif
