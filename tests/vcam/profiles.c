/* The built-in camera profiles (uvcuse-vcam --list-profiles). */
#include "profile.h"

#include <string.h>

#define RATES_30_15_5 3, { VCAM_FPS(30), VCAM_FPS(15), VCAM_FPS(5) }
#define RATES_30_15 2, { VCAM_FPS(30), VCAM_FPS(15) }
#define RATES_60_30 2, { VCAM_FPS(60), VCAM_FPS(30) }

/* A USB 2.0 isochronous camera's alternate settings, as webcams ship
 * them: growing packet sizes up to 3 x 1024 bytes per microframe. */
#define HS_ISO_ALTS                                                        \
	.n_alts = 6,                                                       \
	.alts = { { 192, 1, 1 }, { 384, 1, 1 }, { 800, 1, 1 }, { 1024, 1, 1 }, \
		  { 1024, 2, 1 }, { 1024, 3, 1 } }

#define YUYV_DEFAULT                                                       \
	{ VCAM_PIXEL_YUYV, 2, { { 640, 480, RATES_30_15_5 }, { 1280, 720, RATES_30_15_5 } } }
#define MJPEG_DEFAULT                                                      \
	{ VCAM_PIXEL_MJPEG, 3, { { 640, 480, RATES_30_15 }, { 1280, 720, RATES_30_15 }, \
				 { 1920, 1080, RATES_30_15 } } }

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
			{ VCAM_PIXEL_NV12, 2, { { 640, 480, RATES_30_15_5 }, { 1280, 720, RATES_30_15 } } },
			{ VCAM_PIXEL_MJPEG, 2, { { 640, 480, RATES_30_15 }, { 1280, 720, RATES_30_15 } } },
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
			{ VCAM_PIXEL_H264, 2, { { 1280, 720, RATES_30_15 }, { 1920, 1080, RATES_30_15 } } },
			{ VCAM_PIXEL_MJPEG, 1, { { 640, 480, RATES_30_15 } } },
			{ VCAM_PIXEL_YUYV, 1, { { 640, 480, RATES_30_15_5 } } },
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
		.alts = { { 1024, 1, 1 }, { 1024, 4, 1 }, { 1024, 8, 1 }, { 1024, 16, 1 },
			  { 1024, 16, 3 } },
		.n_formats = 2,
		.formats = {
			{ VCAM_PIXEL_YUYV, 3, { { 640, 480, RATES_30_15_5 }, { 1280, 720, RATES_30_15_5 },
						{ 1920, 1080, RATES_30_15_5 } } },
			{ VCAM_PIXEL_MJPEG, 2, { { 1280, 720, RATES_60_30 }, { 1920, 1080, RATES_60_30 } } },
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
