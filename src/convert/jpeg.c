/* SPDX-License-Identifier: GPL-2.0-or-later */
/* MJPEG to RGB24/BGR24 (libjpeg colour conversion and upsampling) and to
 * YU12/YV12 (libjpeg raw YCbCr planes written into the frame's planes for
 * 4:2:2 and 4:2:0, upsampled rows scaled down for anything else). */
#include "convert/jpeg.h"

#include <errno.h>
#include <linux/videodev2.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#define MAX_ROWS 16 /* one iMCU row: max_v_samp_factor (<= 2 here) * DCTSIZE */

struct convert_jpeg {
	struct jpeg_decompress_struct d;
	struct jpeg_error_mgr err;
	jmp_buf bail;
	bool refused;
	char why[JMSG_LENGTH_MAX];
	uint8_t *scratch; /* rows libjpeg writes that the frame does not keep */
	size_t scratch_len;
};

/* Never exit(): back to convert_jpeg_decode. */
static void on_error(j_common_ptr cinfo)
{
	struct convert_jpeg *j = cinfo->client_data;
	cinfo->err->format_message(cinfo, j->why);
	longjmp(j->bail, 1);
}

/* Warnings mean damaged data; extraneous bytes before a marker (padding
 * some cameras add after the scan) do not. Trace messages are ignored. */
static void on_message(j_common_ptr cinfo, int level)
{
	struct convert_jpeg *j = cinfo->client_data;
	if (level != -1 || cinfo->err->msg_code == JWRN_EXTRANEOUS_DATA)
		return;
	if (!j->refused)
		cinfo->err->format_message(cinfo, j->why);
	j->refused = true;
}

/* 0, or -ENOMEM when libjpeg cannot allocate. */
static int create(struct convert_jpeg *j)
{
	j->d.err = jpeg_std_error(&j->err);
	j->err.error_exit = on_error;
	j->err.emit_message = on_message;
	j->d.client_data = j;
	if (setjmp(j->bail))
		return -ENOMEM;
	jpeg_create_decompress(&j->d);
	return 0;
}

struct convert_jpeg *convert_jpeg_new(void)
{
	struct convert_jpeg *j = calloc(1, sizeof(*j));
	if (j && create(j) < 0) {
		free(j);
		j = NULL;
	}
	return j;
}

void convert_jpeg_free(struct convert_jpeg *j)
{
	if (!j)
		return;
	jpeg_destroy_decompress(&j->d);
	free(j->scratch);
	free(j);
}

const char *convert_jpeg_error(const struct convert_jpeg *j)
{
	return j->why;
}

/* Chroma is not interpolated (libjpeg's merged upsampling: each chroma
 * sample serves its 2 or 2x2 pixels), as ffmpeg's unscaled swscale does for
 * the same conversion; fancy upsampling costs a fifth more time (1080p,
 * host: 233 against 278 frames/s). Several rows asked per call: asked
 * for one, the merged upsampler (two rows at a time for 4:2:0) copies
 * through a spare row. */
static int read_rgb(struct convert_jpeg *j, unsigned width, unsigned height, uint32_t fourcc,
		    uint8_t *dst)
{
	j->d.out_color_space = fourcc == V4L2_PIX_FMT_RGB24 ? JCS_RGB : JCS_EXT_BGR;
	j->d.do_fancy_upsampling = FALSE;
	jpeg_start_decompress(&j->d);
	if (j->d.output_width != width || j->d.output_height != height ||
	    j->d.output_components != 3)
		return -EBADMSG;
	size_t stride = (size_t)width * 3;
	JSAMPROW rows[MAX_ROWS];
	while (j->d.output_scanline < height) {
		unsigned top = j->d.output_scanline, n = height - top;
		if (n > MAX_ROWS)
			n = MAX_ROWS;
		for (unsigned r = 0; r < n; r++)
			rows[r] = dst + (size_t)(top + r) * stride;
		if (jpeg_read_scanlines(&j->d, rows, n) == 0)
			return -EBADMSG;
	}
	return 0;
}

/* 4:2:2 or 4:2:0: with a width of whole 16-pixel blocks the planes' rows
 * are then exactly the frame's rows. */
static bool raw_fits(const struct jpeg_decompress_struct *d)
{
	const jpeg_component_info *c = d->comp_info;
	return d->num_components == 3 && d->jpeg_color_space == JCS_YCbCr &&
	       c[0].h_samp_factor == 2 && (c[0].v_samp_factor == 1 || c[0].v_samp_factor == 2) &&
	       c[1].h_samp_factor == 1 && c[1].v_samp_factor == 1 && c[2].h_samp_factor == 1 &&
	       c[2].v_samp_factor == 1;
}

/* Any other layout (4:4:4, 4:4:0, 4:1:1, grey...): libjpeg's upsampled
 * YCbCr (or grey) rows, two at a time, luma copied, chroma averaged over
 * each 2x2 block. libv4lconvert's own JPEG decoder, the other way to get
 * these, reads past the frame on damaged ones. */
static int read_planar_scaled(struct convert_jpeg *j, unsigned width, unsigned height,
			      uint8_t *y, uint8_t *u, uint8_t *v)
{
	bool grey = j->d.jpeg_color_space == JCS_GRAYSCALE;
	j->d.out_color_space = grey ? JCS_GRAYSCALE : JCS_YCbCr;
	jpeg_start_decompress(&j->d);
	unsigned comps = grey ? 1 : 3;
	if (j->d.output_width != width || j->d.output_height != height ||
	    j->d.output_components != (int)comps)
		return -EBADMSG;
	size_t cw = width / 2, stride = (size_t)width * comps;
	for (unsigned line = 0; line < height; line += 2) {
		JSAMPROW rows[2] = { j->scratch, j->scratch + stride };
		unsigned n = height - line < 2 ? 1 : 2;
		for (unsigned r = 0; r < n; r++)
			if (jpeg_read_scanlines(&j->d, &rows[r], 1) != 1)
				return -EBADMSG;
		for (unsigned r = 0; r < n; r++)
			for (unsigned x = 0; x < width; x++)
				y[(size_t)(line + r) * width + x] = rows[r][x * comps];
		if (n < 2)
			break; /* an odd last row has no chroma row of its own */
		uint8_t *ur = u + (size_t)(line / 2) * cw, *vr = v + (size_t)(line / 2) * cw;
		for (size_t x = 0; x < cw; x++) {
			if (grey) {
				ur[x] = vr[x] = 128;
				continue;
			}
			const uint8_t *a = rows[0] + x * 6, *b = rows[1] + x * 6;
			ur[x] = (uint8_t)((a[1] + a[4] + b[1] + b[4] + 2) / 4);
			vr[x] = (uint8_t)((a[2] + a[5] + b[2] + b[5] + 2) / 4);
		}
	}
	return 0;
}

/* Luma rows go to the Y plane; chroma rows to the chroma planes, every
 * other one for a 4:2:2 JPEG (vertical decimation by dropping rows: no
 * pixel loop); rows past the frame go to scratch. */
static int read_planar(struct convert_jpeg *j, unsigned width, unsigned height, uint32_t fourcc,
		       uint8_t *dst)
{
	if (width % 16)
		return -EINVAL;
	size_t cw = width / 2;
	uint8_t *y = dst, *u = dst + (size_t)width * height, *v = u + cw * (height / 2);
	if (fourcc == V4L2_PIX_FMT_YVU420) {
		uint8_t *t = u;
		u = v;
		v = t;
	}
	if (!raw_fits(&j->d))
		return read_planar_scaled(j, width, height, y, u, v);
	j->d.raw_data_out = TRUE;
	j->d.out_color_space = JCS_YCbCr;
	jpeg_start_decompress(&j->d);
	if (j->d.output_width != width || j->d.output_height != height)
		return -EBADMSG;
	unsigned vmax = (unsigned)j->d.max_v_samp_factor;
	unsigned rows = vmax * DCTSIZE;           /* luma rows per call */
	bool decimate = vmax == 1;                /* 4:2:2: drop odd chroma rows */
	JSAMPROW yrows[MAX_ROWS], urows[MAX_ROWS], vrows[MAX_ROWS];
	JSAMPARRAY planes[3] = { yrows, urows, vrows };
	while (j->d.output_scanline < height) {
		unsigned top = j->d.output_scanline;
		for (unsigned r = 0; r < rows; r++) {
			unsigned line = top + r;
			yrows[r] = line < height ? y + (size_t)line * width : j->scratch;
		}
		for (unsigned r = 0; r < DCTSIZE; r++) {
			/* chroma row r of this call covers luma row top + r * (2 / vmax)... */
			unsigned cline = decimate ? top + r : top / 2 + r;
			bool keep = decimate ? cline % 2 == 0 && cline < height : cline < height / 2;
			unsigned out = decimate ? cline / 2 : cline;
			urows[r] = keep ? u + out * cw : j->scratch;
			vrows[r] = keep ? v + out * cw : j->scratch;
		}
		if (jpeg_read_raw_data(&j->d, planes, rows) != rows)
			return -EBADMSG;
	}
	return 0;
}

int convert_jpeg_decode(struct convert_jpeg *j, const uint8_t *src, size_t len, unsigned width,
			unsigned height, uint32_t dst_fourcc, uint8_t *dst)
{
	int ret;
	j->refused = false;
	j->why[0] = '\0';
	/* Two rows of the widest plane rounded up to whole blocks. */
	size_t need = ((size_t)width + 64) * 3 * 2;
	if (j->scratch_len < need) {
		uint8_t *s = realloc(j->scratch, need);
		if (!s)
			return -ENOMEM;
		j->scratch = s;
		j->scratch_len = need;
	}
	if (setjmp(j->bail)) {
		jpeg_abort_decompress(&j->d);
		return -EBADMSG;
	}
	jpeg_mem_src(&j->d, src, (unsigned long)len);
	if (jpeg_read_header(&j->d, TRUE) != JPEG_HEADER_OK) {
		ret = -EBADMSG;
		goto out;
	}
	if (j->d.image_width != width || j->d.image_height != height) {
		snprintf(j->why, sizeof(j->why), "JPEG is %ux%u, not %ux%u", j->d.image_width,
			 j->d.image_height, width, height);
		ret = -EBADMSG;
		goto out;
	}
	if (dst_fourcc == V4L2_PIX_FMT_RGB24 || dst_fourcc == V4L2_PIX_FMT_BGR24)
		ret = read_rgb(j, width, height, dst_fourcc, dst);
	else
		ret = read_planar(j, width, height, dst_fourcc, dst);
	if (ret == 0)
		jpeg_finish_decompress(&j->d);
	if (ret == 0 && j->refused)
		ret = -EBADMSG;
out:
	jpeg_abort_decompress(&j->d);
	return ret;
}
