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

#endif
