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

int cfmt_enum_frameintervals(const struct uvc_streaming *stream, struct v4l2_frmivalenum *fi)
{
	uint32_t dst = fi->pixel_format;
	if (!cfmt_is_converted(stream, dst))
		return fmt_enum_frameintervals(stream, fi);
	uint32_t set[MAX_INTERVALS];
	unsigned n = 0, count = fmt_count(stream);
	for (unsigned i = 0; i < count; i++) {
		const struct uvc_format *f = fmt_at(stream, i);
		for (unsigned r = 0; r < f->n_frames; r++) {
			const struct uvc_frame *fr = &f->frames[r];
			if (!frame_feeds(f, fr, dst) || fr->width != fi->width ||
			    fr->height != fi->height)
				continue;
			if (fr->continuous) {
				add_interval(set, &n, fr->range.min);
				add_interval(set, &n, fr->range.max);
			}
			for (unsigned k = 0; !fr->continuous && k < fr->n_intervals; k++)
				add_interval(set, &n, fr->intervals[k]);
		}
	}
	if (fi->index >= n)
		return -EINVAL;
	uint32_t interval = set[fi->index];
	memset(&fi->type, 0, sizeof(*fi) - offsetof(struct v4l2_frmivalenum, type));
	fi->type = V4L2_FRMIVAL_TYPE_DISCRETE;
	fi->discrete = fmt_interval_fract(interval);
	return 0;
}

const struct uvc_format *cfmt_source(const struct uvc_streaming *stream, uint32_t dst,
				     unsigned width, unsigned height, uint32_t interval)
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
	return pick < 0 ? NULL : formats[pick];
}
