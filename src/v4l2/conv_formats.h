/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The converted formats' side of format negotiation: ENUM_FMT,
 * ENUM_FRAMESIZES and ENUM_FRAMEINTERVALS of the camera's formats followed
 * by the destinations of src/convert/ it is offered, and the native format
 * that feeds a destination at a size and interval. Pure, over the camera
 * model. */
#ifndef V4L2_CONV_FORMATS_H
#define V4L2_CONV_FORMATS_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/videodev2.h>

#include "uvc/descriptors.h"

/* The destinations offered on this stream, in listing order; how many. */
unsigned cfmt_offered(const struct uvc_streaming *stream, uint32_t out[4]);
/* Whether fourcc is a destination offered on this stream (not native). */
bool cfmt_is_converted(const struct uvc_streaming *stream, uint32_t fourcc);

/* VIDIOC_ENUM_FMT: the native formats (fmt_enum), then the offered
 * destinations with the kernel's descriptions and no flags. */
int cfmt_enum(const struct uvc_streaming *stream, struct v4l2_fmtdesc *desc);

/* VIDIOC_ENUM_FRAMESIZES: native formats as fmt_enum_framesizes; a
 * destination lists the union of its sources' sizes (those the pair
 * supports), sources in camera order, each size once. */
int cfmt_enum_framesizes(const struct uvc_streaming *stream, struct v4l2_frmsizeenum *fs);

/* VIDIOC_ENUM_FRAMEINTERVALS: native formats as fmt_enum_frameintervals; a
 * destination at a size lists the union of the discrete intervals of its
 * sources at that size, fastest first, each once (a continuous range adds
 * its minimum and maximum). */
int cfmt_enum_frameintervals(const struct uvc_streaming *stream, struct v4l2_frmivalenum *fi);

/* The native format that feeds dst at width x height and interval (100 ns),
 * by convert_choose_source(); NULL when none has the size. */
const struct uvc_format *cfmt_source(const struct uvc_streaming *stream, uint32_t dst,
				     unsigned width, unsigned height, uint32_t interval);

/* Why a source was chosen (convert_choose_source's three steps). */
enum cfmt_reason {
	CFMT_RAW_AT_INTERVAL,    /* a raw format has the size at the interval */
	CFMT_MJPEG,              /* no raw format has both: MJPEG has the size */
	CFMT_RAW_OTHER_INTERVAL, /* only a raw format has the size, at another interval */
};
const char *cfmt_reason_text(enum cfmt_reason reason);

/* A converted format's negotiation: the native format and frame that feed
 * it, at the interval the camera is asked for. */
struct cfmt_choice {
	uint32_t dst;
	const struct uvc_format *format;
	const struct uvc_frame *frame;
	uint32_t interval;  /* 100 ns, one the source frame offers */
	enum cfmt_reason reason;
};

/* TRY_FMT/S_FMT/S_PARM of destination dst: the size nearest width x height
 * among those dst lists (uvcvideo's measure of nearness), the interval
 * nearest 'interval' among those dst lists at that size (the faster of
 * two as near), then the source rule at that size and interval.
 * -EINVAL when dst is not offered on this stream. */
int cfmt_choose(const struct uvc_streaming *stream, uint32_t dst, unsigned width, unsigned height,
		uint32_t interval, struct cfmt_choice *out);

/* G_FMT/TRY_FMT's answer for a choice: the source frame's size with the
 * destination's pixelformat, bytesperline and sizeimage; colorimetry of
 * what libv4lconvert and libjpeg produce (RGB: sRGB; YU12/YV12: the raw
 * source's, or full-range BT.601 from JPEG). */
void cfmt_fill_pix(struct v4l2_pix_format *pix, const struct cfmt_choice *choice);

#endif
