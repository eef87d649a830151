/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The built-in camera profiles (uvcuse-vcam --list-profiles). */
#include "profile.h"

#include <string.h>

/* Designated initializers: the fields only impersonated cameras use stay 0. */
#define FRAME(w, h, rates) { .width = (w), .height = (h), rates }
#define ALT(packet, n, m) { .max_packet = (packet), .transactions = (n), .mult = (m) }
#define FORMAT(px, n, ...) { .pixel = (px), .n_frames = (n), .frames = __VA_ARGS__ }

#define RATES_30_15_5 .n_intervals = 3, .intervals = { VCAM_FPS(30), VCAM_FPS(15), VCAM_FPS(5) }
#define RATES_30_15 .n_intervals = 2, .intervals = { VCAM_FPS(30), VCAM_FPS(15) }
#define RATES_60_30 .n_intervals = 2, .intervals = { VCAM_FPS(60), VCAM_FPS(30) }

/* A USB 2.0 isochronous camera's alternate settings, as webcams ship
 * them: growing packet sizes up to 3 x 1024 bytes per microframe. */
#define HS_ISO_ALTS                                                        \
	.n_alts = 6,                                                       \
	.alts = { ALT(192, 1, 1), ALT(384, 1, 1), ALT(800, 1, 1), ALT(1024, 1, 1), \
		  ALT(1024, 2, 1), ALT(1024, 3, 1) }

#define YUYV_DEFAULT                                                       \
	FORMAT(VCAM_PIXEL_YUYV, 2, { FRAME(640, 480, RATES_30_15_5), FRAME(1280, 720, RATES_30_15_5) })
#define MJPEG_DEFAULT                                                      \
	FORMAT(VCAM_PIXEL_MJPEG, 3, { FRAME(640, 480, RATES_30_15), FRAME(1280, 720, RATES_30_15), \
				 FRAME(1920, 1080, RATES_30_15) })

const struct vcam_profile vcam_profiles[] = {
	{
		.name = "default",
		.summary = "USB 2.0 isochronous, UVC 1.1: YUYV and MJPEG",
		.bcd_uvc = 0x0110,
		.speed = VCAM_HIGH_SPEED,
		.transfer = VCAM_ISOCHRONOUS,
		HS_ISO_ALTS,
		.n_formats = 2,
		.formats = { YUYV_DEFAULT, MJPEG_DEFAULT },
	},
	{
		.name = "bulk",
		.summary = "USB 2.0 bulk, UVC 1.1: YUYV and MJPEG",
		.bcd_uvc = 0x0110,
		.speed = VCAM_HIGH_SPEED,
		.transfer = VCAM_BULK,
		.n_formats = 2,
		.formats = { YUYV_DEFAULT, MJPEG_DEFAULT },
	},
	{
		.name = "nv12",
		.summary = "USB 2.0 isochronous, UVC 1.1: NV12 and MJPEG",
		.bcd_uvc = 0x0110,
		.speed = VCAM_HIGH_SPEED,
		.transfer = VCAM_ISOCHRONOUS,
		HS_ISO_ALTS,
		.n_formats = 2,
		.formats = {
			FORMAT(VCAM_PIXEL_NV12, 2, { FRAME(640, 480, RATES_30_15_5), FRAME(1280, 720, RATES_30_15) }),
			FORMAT(VCAM_PIXEL_MJPEG, 2, { FRAME(640, 480, RATES_30_15), FRAME(1280, 720, RATES_30_15) }),
		},
	},
	{
		.name = "h264",
		.summary = "USB 2.0 isochronous, UVC 1.1: frame-based H.264, MJPEG and YUYV",
		.bcd_uvc = 0x0110,
		.speed = VCAM_HIGH_SPEED,
		.transfer = VCAM_ISOCHRONOUS,
		HS_ISO_ALTS,
		.n_formats = 3,
		.formats = {
			FORMAT(VCAM_PIXEL_H264, 2, { FRAME(1280, 720, RATES_30_15), FRAME(1920, 1080, RATES_30_15) }),
			FORMAT(VCAM_PIXEL_MJPEG, 1, { FRAME(640, 480, RATES_30_15) }),
			FORMAT(VCAM_PIXEL_YUYV, 1, { FRAME(640, 480, RATES_30_15_5) }),
		},
	},
	{
		.name = "usb3",
		.summary = "USB 3.0 SuperSpeed isochronous, UVC 1.5: YUYV and MJPEG",
		.bcd_uvc = 0x0150,
		.speed = VCAM_SUPER_SPEED,
		.transfer = VCAM_ISOCHRONOUS,
		/* SuperSpeed: 1024-byte packets, bursts of up to 16, Mult up to 3. */
		.n_alts = 5,
		.alts = { ALT(1024, 1, 1), ALT(1024, 4, 1), ALT(1024, 8, 1), ALT(1024, 16, 1),
			  ALT(1024, 16, 3) },
		.n_formats = 2,
		.formats = {
			FORMAT(VCAM_PIXEL_YUYV, 3, { FRAME(640, 480, RATES_30_15_5), FRAME(1280, 720, RATES_30_15_5),
						FRAME(1920, 1080, RATES_30_15_5) }),
			FORMAT(VCAM_PIXEL_MJPEG, 2, { FRAME(1280, 720, RATES_60_30), FRAME(1920, 1080, RATES_60_30) }),
		},
	},
};

const size_t vcam_profile_count = sizeof(vcam_profiles) / sizeof(vcam_profiles[0]);

const struct vcam_profile *vcam_profile_find(const char *name)
{
	for (size_t i = 0; i < vcam_profile_count; i++)
		if (strcmp(vcam_profiles[i].name, name) == 0)
			return &vcam_profiles[i];
	return NULL;
}

const struct vcam_alt *vcam_profile_alt(const struct vcam_profile *p, unsigned n)
{
	for (unsigned i = 0; i < p->n_alts; i++)
		if ((p->alts[i].number ? p->alts[i].number : i + 1) == n)
			return &p->alts[i];
	return NULL;
}

uint32_t vcam_alt_bytes(const struct vcam_alt *alt)
{
	return (uint32_t)alt->max_packet * alt->transactions * alt->mult;
}

uint32_t vcam_profile_max_alt_bytes(const struct vcam_profile *p)
{
	uint32_t best = 0;
	for (unsigned i = 0; i < p->n_alts; i++)
		if (vcam_alt_bytes(&p->alts[i]) > best)
			best = vcam_alt_bytes(&p->alts[i]);
	return best;
}

uint16_t vcam_profile_bulk_packet(const struct vcam_profile *p)
{
	return p->speed == VCAM_SUPER_SPEED ? 1024 : 512;
}
