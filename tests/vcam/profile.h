/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What a virtual camera is: its formats, sizes, rates and transport.
 * A profile is plain data; descriptors.c turns it into USB descriptors and
 * camera.c serves it. Adding a profile is adding an entry in profiles.c. */
#ifndef VCAM_PROFILE_H
#define VCAM_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frames.h" /* enum vcam_pixel */

/* Large enough for the real cameras of ../shared/corpus (impersonate.c). */
#define VCAM_MAX_FORMATS 16
#define VCAM_MAX_FRAMES 32
#define VCAM_MAX_INTERVALS 16
#define VCAM_MAX_ALTS 16

/* Frame intervals are in 100 ns units, as UVC carries them. */
#define VCAM_FPS(n) (10000000u / (n))

struct vcam_frame_size {
	uint16_t width, height;
	uint8_t n_intervals;
	uint32_t intervals[VCAM_MAX_INTERVALS]; /* fastest first */
	/* The rest is zero in the vcam's own profiles. */
	uint32_t default_interval; /* dwDefaultFrameInterval; 0: intervals[0] */
	/* Continuous intervals (bFrameIntervalType 0): intervals[0] is the
	 * minimum, intervals[1] the maximum, this the step. */
	uint32_t interval_step;
	uint32_t max_frame_bytes;  /* dwMaxVideoFrameBufferSize; 0: computed */
	uint8_t index;             /* bFrameIndex; 0: its position + 1 */
};

struct vcam_format {
	enum vcam_pixel pixel;
	uint8_t n_frames;
	struct vcam_frame_size frames[VCAM_MAX_FRAMES];
	uint8_t default_frame;     /* bDefaultFrameIndex; 0: the first frame */
	uint8_t index;             /* bFormatIndex; 0: its position + 1 */
};

enum vcam_transfer { VCAM_ISOCHRONOUS, VCAM_BULK };
enum vcam_speed { VCAM_HIGH_SPEED, VCAM_SUPER_SPEED };

struct vcam_alt {
	uint16_t max_packet;  /* wMaxPacketSize bits 0..10 */
	uint8_t transactions; /* HS: 1..3 per microframe; SS: burst (1..16) */
	uint8_t mult;         /* SS isochronous Mult: 1..3 */
	uint8_t number;       /* bAlternateSetting; 0: its index + 1 (the profiles) */
};

struct vcam_profile {
	const char *name; /* for an impersonated camera, its corpus file name */
	const char *summary;
	uint16_t bcd_uvc;    /* 0x0110 or 0x0150 */
	enum vcam_speed speed;
	enum vcam_transfer transfer;
	uint8_t n_alts;      /* isochronous alternate settings 1..n_alts */
	struct vcam_alt alts[VCAM_MAX_ALTS];
	uint8_t n_formats;
	struct vcam_format formats[VCAM_MAX_FORMATS]; /* [0] is the default */
};

extern const struct vcam_profile vcam_profiles[];
extern const size_t vcam_profile_count;

const struct vcam_profile *vcam_profile_find(const char *name);

/* The profile's alternate setting with bAlternateSetting n (n >= 1), or NULL. */
const struct vcam_alt *vcam_profile_alt(const struct vcam_profile *p, unsigned n);

/* Bytes one isochronous alternate setting moves per service interval
 * (what uvcvideo calls psize). */
uint32_t vcam_alt_bytes(const struct vcam_alt *alt);

/* Largest bytes-per-interval of all alternate settings. */
uint32_t vcam_profile_max_alt_bytes(const struct vcam_profile *p);

/* Bulk endpoint max packet size for the profile's speed. */
uint16_t vcam_profile_bulk_packet(const struct vcam_profile *p);

#endif
