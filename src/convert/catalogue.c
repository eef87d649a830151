/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The conversion catalogue: which fourccs are sources and destinations,
 * the destinations' layouts and the source rule. */
#include "convert/catalogue.h"

#include <errno.h>
#include <linux/videodev2.h>

const uint32_t convert_destinations[CONVERT_N_DESTINATIONS] = {
	V4L2_PIX_FMT_RGB24,
	V4L2_PIX_FMT_BGR24,
	V4L2_PIX_FMT_YUV420,
	V4L2_PIX_FMT_YVU420,
};

/* Raw formats uvcvideo 6.1 maps from a GUID that libv4lconvert reads and
 * the unit suite converts on the test picture. The destinations themselves
 * are sources too (a camera sending YU12 gets RGB24 from it). */
static const uint32_t raw_sources[] = {
	V4L2_PIX_FMT_YUYV,   V4L2_PIX_FMT_UYVY,  V4L2_PIX_FMT_NV12,
	V4L2_PIX_FMT_YUV420, V4L2_PIX_FMT_YVU420, V4L2_PIX_FMT_RGB24,
	V4L2_PIX_FMT_BGR24,
};

static bool in(const uint32_t *set, size_t n, uint32_t fourcc)
{
	for (size_t i = 0; i < n; i++)
		if (set[i] == fourcc)
			return true;
	return false;
}

bool convert_is_destination(uint32_t fourcc)
{
	return in(convert_destinations, CONVERT_N_DESTINATIONS, fourcc);
}

bool convert_is_raw_source(uint32_t fourcc)
{
	return in(raw_sources, sizeof(raw_sources) / sizeof(raw_sources[0]), fourcc);
}

bool convert_is_source(uint32_t fourcc)
{
	return fourcc == V4L2_PIX_FMT_MJPEG || convert_is_raw_source(fourcc);
}

const char *convert_description(uint32_t fourcc)
{
	/* The strings of the kernel's v4l_fill_fmtdesc(). */
	switch (fourcc) {
	case V4L2_PIX_FMT_RGB24: return "24-bit RGB 8-8-8";
	case V4L2_PIX_FMT_BGR24: return "24-bit BGR 8-8-8";
	case V4L2_PIX_FMT_YUV420: return "Planar YUV 4:2:0";
	case V4L2_PIX_FMT_YVU420: return "Planar YVU 4:2:0";
	}
	return NULL;
}

int convert_frame_layout(uint32_t fourcc, unsigned width, unsigned height, uint32_t *bytesperline,
			 uint32_t *sizeimage)
{
	/* Odd sizes would leave 4:2:0 chroma rounding to libv4lconvert's guess. */
	if (!convert_is_destination(fourcc) || width == 0 || height == 0 || width % 2 ||
	    height % 2 || width > 16384 || height > 16384)
		return -EINVAL;
	uint64_t pixels = (uint64_t)width * height;
	if (fourcc == V4L2_PIX_FMT_RGB24 || fourcc == V4L2_PIX_FMT_BGR24) {
		*bytesperline = width * 3;
		*sizeimage = (uint32_t)(pixels * 3);
	} else {
		*bytesperline = width;
		*sizeimage = (uint32_t)(pixels * 3 / 2);
	}
	return 0;
}

bool convert_pair_supported(uint32_t src, uint32_t dst, unsigned width, unsigned height)
{
	uint32_t bpl, size;
	if (!convert_is_source(src) || src == dst ||
	    convert_frame_layout(dst, width, height, &bpl, &size) < 0)
		return false;
	bool planar = dst == V4L2_PIX_FMT_YUV420 || dst == V4L2_PIX_FMT_YVU420;
	return !(src == V4L2_PIX_FMT_MJPEG && planar && width % 16);
}

unsigned convert_offered(const uint32_t *native, size_t n_native,
			 uint32_t out[CONVERT_N_DESTINATIONS])
{
	bool any_source = false;
	for (size_t i = 0; i < n_native; i++)
		any_source |= convert_is_source(native[i]);
	if (!any_source)
		return 0;
	unsigned n = 0;
	for (unsigned d = 0; d < CONVERT_N_DESTINATIONS; d++)
		if (!in(native, n_native, convert_destinations[d]))
			out[n++] = convert_destinations[d];
	return n;
}

static int first(const struct convert_candidate *cand, size_t n, bool raw, bool need_interval)
{
	for (size_t i = 0; i < n; i++) {
		const struct convert_candidate *c = &cand[i];
		bool kind = raw ? convert_is_raw_source(c->fourcc) : c->fourcc == V4L2_PIX_FMT_MJPEG;
		if (kind && c->has_size && (!need_interval || c->has_interval))
			return (int)i;
	}
	return -ENOENT;
}

int convert_choose_source(const struct convert_candidate *cand, size_t n)
{
	int i = first(cand, n, true, true);
	if (i < 0)
		i = first(cand, n, false, true);
	if (i < 0)
		i = first(cand, n, false, false);
	if (i < 0)
		i = first(cand, n, true, false);
	return i;
}
