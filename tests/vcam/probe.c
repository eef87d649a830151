/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Probe/commit negotiation, camera side. */
#include "probe.h"

#include <errno.h>
#include <string.h>

#include "descriptors.h"
#include "payload.h"

const struct vcam_format *vcam_probe_format(const struct vcam_profile *prof,
					    const struct uvc_probe *p)
{
	for (unsigned i = 0; i < prof->n_formats; i++) {
		const struct vcam_format *f = &prof->formats[i];
		if ((f->index ? f->index : i + 1) == p->format_index)
			return f;
	}
	return NULL;
}

const struct vcam_frame_size *vcam_probe_frame(const struct vcam_profile *prof,
					       const struct uvc_probe *p)
{
	const struct vcam_format *fmt = vcam_probe_format(prof, p);
	for (unsigned i = 0; fmt && i < fmt->n_frames; i++) {
		const struct vcam_frame_size *f = &fmt->frames[i];
		if ((f->index ? f->index : i + 1) == p->frame_index)
			return f;
	}
	return NULL;
}

static uint32_t default_interval(const struct vcam_frame_size *f)
{
	return f->default_interval ? f->default_interval : f->intervals[0];
}

static uint32_t nearest_interval(const struct vcam_frame_size *f, uint32_t asked)
{
	if (asked == 0)
		return default_interval(f);
	if (f->interval_step) { /* continuous: clamp, then the nearest step */
		uint32_t lo = f->intervals[0], hi = f->intervals[1];
		if (asked <= lo)
			return lo;
		if (asked >= hi)
			return hi;
		uint32_t k = (asked - lo + f->interval_step / 2) / f->interval_step;
		uint64_t v = lo + (uint64_t)k * f->interval_step;
		return v > hi ? hi : (uint32_t)v;
	}
	uint32_t best = f->intervals[0];
	for (unsigned i = 1; i < f->n_intervals; i++) {
		uint32_t d_best = best > asked ? best - asked : asked - best;
		uint32_t d = f->intervals[i] > asked ? f->intervals[i] - asked : asked - f->intervals[i];
		if (d < d_best)
			best = f->intervals[i];
	}
	return best;
}

/* Bytes per service interval (125 us at high and SuperSpeed) that carry the
 * frame at this rate with a 25% margin, rounded up to an alternate setting
 * so that the host picks that one, as a camera's firmware table would.
 * Compressed frames are budgeted at a sixth of the raw size. */
static uint32_t iso_payload_size(const struct vcam_profile *prof, enum vcam_pixel pixel,
				 uint32_t frame_bytes, uint32_t interval)
{
	uint64_t bytes = frame_bytes;
	if (pixel == VCAM_PIXEL_MJPEG || pixel == VCAM_PIXEL_H264)
		bytes /= 6;
	uint64_t per_second = bytes * 10000000u / interval;
	uint64_t need = per_second / 8000 + VCAM_PAYLOAD_HEADER;
	need += need / 4;
	uint32_t best = vcam_profile_max_alt_bytes(prof);
	for (unsigned i = 0; i < prof->n_alts; i++) {
		uint32_t b = vcam_alt_bytes(&prof->alts[i]);
		if (b >= need && b < best)
			best = b;
	}
	return best;
}

static void fill_camera_fields(const struct vcam_profile *prof, struct uvc_probe *p)
{
	const struct vcam_format *fmt = vcam_probe_format(prof, p);
	const struct vcam_frame_size *f = vcam_probe_frame(prof, p);
	uint32_t size = f->max_frame_bytes ? f->max_frame_bytes
					   : vcam_frame_buffer_size(fmt->pixel, f->width, f->height);

	p->max_video_frame_size = size;
	if (prof->transfer == VCAM_BULK)
		/* One payload per frame: a single header, then the whole frame. */
		p->max_payload_transfer_size = size + VCAM_PAYLOAD_HEADER;
	else
		p->max_payload_transfer_size = iso_payload_size(prof, fmt->pixel, size, p->interval);
	p->delay = 10;
	p->clock_frequency = VCAM_CLOCK_HZ;
	/* FID toggles and EOF marks frame ends in every payload format we send. */
	p->framing_info = 0x03;
	p->preferred_version = 1;
	p->min_version = 1;
	p->max_version = 1;
	if (prof->bcd_uvc >= 0x0150) {
		p->usage = 1; /* real-time */
		p->bit_depth_luma = 8;
	}
}

int vcam_probe_negotiate(const struct vcam_profile *prof, const struct uvc_probe *asked,
			 struct uvc_probe *out)
{
	const struct vcam_frame_size *f = vcam_probe_frame(prof, asked);
	if (!f)
		return -ERANGE;
	*out = *asked;
	out->interval = nearest_interval(f, asked->interval);
	fill_camera_fields(prof, out);
	return 0;
}

void vcam_probe_default(const struct vcam_profile *prof, struct uvc_probe *out)
{
	memset(out, 0, sizeof(*out));
	out->hint = 1; /* keep the frame interval */
	const struct vcam_format *fmt = &prof->formats[0];
	out->format_index = fmt->index ? fmt->index : 1;
	out->frame_index = fmt->frames[0].index ? fmt->frames[0].index : 1;
	if (fmt->default_frame)
		out->frame_index = fmt->default_frame;
	const struct vcam_frame_size *f = vcam_probe_frame(prof, out);
	if (!f) { /* a default frame index that names no frame: the first */
		out->frame_index = fmt->frames[0].index ? fmt->frames[0].index : 1;
		f = &fmt->frames[0];
	}
	out->interval = default_interval(f);
	out->comp_quality = 5000;
	fill_camera_fields(prof, out);
}

void vcam_probe_min(const struct vcam_profile *prof, const struct uvc_probe *current,
		    struct uvc_probe *out)
{
	*out = *current;
	const struct vcam_frame_size *f = vcam_probe_frame(prof, current);
	if (f)
		out->interval = f->intervals[0];
	out->key_frame_rate = 0;
	out->p_frame_rate = 0;
	out->comp_quality = 0;
	out->comp_window_size = 0;
}

void vcam_probe_max(const struct vcam_profile *prof, const struct uvc_probe *current,
		    struct uvc_probe *out)
{
	*out = *current;
	const struct vcam_frame_size *f = vcam_probe_frame(prof, current);
	if (f)
		out->interval = f->intervals[f->n_intervals - 1];
	out->key_frame_rate = 0xffff;
	out->p_frame_rate = 0xffff;
	out->comp_quality = 10000;
	out->comp_window_size = 0xffff;
}
