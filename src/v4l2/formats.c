/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Format negotiation as uvcvideo (Linux 6.1) does it; see formats.h. */
#include "v4l2/formats.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

/* --------------------------------------------------------- descriptions */

/* Every fourcc the GUID table of uvc/descriptors.c can produce, with the
 * description the 6.1 core's v4l_fill_fmtdesc sets (6.1 renamed the NV
 * formats' "Y/CbCr" to "Y/UV"). */
static const struct {
	uint32_t fourcc;
	bool compressed;
	const char *description;
} fmt_names[] = {
	{ V4L2_PIX_FMT_YUYV, false, "YUYV 4:2:2" },
	{ V4L2_PIX_FMT_UYVY, false, "UYVY 4:2:2" },
	{ V4L2_PIX_FMT_NV12, false, "Y/UV 4:2:0" },
	{ V4L2_PIX_FMT_YVU420, false, "Planar YVU 4:2:0" },
	{ V4L2_PIX_FMT_YUV420, false, "Planar YUV 4:2:0" },
	{ V4L2_PIX_FMT_M420, false, "YUV 4:2:0 (M420)" },
	{ V4L2_PIX_FMT_GREY, false, "8-bit Greyscale" },
	{ V4L2_PIX_FMT_Y10, false, "10-bit Greyscale" },
	{ V4L2_PIX_FMT_Y12, false, "12-bit Greyscale" },
	{ V4L2_PIX_FMT_Y16, false, "16-bit Greyscale" },
	{ V4L2_PIX_FMT_Y8I, false, "Interleaved 8-bit Greyscale" },
	{ V4L2_PIX_FMT_Y12I, false, "Interleaved 12-bit Greyscale" },
	{ V4L2_PIX_FMT_Z16, false, "16-bit Depth" },
	{ V4L2_PIX_FMT_INZI, false, "Planar 10:16 Greyscale Depth" },
	{ V4L2_PIX_FMT_CNF4, false, "4-bit Depth Confidence (Packed)" },
	{ V4L2_PIX_FMT_SBGGR8, false, "8-bit Bayer BGBG/GRGR" },
	{ V4L2_PIX_FMT_SGBRG8, false, "8-bit Bayer GBGB/RGRG" },
	{ V4L2_PIX_FMT_SGRBG8, false, "8-bit Bayer GRGR/BGBG" },
	{ V4L2_PIX_FMT_SRGGB8, false, "8-bit Bayer RGRG/GBGB" },
	{ V4L2_PIX_FMT_SRGGB10P, false, "10-bit Bayer RGRG/GBGB Packed" },
	{ V4L2_PIX_FMT_SBGGR16, false, "16-bit Bayer BGBG/GRGR" },
	{ V4L2_PIX_FMT_SGBRG16, false, "16-bit Bayer GBGB/RGRG" },
	{ V4L2_PIX_FMT_SGRBG16, false, "16-bit Bayer GRGR/BGBG" },
	{ V4L2_PIX_FMT_SRGGB16, false, "16-bit Bayer RGRG/GBGB" },
	{ V4L2_PIX_FMT_RGB565, false, "16-bit RGB 5-6-5" },
	{ V4L2_PIX_FMT_BGR24, false, "24-bit BGR 8-8-8" },
	{ V4L2_PIX_FMT_XBGR32, false, "32-bit BGRX 8-8-8-8" },
	{ V4L2_PIX_FMT_MJPEG, true, "Motion-JPEG" },
	{ V4L2_PIX_FMT_H264, true, "H.264" },
	{ V4L2_PIX_FMT_HEVC, true, "HEVC" },
};

const char *fmt_describe(uint32_t fourcc, uint32_t *flags)
{
	for (size_t i = 0; i < sizeof(fmt_names) / sizeof(fmt_names[0]); i++) {
		if (fmt_names[i].fourcc != fourcc)
			continue;
		if (flags)
			*flags = fmt_names[i].compressed ? V4L2_FMT_FLAG_COMPRESSED : 0;
		return fmt_names[i].description;
	}
	if (flags)
		*flags = 0;
	return NULL;
}

/* ------------------------------------------------------------ intervals */

void fmt_simplify_fraction(uint32_t *numerator, uint32_t *denominator, unsigned n_terms,
			   unsigned threshold)
{
	uint32_t an[16];
	uint32_t x = *numerator, y = *denominator, r;
	unsigned n;

	if (n_terms > sizeof(an) / sizeof(an[0]))
		n_terms = sizeof(an) / sizeof(an[0]);
	/* Continued fraction terms, stopping at the first one >= threshold:
	 * it stands for a remainder too small to matter. */
	for (n = 0; n < n_terms && y != 0; n++) {
		an[n] = x / y;
		if (an[n] >= threshold) {
			if (n < 2)
				n++;
			break;
		}
		r = x - an[n] * y;
		x = y;
		y = r;
	}
	/* Fold the kept terms back into a fraction. */
	x = 0;
	y = 1;
	for (unsigned i = n; i > 0; i--) {
		r = y;
		y = an[i - 1] * y + x;
		x = r;
	}
	*numerator = y;
	*denominator = x;
}

struct v4l2_fract fmt_interval_fract(uint32_t interval)
{
	struct v4l2_fract f = { .numerator = interval, .denominator = 10000000 };
	fmt_simplify_fraction(&f.numerator, &f.denominator, 8, 333);
	return f;
}

uint32_t fmt_fract_to_interval(uint32_t numerator, uint32_t denominator)
{
	if (denominator == 0 || numerator / denominator >= UINT32_MAX / 10000000)
		return UINT32_MAX;
	/* 32-bit only, as uvcvideo: halve the multiplier and the denominator
	 * until the product fits. */
	uint32_t multiplier = 10000000;
	while (numerator > UINT32_MAX / multiplier) {
		multiplier /= 2;
		denominator /= 2;
	}
	return denominator ? numerator * multiplier / denominator : 0;
}

/* uvcvideo stores a zero interval as 1 (bogus devices; avoids dividing
 * by zero). */
static uint32_t stored(uint32_t interval)
{
	return interval ? interval : 1;
}

uint32_t fmt_try_interval(const struct uvc_frame *frame, uint32_t interval)
{
	if (!frame->continuous) {
		if (!frame->n_intervals)
			return interval;
		uint32_t best = UINT32_MAX;
		unsigned i;
		/* Intervals are expected in order: stop once the distance
		 * grows, and take the previous one. */
		for (i = 0; i < frame->n_intervals; i++) {
			uint32_t iv = stored(frame->intervals[i]);
			uint32_t dist = interval > iv ? interval - iv : iv - interval;
			if (dist > best)
				break;
			best = dist;
		}
		return stored(frame->intervals[i - 1]);
	}
	uint32_t min = stored(frame->range.min), max = stored(frame->range.max);
	uint32_t step = stored(frame->range.step);
	interval = min + (interval - min + step / 2) / step * step;
	return interval > max ? max : interval;
}

uint32_t fmt_default_interval(const struct uvc_frame *frame)
{
	uint32_t first, last;
	if (frame->continuous) {
		first = stored(frame->range.min);
		last = stored(frame->range.max);
	} else if (frame->n_intervals) {
		first = stored(frame->intervals[0]);
		last = stored(frame->intervals[frame->n_intervals - 1]);
	} else {
		return frame->default_interval;
	}
	uint32_t d = frame->default_interval > first ? frame->default_interval : first;
	return d < last ? d : last;
}

/* -------------------------------------------------------------- formats */

bool fmt_is_compressed(const struct uvc_format *format)
{
	return format->kind == UVC_FORMAT_MJPEG ||
	       (format->kind == UVC_FORMAT_FRAME_BASED && format->flags);
}

unsigned fmt_count(const struct uvc_streaming *stream)
{
	unsigned n = 0;
	for (unsigned i = 0; i < stream->n_formats; i++)
		n += stream->formats[i].fourcc != 0;
	return n;
}

const struct uvc_format *fmt_at(const struct uvc_streaming *stream, unsigned index)
{
	for (unsigned i = 0; i < stream->n_formats; i++) {
		if (!stream->formats[i].fourcc)
			continue;
		if (index-- == 0)
			return &stream->formats[i];
	}
	return NULL;
}

const struct uvc_format *fmt_find(const struct uvc_streaming *stream, uint32_t fourcc)
{
	if (!fourcc)
		return NULL;
	for (unsigned i = 0; i < stream->n_formats; i++)
		if (stream->formats[i].fourcc == fourcc)
			return &stream->formats[i];
	return NULL;
}

int fmt_enum(const struct uvc_streaming *stream, struct v4l2_fmtdesc *desc)
{
	if (desc->type != V4L2_BUF_TYPE_VIDEO_CAPTURE)
		return -EINVAL;
	const struct uvc_format *format = fmt_at(stream, desc->index);
	if (!format)
		return -EINVAL;

	uint32_t index = desc->index, core_flags;
	const char *name = fmt_describe(format->fourcc, &core_flags);
	memset(desc, 0, sizeof(*desc));
	desc->index = index;
	desc->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	desc->pixelformat = format->fourcc;
	/* The driver's flag, then the core's for a fourcc it knows. */
	desc->flags = (fmt_is_compressed(format) ? V4L2_FMT_FLAG_COMPRESSED : 0) | core_flags;
	if (name) {
		strncpy((char *)desc->description, name, sizeof(desc->description) - 1);
	} else {
		/* Not reached with the GUID table's fourccs; the core would
		 * print the fourcc itself. */
		for (int i = 0; i < 4; i++)
			desc->description[i] = (uint8_t)(format->fourcc >> (8 * i));
	}
	return 0;
}

int fmt_enum_framesizes(const struct uvc_streaming *stream, struct v4l2_frmsizeenum *fs)
{
	const struct uvc_format *format = fmt_find(stream, fs->pixel_format);
	if (!format)
		return -EINVAL;

	const struct uvc_frame *frame = NULL;
	uint32_t index = 0;
	unsigned i;
	for (i = 0; i < format->n_frames; i++) {
		const struct uvc_frame *f = &format->frames[i];
		if (frame && frame->width == f->width && frame->height == f->height)
			continue;
		frame = f;
		if (index == fs->index)
			break;
		index++;
	}
	if (i == format->n_frames)
		return -EINVAL;

	/* The core clears everything after pixel_format. */
	memset(&fs->type, 0, sizeof(*fs) - offsetof(struct v4l2_frmsizeenum, type));
	fs->type = V4L2_FRMSIZE_TYPE_DISCRETE;
	fs->discrete.width = frame->width;
	fs->discrete.height = frame->height;
	return 0;
}

int fmt_enum_frameintervals(const struct uvc_streaming *stream, struct v4l2_frmivalenum *fi)
{
	const struct uvc_format *format = fmt_find(stream, fi->pixel_format);
	if (!format)
		return -EINVAL;

	const struct uvc_frame *frame = NULL;
	uint32_t index = fi->index;
	unsigned i;
	for (i = 0; i < format->n_frames; i++) {
		const struct uvc_frame *f = &format->frames[i];
		if (f->width != fi->width || f->height != fi->height)
			continue;
		unsigned n = f->continuous ? 1 : f->n_intervals;
		frame = f;
		if (index < n)
			break;
		index -= n;
	}
	if (i == format->n_frames)
		return -EINVAL;

	/* The core clears everything after height. */
	memset(&fi->type, 0, sizeof(*fi) - offsetof(struct v4l2_frmivalenum, type));
	if (!frame->continuous) {
		fi->type = V4L2_FRMIVAL_TYPE_DISCRETE;
		fi->discrete = fmt_interval_fract(stored(frame->intervals[index]));
	} else {
		fi->type = V4L2_FRMIVAL_TYPE_STEPWISE;
		fi->stepwise.min = fmt_interval_fract(stored(frame->range.min));
		fi->stepwise.max = fmt_interval_fract(stored(frame->range.max));
		fi->stepwise.step = fmt_interval_fract(stored(frame->range.step));
	}
	return 0;
}

/* ----------------------------------------------------------- try format */

uint32_t fmt_frame_buffer_size(const struct uvc_format *format, const struct uvc_frame *frame)
{
	if (!fmt_is_compressed(format))
		return (uint32_t)format->bpp * frame->width * frame->height / 8;
	return format->kind == UVC_FORMAT_MJPEG ? frame->max_buffer_size : 0;
}

static uint32_t bytes_per_line(const struct uvc_format *format, const struct uvc_frame *frame)
{
	switch (format->fourcc) {
	case V4L2_PIX_FMT_NV12:
	case V4L2_PIX_FMT_YVU420:
	case V4L2_PIX_FMT_YUV420:
	case V4L2_PIX_FMT_M420:
		return frame->width; /* the luma plane */
	default:
		/* 6.1 applies bBitsPerPixel to frame-based formats too (0 for
		 * MJPEG, which has none). */
		return (uint32_t)format->bpp * frame->width / 8;
	}
}

/* The color matching descriptor's values in V4L2 terms (uvc_colorspace,
 * uvc_xfer_func, uvc_ycbcr_enc); without one: sRGB and defaults. */
static void color(const struct uvc_format *format, struct v4l2_pix_format *pix)
{
	static const uint32_t colorspaces[] = {
		V4L2_COLORSPACE_SRGB, /* unspecified */
		V4L2_COLORSPACE_SRGB,
		V4L2_COLORSPACE_470_SYSTEM_M,
		V4L2_COLORSPACE_470_SYSTEM_BG,
		V4L2_COLORSPACE_SMPTE170M,
		V4L2_COLORSPACE_SMPTE240M,
	};
	static const uint32_t xfer_funcs[] = {
		V4L2_XFER_FUNC_DEFAULT, V4L2_XFER_FUNC_709, V4L2_XFER_FUNC_709,
		V4L2_XFER_FUNC_709,	V4L2_XFER_FUNC_709, V4L2_XFER_FUNC_SMPTE240M,
		V4L2_XFER_FUNC_NONE,	V4L2_XFER_FUNC_SRGB,
	};
	static const uint32_t ycbcr_encs[] = {
		V4L2_YCBCR_ENC_DEFAULT, V4L2_YCBCR_ENC_709, V4L2_YCBCR_ENC_601,
		V4L2_YCBCR_ENC_601,	V4L2_YCBCR_ENC_601, V4L2_YCBCR_ENC_SMPTE240M,
	};

	if (!format->has_color) {
		pix->colorspace = V4L2_COLORSPACE_SRGB;
		pix->xfer_func = V4L2_XFER_FUNC_DEFAULT;
		pix->ycbcr_enc = V4L2_YCBCR_ENC_DEFAULT;
		return;
	}
	pix->colorspace = format->primaries < sizeof(colorspaces) / sizeof(colorspaces[0])
				  ? colorspaces[format->primaries]
				  : V4L2_COLORSPACE_SRGB;
	pix->xfer_func = format->transfer < sizeof(xfer_funcs) / sizeof(xfer_funcs[0])
				 ? xfer_funcs[format->transfer]
				 : V4L2_XFER_FUNC_DEFAULT;
	pix->ycbcr_enc = format->matrix < sizeof(ycbcr_encs) / sizeof(ycbcr_encs[0])
				 ? ycbcr_encs[format->matrix]
				 : V4L2_YCBCR_ENC_DEFAULT;
}

void fmt_fill_pix(struct v4l2_pix_format *pix, const struct uvc_format *format,
		  const struct uvc_frame *frame, uint32_t sizeimage)
{
	pix->pixelformat = format->fourcc;
	pix->width = frame->width;
	pix->height = frame->height;
	pix->field = V4L2_FIELD_NONE;
	pix->bytesperline = bytes_per_line(format, frame);
	pix->sizeimage = sizeimage;
	color(format, pix);
}

int fmt_try(const struct uvc_streaming *stream, const struct uvc_format *def_format,
	    struct v4l2_format *fmt, struct fmt_choice *choice)
{
	if (fmt->type != V4L2_BUF_TYPE_VIDEO_CAPTURE)
		return -EINVAL;
	struct v4l2_pix_format *pix = &fmt->fmt.pix;

	const struct uvc_format *format = fmt_find(stream, pix->pixelformat);
	if (!format)
		format = def_format && def_format->fourcc ? def_format : fmt_at(stream, 0);
	if (!format)
		return -EINVAL;

	/* Nearest size: the area of the parts of the two rectangles that do
	 * not overlap. uvcvideo reads the request as 16-bit and computes in
	 * unsigned int; so do we, to pick the same frame. */
	uint16_t rw = (uint16_t)pix->width, rh = (uint16_t)pix->height;
	const struct uvc_frame *frame = NULL;
	uint32_t maxd = UINT32_MAX;
	for (unsigned i = 0; i < format->n_frames; i++) {
		const struct uvc_frame *f = &format->frames[i];
		uint32_t w = f->width, h = f->height;
		uint32_t d = (w < rw ? w : rw) * (h < rh ? h : rh);
		d = w * h + (uint32_t)rw * rh - 2 * d;
		if (d < maxd) {
			maxd = d;
			frame = f;
		}
		if (maxd == 0)
			break;
	}
	if (!frame)
		return -EINVAL;

	/* The core's v4l_sanitize_format: without the magic, the fields past
	 * priv are the application's stale bytes. */
	if (pix->priv != V4L2_PIX_FMT_PRIV_MAGIC) {
		pix->flags = 0;
		pix->ycbcr_enc = 0;
		pix->quantization = 0;
		pix->xfer_func = 0;
	}
	fmt_fill_pix(pix, format, frame, fmt_frame_buffer_size(format, frame));
	pix->priv = V4L2_PIX_FMT_PRIV_MAGIC;

	if (choice) {
		choice->format = format;
		choice->frame = frame;
		/* 6.1 asks for the frame's default interval, whatever is
		 * current. */
		choice->interval = fmt_try_interval(frame, fmt_default_interval(frame));
	}
	return 0;
}
