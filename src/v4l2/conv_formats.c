/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Converted formats in the enumeration, and their source. */
#include "v4l2/conv_formats.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "convert/catalogue.h"
#include "v4l2/formats.h"

#define MAX_INTERVALS 64 /* distinct intervals of one converted size */

unsigned cfmt_offered(const struct uvc_streaming *stream, uint32_t out[4])
{
	uint32_t native[64];
	unsigned n = 0, count = fmt_count(stream);
	for (unsigned i = 0; i < count && n < 64; i++)
		native[n++] = fmt_at(stream, i)->fourcc;
	return convert_offered(native, n, out);
}

bool cfmt_is_converted(const struct uvc_streaming *stream, uint32_t fourcc)
{
	uint32_t offered[CONVERT_N_DESTINATIONS];
	unsigned n = cfmt_offered(stream, offered);
	for (unsigned i = 0; i < n; i++)
		if (offered[i] == fourcc)
			return true;
	return false;
}

int cfmt_enum(const struct uvc_streaming *stream, struct v4l2_fmtdesc *desc)
{
	if (desc->type != V4L2_BUF_TYPE_VIDEO_CAPTURE)
		return -EINVAL;
	unsigned native = fmt_count(stream);
	if (desc->index < native)
		return fmt_enum(stream, desc);
	uint32_t offered[CONVERT_N_DESTINATIONS];
	unsigned n = cfmt_offered(stream, offered);
	uint32_t index = desc->index;
	if (index - native >= n)
		return -EINVAL;
	memset(desc, 0, sizeof(*desc));
	desc->index = index;
	desc->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	desc->pixelformat = offered[index - native];
	/* No V4L2_FMT_FLAG_EMULATED: v4l2-compliance refuses it on a driver. */
	strncpy((char *)desc->description, convert_description(desc->pixelformat),
		sizeof(desc->description) - 1);
	return 0;
}

/* Whether this frame of a native format can feed dst. */
static bool frame_feeds(const struct uvc_format *f, const struct uvc_frame *fr, uint32_t dst)
{
	return convert_is_source(f->fourcc) &&
	       convert_pair_supported(f->fourcc, dst, fr->width, fr->height);
}

static bool size_seen_before(const struct uvc_streaming *stream, uint32_t dst, unsigned fi,
			     unsigned ri, unsigned w, unsigned h)
{
	for (unsigned i = 0; i <= fi; i++) {
		const struct uvc_format *f = fmt_at(stream, i);
		unsigned end = i == fi ? ri : f->n_frames;
		for (unsigned r = 0; r < end; r++)
			if (frame_feeds(f, &f->frames[r], dst) && f->frames[r].width == w &&
			    f->frames[r].height == h)
				return true;
	}
	return false;
}

int cfmt_enum_framesizes(const struct uvc_streaming *stream, struct v4l2_frmsizeenum *fs)
{
	uint32_t dst = fs->pixel_format;
	if (!cfmt_is_converted(stream, dst))
		return fmt_enum_framesizes(stream, fs);
	uint32_t index = 0;
	unsigned count = fmt_count(stream);
	for (unsigned i = 0; i < count; i++) {
		const struct uvc_format *f = fmt_at(stream, i);
		for (unsigned r = 0; r < f->n_frames; r++) {
			const struct uvc_frame *fr = &f->frames[r];
			if (!frame_feeds(f, fr, dst) ||
			    size_seen_before(stream, dst, i, r, fr->width, fr->height))
				continue;
			if (index++ != fs->index)
				continue;
			memset(&fs->type, 0,
			       sizeof(*fs) - offsetof(struct v4l2_frmsizeenum, type));
			fs->type = V4L2_FRMSIZE_TYPE_DISCRETE;
			fs->discrete.width = fr->width;
			fs->discrete.height = fr->height;
			return 0;
		}
	}
	return -EINVAL;
}

static void add_interval(uint32_t *set, unsigned *n, uint32_t interval)
{
	interval = interval ? interval : 1; /* as uvcvideo stores a zero */
	unsigned at = 0;
	while (at < *n && set[at] < interval)
		at++;
	if ((at < *n && set[at] == interval) || *n == MAX_INTERVALS)
		return;
	memmove(&set[at + 1], &set[at], (*n - at) * sizeof(*set));
	set[at] = interval;
	(*n)++;
}

/* The discrete intervals dst lists at w x h, fastest first; how many. */
static unsigned union_intervals(const struct uvc_streaming *stream, uint32_t dst, unsigned w,
				unsigned h, uint32_t set[MAX_INTERVALS])
{
	unsigned n = 0, count = fmt_count(stream);
	for (unsigned i = 0; i < count; i++) {
		const struct uvc_format *f = fmt_at(stream, i);
		for (unsigned r = 0; r < f->n_frames; r++) {
			const struct uvc_frame *fr = &f->frames[r];
			if (!frame_feeds(f, fr, dst) || fr->width != w || fr->height != h)
				continue;
			if (fr->continuous) {
				add_interval(set, &n, fr->range.min);
				add_interval(set, &n, fr->range.max);
			}
			for (unsigned k = 0; !fr->continuous && k < fr->n_intervals; k++)
				add_interval(set, &n, fr->intervals[k]);
		}
	}
	return n;
}

int cfmt_enum_frameintervals(const struct uvc_streaming *stream, struct v4l2_frmivalenum *fi)
{
	uint32_t dst = fi->pixel_format;
	if (!cfmt_is_converted(stream, dst))
		return fmt_enum_frameintervals(stream, fi);
	uint32_t set[MAX_INTERVALS];
	unsigned n = union_intervals(stream, dst, fi->width, fi->height, set);
	if (fi->index >= n)
		return -EINVAL;
	uint32_t interval = set[fi->index];
	memset(&fi->type, 0, sizeof(*fi) - offsetof(struct v4l2_frmivalenum, type));
	fi->type = V4L2_FRMIVAL_TYPE_DISCRETE;
	fi->discrete = fmt_interval_fract(interval);
	return 0;
}

/* The source rule over the camera's formats at one size and interval:
 * the chosen format's index in formats[] (or -ENOENT) and why. */
static int pick_source(const struct uvc_streaming *stream, uint32_t dst, unsigned width,
		       unsigned height, uint32_t interval, const struct uvc_format **picked,
		       enum cfmt_reason *reason)
{
	struct convert_candidate cand[64];
	const struct uvc_format *formats[64];
	size_t n = 0;
	unsigned count = fmt_count(stream);
	for (unsigned i = 0; i < count && n < 64; i++) {
		const struct uvc_format *f = fmt_at(stream, i);
		struct convert_candidate c = { .fourcc = f->fourcc };
		for (unsigned r = 0; r < f->n_frames; r++) {
			const struct uvc_frame *fr = &f->frames[r];
			if (fr->width != width || fr->height != height || !frame_feeds(f, fr, dst))
				continue;
			c.has_size = true;
			if (fr->continuous)
				c.has_interval |= interval >= fr->range.min && interval <= fr->range.max;
			for (unsigned k = 0; !fr->continuous && k < fr->n_intervals; k++)
				c.has_interval |= fr->intervals[k] == interval;
		}
		formats[n] = f;
		cand[n++] = c;
	}
	int pick = convert_choose_source(cand, n);
	if (pick < 0)
		return pick;
	*picked = formats[pick];
	if (formats[pick]->fourcc == V4L2_PIX_FMT_MJPEG)
		*reason = CFMT_MJPEG;
	else
		*reason = cand[pick].has_interval ? CFMT_RAW_AT_INTERVAL : CFMT_RAW_OTHER_INTERVAL;
	return 0;
}

const struct uvc_format *cfmt_source(const struct uvc_streaming *stream, uint32_t dst,
				     unsigned width, unsigned height, uint32_t interval)
{
	const struct uvc_format *f;
	enum cfmt_reason why;
	return pick_source(stream, dst, width, height, interval, &f, &why) ? NULL : f;
}

const char *cfmt_reason_text(enum cfmt_reason reason)
{
	switch (reason) {
	case CFMT_RAW_AT_INTERVAL: return "a raw format has that size at that interval";
	case CFMT_MJPEG: return "no raw format has that size at that interval";
	case CFMT_RAW_OTHER_INTERVAL: return "only a raw format has that size";
	}
	return "?";
}

int cfmt_choose(const struct uvc_streaming *stream, uint32_t dst, unsigned width, unsigned height,
		uint32_t interval, struct cfmt_choice *out)
{
	if (!cfmt_is_converted(stream, dst))
		return -EINVAL;
	/* The nearest listed size, measured as fmt_try does for native
	 * formats (16-bit request, area outside the overlap). */
	uint16_t rw = (uint16_t)width, rh = (uint16_t)height;
	uint32_t best = UINT32_MAX, bw = 0, bh = 0;
	for (uint32_t i = 0;; i++) {
		struct v4l2_frmsizeenum fs = { .index = i, .pixel_format = dst };
		if (cfmt_enum_framesizes(stream, &fs))
			break;
		uint32_t w = fs.discrete.width, h = fs.discrete.height;
		uint32_t d = (w < rw ? w : rw) * (h < rh ? h : rh);
		d = w * h + (uint32_t)rw * rh - 2 * d;
		if (d < best) {
			best = d;
			bw = w;
			bh = h;
		}
	}
	if (best == UINT32_MAX)
		return -EINVAL;
	uint32_t set[MAX_INTERVALS];
	unsigned n = union_intervals(stream, dst, bw, bh, set);
	uint32_t iv = n ? set[0] : interval;
	for (unsigned i = 1; i < n; i++) {
		uint32_t d_new = set[i] > interval ? set[i] - interval : interval - set[i];
		uint32_t d_old = iv > interval ? iv - interval : interval - iv;
		if (d_new < d_old)
			iv = set[i];
	}
	const struct uvc_format *format;
	enum cfmt_reason reason;
	if (pick_source(stream, dst, bw, bh, iv, &format, &reason))
		return -EINVAL;
	const struct uvc_frame *frame = NULL;
	for (unsigned r = 0; r < format->n_frames && !frame; r++)
		if (format->frames[r].width == bw && format->frames[r].height == bh)
			frame = &format->frames[r];
	if (!frame)
		return -EINVAL; /* cannot happen: pick_source saw the size */
	*out = (struct cfmt_choice){
		.dst = dst,
		.format = format,
		.frame = frame,
		.interval = fmt_try_interval(frame, iv),
		.reason = reason,
	};
	return 0;
}

void cfmt_fill_pix(struct v4l2_pix_format *pix, const struct cfmt_choice *choice)
{
	fmt_fill_pix(pix, choice->format, choice->frame, 0);
	pix->pixelformat = choice->dst;
	(void)convert_frame_layout(choice->dst, choice->frame->width, choice->frame->height,
				   &pix->bytesperline, &pix->sizeimage);
	pix->quantization = V4L2_QUANTIZATION_DEFAULT;
	if (choice->dst == V4L2_PIX_FMT_RGB24 || choice->dst == V4L2_PIX_FMT_BGR24) {
		/* libv4lconvert and libjpeg give full-range sRGB */
		pix->colorspace = V4L2_COLORSPACE_SRGB;
		pix->xfer_func = V4L2_XFER_FUNC_DEFAULT;
		pix->ycbcr_enc = V4L2_YCBCR_ENC_DEFAULT;
	} else if (choice->format->fourcc == V4L2_PIX_FMT_MJPEG) {
		/* JFIF: full-range BT.601 planes, kept as they are */
		pix->colorspace = V4L2_COLORSPACE_SRGB;
		pix->xfer_func = V4L2_XFER_FUNC_DEFAULT;
		pix->ycbcr_enc = V4L2_YCBCR_ENC_601;
		pix->quantization = V4L2_QUANTIZATION_FULL_RANGE;
	}
}
