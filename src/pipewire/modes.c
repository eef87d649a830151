/* SPDX-License-Identifier: GPL-2.0-or-later */
/* V4L2 modes <-> SPA formats (modes.h). */
#include "modes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/videodev2.h>
#include <spa/param/video/format-utils.h>

/* V4L2 formats uvcuse nodes list (native and converted) that PipeWire
 * names. SPA's raw formats are named by memory order, as V4L2's are. */
static const struct {
	uint32_t fourcc;
	uint32_t subtype;  /* SPA_MEDIA_SUBTYPE_* */
	uint32_t format;   /* SPA_VIDEO_FORMAT_* for raw */
} known[] = {
	{ V4L2_PIX_FMT_YUYV, SPA_MEDIA_SUBTYPE_raw, SPA_VIDEO_FORMAT_YUY2 },
	{ V4L2_PIX_FMT_UYVY, SPA_MEDIA_SUBTYPE_raw, SPA_VIDEO_FORMAT_UYVY },
	{ V4L2_PIX_FMT_YVYU, SPA_MEDIA_SUBTYPE_raw, SPA_VIDEO_FORMAT_YVYU },
	{ V4L2_PIX_FMT_NV12, SPA_MEDIA_SUBTYPE_raw, SPA_VIDEO_FORMAT_NV12 },
	{ V4L2_PIX_FMT_NV21, SPA_MEDIA_SUBTYPE_raw, SPA_VIDEO_FORMAT_NV21 },
	{ V4L2_PIX_FMT_YUV420, SPA_MEDIA_SUBTYPE_raw, SPA_VIDEO_FORMAT_I420 },
	{ V4L2_PIX_FMT_YVU420, SPA_MEDIA_SUBTYPE_raw, SPA_VIDEO_FORMAT_YV12 },
	{ V4L2_PIX_FMT_GREY, SPA_MEDIA_SUBTYPE_raw, SPA_VIDEO_FORMAT_GRAY8 },
	{ V4L2_PIX_FMT_Y16, SPA_MEDIA_SUBTYPE_raw, SPA_VIDEO_FORMAT_GRAY16_LE },
	{ V4L2_PIX_FMT_RGB24, SPA_MEDIA_SUBTYPE_raw, SPA_VIDEO_FORMAT_RGB },
	{ V4L2_PIX_FMT_BGR24, SPA_MEDIA_SUBTYPE_raw, SPA_VIDEO_FORMAT_BGR },
	{ V4L2_PIX_FMT_RGB565, SPA_MEDIA_SUBTYPE_raw, SPA_VIDEO_FORMAT_RGB16 },
	{ V4L2_PIX_FMT_MJPEG, SPA_MEDIA_SUBTYPE_mjpg, 0 },
	{ V4L2_PIX_FMT_JPEG, SPA_MEDIA_SUBTYPE_mjpg, 0 },
	{ V4L2_PIX_FMT_H264, SPA_MEDIA_SUBTYPE_h264, 0 },
};

static int known_index(uint32_t fourcc)
{
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (known[i].fourcc == fourcc)
			return (int)i;
	return -1;
}

bool bridge_mode_fourcc_known(uint32_t fourcc)
{
	return known_index(fourcc) >= 0;
}

static bool mode_equal(const struct bridge_mode *a, const struct bridge_mode *b)
{
	/* rates compare as fractions: 30/1 is 60/2 */
	return a->fourcc == b->fourcc && a->width == b->width && a->height == b->height &&
	       (uint64_t)a->fps_num * b->fps_den == (uint64_t)b->fps_num * a->fps_den;
}

long bridge_modes_find(const struct bridge_modes *ms, const struct bridge_mode *m)
{
	for (size_t i = 0; i < ms->n; i++)
		if (mode_equal(&ms->v[i], m))
			return (long)i;
	return -1;
}

int bridge_modes_add(struct bridge_modes *ms, const struct bridge_mode *m)
{
	if (!bridge_mode_fourcc_known(m->fourcc) || !m->width || !m->height || !m->fps_den)
		return 0;
	if (bridge_modes_find(ms, m) >= 0)
		return 0;
	if (ms->n == ms->cap) {
		size_t cap = ms->cap ? ms->cap * 2 : 16;
		struct bridge_mode *v = realloc(ms->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		ms->v = v;
		ms->cap = cap;
	}
	ms->v[ms->n++] = *m;
	return 0;
}

void bridge_modes_clear(struct bridge_modes *ms)
{
	free(ms->v);
	memset(ms, 0, sizeof(*ms));
}

const struct spa_pod *bridge_mode_enum_format(struct spa_pod_builder *b,
					      const struct bridge_mode *m)
{
	int k = known_index(m->fourcc);
	if (k < 0)
		return NULL;
	struct spa_pod_frame f;
	spa_pod_builder_push_object(b, &f, SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat);
	spa_pod_builder_add(b, SPA_FORMAT_mediaType, SPA_POD_Id(SPA_MEDIA_TYPE_video),
			    SPA_FORMAT_mediaSubtype, SPA_POD_Id(known[k].subtype), 0);
	if (known[k].subtype == SPA_MEDIA_SUBTYPE_raw)
		spa_pod_builder_add(b, SPA_FORMAT_VIDEO_format, SPA_POD_Id(known[k].format), 0);
	spa_pod_builder_add(b, SPA_FORMAT_VIDEO_size,
			    SPA_POD_Rectangle(&SPA_RECTANGLE(m->width, m->height)),
			    SPA_FORMAT_VIDEO_framerate,
			    SPA_POD_Fraction(&SPA_FRACTION(m->fps_num, m->fps_den)), 0);
	return spa_pod_builder_pop(b, &f);
}

int bridge_mode_from_format(const struct spa_pod *format, struct bridge_mode *out)
{
	struct spa_video_info info;
	memset(&info, 0, sizeof(info));
	if (!format || spa_format_video_parse(format, &info) < 0 ||
	    info.media_type != SPA_MEDIA_TYPE_video)
		return -EINVAL;
	struct spa_rectangle size;
	struct spa_fraction rate;
	uint32_t raw = 0;
	switch (info.media_subtype) {
	case SPA_MEDIA_SUBTYPE_raw:
		raw = info.info.raw.format;
		size = info.info.raw.size;
		rate = info.info.raw.framerate;
		break;
	case SPA_MEDIA_SUBTYPE_mjpg:
		size = info.info.mjpg.size;
		rate = info.info.mjpg.framerate;
		break;
	case SPA_MEDIA_SUBTYPE_h264:
		size = info.info.h264.size;
		rate = info.info.h264.framerate;
		break;
	default:
		return -EINVAL;
	}
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if (known[i].subtype != info.media_subtype || known[i].format != raw)
			continue;
		/* MJPEG before JPEG: the first entry of a subtype is the one
		 * uvcuse nodes list */
		*out = (struct bridge_mode){ .fourcc = known[i].fourcc,
					     .width = size.width,
					     .height = size.height,
					     .fps_num = rate.num,
					     .fps_den = rate.denom ? rate.denom : 1 };
		return 0;
	}
	return -EINVAL;
}
