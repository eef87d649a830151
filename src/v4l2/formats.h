/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Format negotiation as uvcvideo (Linux 6.1) answers it: ENUM_FMT,
 * ENUM_FRAMESIZES, ENUM_FRAMEINTERVALS and the choice TRY_FMT/S_FMT make,
 * computed from the camera model. Pure: no I/O, no allocation. */
#ifndef V4L2_FORMATS_H
#define V4L2_FORMATS_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/videodev2.h>

#include "uvc/descriptors.h"

/* The description and flags that the 6.1 V4L2 core (v4l_fill_fmtdesc)
 * gives a fourcc; NULL (flags 0) for one it does not know. */
const char *fmt_describe(uint32_t fourcc, uint32_t *flags);

/* uvcvideo's continued-fraction reduction (uvc_simplify_fraction): with
 * n_terms 8 and threshold 333, 333333/10000000 becomes 1/30. */
void fmt_simplify_fraction(uint32_t *numerator, uint32_t *denominator, unsigned n_terms,
			   unsigned threshold);

/* A frame interval in 100 ns units as the fraction uvcvideo reports. */
struct v4l2_fract fmt_interval_fract(uint32_t interval);

/* numerator/denominator seconds in 100 ns units, saturating, as
 * uvc_fraction_to_interval (for S_PARM). */
uint32_t fmt_fract_to_interval(uint32_t numerator, uint32_t denominator);

/* The frame's supported interval nearest to 'interval'
 * (uvc_try_frame_interval), on the intervals as uvcvideo stores them
 * (zero read as 1). */
uint32_t fmt_try_interval(const struct uvc_frame *frame, uint32_t interval);

/* dwDefaultFrameInterval clamped into the frame's range, as uvcvideo's
 * parser keeps it. */
uint32_t fmt_default_interval(const struct uvc_frame *frame);

/* Whether uvcvideo flags the format compressed (MJPEG; frame-based with
 * bVariableSize). */
bool fmt_is_compressed(const struct uvc_format *format);

/* The formats V4L2 sees: those with a known fourcc, in descriptor order. */
unsigned fmt_count(const struct uvc_streaming *stream);
const struct uvc_format *fmt_at(const struct uvc_streaming *stream, unsigned index);
const struct uvc_format *fmt_find(const struct uvc_streaming *stream, uint32_t fourcc);

/* VIDIOC_ENUM_FMT for a capture stream: fills desc as the kernel returns
 * it (all other fields zero). -EINVAL for another type or past the end. */
int fmt_enum(const struct uvc_streaming *stream, struct v4l2_fmtdesc *desc);

/* VIDIOC_ENUM_FRAMESIZES: discrete sizes in descriptor order, consecutive
 * duplicates skipped. -EINVAL for an unknown fourcc or past the end. */
int fmt_enum_framesizes(const struct uvc_streaming *stream, struct v4l2_frmsizeenum *fs);

/* VIDIOC_ENUM_FRAMEINTERVALS: the discrete intervals of every frame of
 * that size in order, or one stepwise range for a continuous frame.
 * -EINVAL for an unknown fourcc or size, or past the end. */
int fmt_enum_frameintervals(const struct uvc_streaming *stream, struct v4l2_frmivalenum *fi);

/* What TRY_FMT/S_FMT pick: the probe's bFormatIndex, bFrameIndex and
 * dwFrameInterval come from format->index, frame->index and interval. */
struct fmt_choice {
	const struct uvc_format *format;
	const struct uvc_frame *frame;
	uint32_t interval;
};

/* dwMaxVideoFrameBufferSize as uvcvideo 6.1 keeps it: bpp * w * h / 8 for
 * formats not flagged compressed, the descriptor's for MJPEG, 0 for
 * compressed frame-based formats (their size comes from the probe). */
uint32_t fmt_frame_buffer_size(const struct uvc_format *format, const struct uvc_frame *frame);

/* Fills pix for format/frame as uvcvideo's G_FMT/TRY_FMT do (field NONE,
 * bytesperline, colorspace, xfer_func, ycbcr_enc); sizeimage is the
 * probe's dwMaxVideoFrameSize. Other fields are left alone. */
void fmt_fill_pix(struct v4l2_pix_format *pix, const struct uvc_format *format,
		  const struct uvc_frame *frame, uint32_t sizeimage);

/* uvc_v4l2_try_format before the probe: an unknown pixelformat falls back
 * to def_format (the format GET_CUR reported at start-up; NULL: the first
 * one), the nearest size by uvcvideo's distance, the frame's default
 * interval snapped to its intervals. Rewrites fmt->fmt.pix (sizeimage
 * from fmt_frame_buffer_size(); replace it with the probe's
 * dwMaxVideoFrameSize) after the core's sanitising of the fields past
 * priv, and sets priv to V4L2_PIX_FMT_PRIV_MAGIC as the core does.
 * -EINVAL for a type other than capture or a stream without formats. */
int fmt_try(const struct uvc_streaming *stream, const struct uvc_format *def_format,
	    struct v4l2_format *fmt, struct fmt_choice *choice);

#endif
