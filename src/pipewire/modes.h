/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a camera offers PipeWire: its V4L2 modes (pixel format, size, frame
 * rate) as SPA EnumFormat objects, and a negotiated SPA Format back as a
 * mode. Pure: no I/O, unit-tested (tests/unit/test_bridge_modes.c). */
#ifndef UVCUSE_BRIDGE_MODES_H
#define UVCUSE_BRIDGE_MODES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <spa/pod/builder.h>

struct bridge_mode {
	uint32_t fourcc;          /* V4L2_PIX_FMT_* */
	uint32_t width, height;
	uint32_t fps_num, fps_den; /* frames per second: the V4L2 interval inverted */
};

/* The modes of one camera, in the node's order (its own formats first,
 * then the converted ones), each with its SPA format. */
struct bridge_modes {
	struct bridge_mode *v;
	size_t n, cap;
};

/* Whether PipeWire has a name for this V4L2 format (raw formats as SPA
 * video formats, MJPEG as video/mjpg, H.264 as video/h264). */
bool bridge_mode_fourcc_known(uint32_t fourcc);

/* Appends m unless it is already there; -ENOMEM, or 0. Modes whose format
 * PipeWire has no name for are skipped (returns 0). */
int bridge_modes_add(struct bridge_modes *ms, const struct bridge_mode *m);
void bridge_modes_clear(struct bridge_modes *ms);

/* The EnumFormat object of one mode (fixed: one format, size and rate), or
 * NULL when the builder is full or the format unknown. */
const struct spa_pod *bridge_mode_enum_format(struct spa_pod_builder *b,
					      const struct bridge_mode *m);

/* The mode a negotiated Format object names: 0, or -EINVAL when it is no
 * video format we offer in this form (then *out is untouched). The frame
 * rate is 0/1 when the object has none. */
int bridge_mode_from_format(const struct spa_pod *format, struct bridge_mode *out);

/* Index of the mode in ms equal to m (format, size, rate), or -1. */
long bridge_modes_find(const struct bridge_modes *ms, const struct bridge_mode *m);

#endif
