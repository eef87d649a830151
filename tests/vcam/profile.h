/* What a virtual camera is: its formats, sizes, rates and transport.
 * A profile is plain data; descriptors.c turns it into USB descriptors and
 * camera.c serves it. Adding a profile is adding an entry in profiles.c. */
#ifndef VCAM_PROFILE_H
#define VCAM_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frames.h" /* enum vcam_pixel */

#define VCAM_MAX_FORMATS 4
#define VCAM_MAX_FRAMES 6
#define VCAM_MAX_INTERVALS 4
#define VCAM_MAX_ALTS 8

/* Frame intervals are in 100 ns units, as UVC carries them. */
#define VCAM_FPS(n) (10000000u / (n))

struct vcam_frame_size {
	uint16_t width, height;
	uint8_t n_intervals;
	uint32_t intervals[VCAM_MAX_INTERVALS]; /* fastest first; [0] is the default */
};

struct vcam_format {
	enum vcam_pixel pixel;
	uint8_t n_frames;
	struct vcam_frame_size frames[VCAM_MAX_FRAMES]; /* [0] is the default */
};

enum vcam_transfer { VCAM_ISOCHRONOUS, VCAM_BULK };
enum vcam_speed { VCAM_HIGH_SPEED, VCAM_SUPER_SPEED };

struct vcam_alt {
	uint16_t max_packet;  /* wMaxPacketSize bits 0..10 */
	uint8_t transactions; /* HS: 1..3 per microframe; SS: burst (1..16) */
	uint8_t mult;         /* SS isochronous Mult: 1..3 */
};

struct vcam_profile {
	const char *name;
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

/* Bytes one isochronous alternate setting moves per service interval
 * (what uvcvideo calls psize). */
uint32_t vcam_alt_bytes(const struct vcam_alt *alt);

/* Largest bytes-per-interval of all alternate settings. */
uint32_t vcam_profile_max_alt_bytes(const struct vcam_profile *p);

/* Bulk endpoint max packet size for the profile's speed. */
uint16_t vcam_profile_bulk_packet(const struct vcam_profile *p);

#endif
