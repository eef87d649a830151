/* SPDX-License-Identifier: GPL-2.0-or-later */
/* USB and UVC descriptors of a virtual camera, built from its profile.
 * Pure functions: bytes in, bytes out, unit-tested. */
#ifndef VCAM_DESCRIPTORS_H
#define VCAM_DESCRIPTORS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "profile.h"

/* The camera's topology: one chain CT -> PU -> XU -> OT. */
enum {
	VCAM_ID_CAMERA = 1,
	VCAM_ID_PROCESSING = 2,
	VCAM_ID_EXTENSION = 3,
	VCAM_ID_OUTPUT = 4,
};
enum { VCAM_IF_CONTROL = 0, VCAM_IF_STREAMING = 1 };
#define VCAM_EP_STATUS 0x81
#define VCAM_EP_VIDEO 0x82
#define VCAM_STATUS_PACKET 16

/* pid.codes test VID:PID, reserved for exactly this kind of use. */
#define VCAM_VENDOR_ID 0x1209
#define VCAM_PRODUCT_ID 0x0001

/* The device clock that PTS and SCR count in (dwClockFrequency). */
#define VCAM_CLOCK_HZ 48000000u

enum { VCAM_STR_MANUFACTURER = 1, VCAM_STR_PRODUCT = 2, VCAM_STR_SERIAL = 3 };

struct vcam_identity {
	const struct vcam_profile *profile;
	const char *serial;
	uint32_t ct_controls;   /* camera terminal bmControls (3 bytes used) */
	uint32_t pu_controls;   /* processing unit bmControls (3 bytes used) */
	uint32_t xu_controls;   /* extension unit bmControls (2 bytes used) */
	uint8_t xu_count;       /* extension unit bNumControls */
	const uint8_t *xu_guid; /* 16 bytes */
	/* the color matching descriptors' bColorPrimaries: 1 (BT.709, as
	 * webcams send; 0 means that too) or 4 (SMPTE 170M) */
	uint8_t color_primaries;
};

/* Each builder writes at most cap bytes and returns the descriptor's full
 * length, or -ENOSPC when it does not fit, -EINVAL for a bad argument. */
ssize_t vcam_device_descriptor(const struct vcam_profile *p, uint8_t *out, size_t cap);
ssize_t vcam_qualifier_descriptor(const struct vcam_profile *p, uint8_t *out, size_t cap);
ssize_t vcam_config_descriptor(const struct vcam_identity *id, uint8_t *out, size_t cap);
ssize_t vcam_bos_descriptor(const struct vcam_profile *p, uint8_t *out, size_t cap);
ssize_t vcam_string_descriptor(const struct vcam_identity *id, uint8_t index, uint8_t *out,
			       size_t cap);

/* dwMaxVideoFrameBufferSize of a frame: the raw size, and the same bound
 * for compressed formats, as webcams report it. */
uint32_t vcam_frame_buffer_size(enum vcam_pixel pixel, unsigned width, unsigned height);

#endif
