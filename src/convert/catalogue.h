/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pixel formats the daemon converts between, as data (pure, no I/O).
 *
 * Destinations are what libv4lconvert produces: RGB24, BGR24, YU12 (YUV420)
 * and YV12 (YVU420). Sources are the raw formats a UVC camera sends that
 * libv4lconvert reads, and MJPEG. Compressed formats (H.264, HEVC, ...) are
 * never sources: they pass through untouched. */
#ifndef UVCUSE_CONVERT_CATALOGUE_H
#define UVCUSE_CONVERT_CATALOGUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CONVERT_N_DESTINATIONS 4u

/* The destinations in the order the node lists them. */
extern const uint32_t convert_destinations[CONVERT_N_DESTINATIONS];

bool convert_is_destination(uint32_t fourcc);
bool convert_is_source(uint32_t fourcc);
/* A raw (uncompressed) source; MJPEG is a source but not raw. */
bool convert_is_raw_source(uint32_t fourcc);

/* The kernel's ENUM_FMT description of a destination, NULL for others. */
const char *convert_description(uint32_t fourcc);

/* bytesperline and sizeimage of a destination frame. 0 or -EINVAL (not a
 * destination, or a size that is zero, odd or too large). */
int convert_frame_layout(uint32_t fourcc, unsigned width, unsigned height, uint32_t *bytesperline,
			 uint32_t *sizeimage);

/* Whether src converts to dst at this size: both in the catalogue, not the
 * same, the size valid for dst, and for MJPEG to YU12/YV12 a width that is
 * a whole number of 16-pixel blocks (the JPEG's planes are then the
 * frame's rows). */
bool convert_pair_supported(uint32_t src, uint32_t dst, unsigned width, unsigned height);

/* The destinations a camera sending these native formats is offered: every
 * destination it does not send itself, when it sends at least one source.
 * Writes at most CONVERT_N_DESTINATIONS fourccs; returns how many. */
unsigned convert_offered(const uint32_t *native, size_t n_native,
			 uint32_t out[CONVERT_N_DESTINATIONS]);

/* One native format of the camera as the source rule sees it, for one
 * requested size and interval. */
struct convert_candidate {
	uint32_t fourcc;
	bool has_size;     /* the format has the requested frame size */
	bool has_interval; /* ... and that size at the requested interval */
};

/* The source rule: the first raw source (in the camera's order) that has
 * the size at the interval; else the first MJPEG that has the size (at the
 * interval if one does); else the first raw source with the size at another
 * interval. Returns the index into cand, or -ENOENT when no source has the
 * size. Deterministic: the same camera and request give the same source. */
int convert_choose_source(const struct convert_candidate *cand, size_t n);

#endif
