/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The virtual camera's control model: request semantics per UVC 1.1/1.5
 * (read-back, ranges, STALL codes), auto/manual pairs, the camera's own
 * changes driven by a fake clock, the extension unit and the table. */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/usb/video.h>

#include "controls.h"
#include "unit_run.h"

#define MS 1000000ull
#define SEC 1000000000ull

static struct vcam_controls *c;

static void setup(void)
{
	c = vcam_controls_new(0x0150);
	ck_assert_ptr_nonnull(c);
}

static void teardown(void)
{
	vcam_controls_free(c);
	c = NULL;
}

static int req(enum vcam_entity e, uint8_t r, uint8_t sel, uint8_t *d, uint16_t len)
{
	return vcam_controls_request(c, e, r, sel, d, len);
}

static int64_t le(const uint8_t *d, unsigned n, bool is_signed)
{
	uint64_t u = 0;
	for (unsigned i = 0; i < n; i++)
		u |= (uint64_t)d[i] << (8 * i);
	if (is_signed && n < 8 && (u >> (8 * n - 1)) & 1)
		u |= ~0ull << (8 * n);
	return (int64_t)u;
}

static void put_le(uint8_t *d, unsigned n, int64_t v)
{
	for (unsigned i = 0; i < n; i++)
		d[i] = (uint8_t)((uint64_t)v >> (8 * i));
}

/* GET of a 1/2/4-byte single-value control. */
static int64_t get(enum vcam_entity e, uint8_t r, uint8_t sel, unsigned n, bool is_signed)
{
	uint8_t d[8];
	ck_assert_int_eq(req(e, r, sel, d, n), (int)n);
	return le(d, n, is_signed);
}

static int set(enum vcam_entity e, uint8_t sel, unsigned n, int64_t v)
{
	uint8_t d[8];
	put_le(d, n, v);
	return req(e, UVC_SET_CUR, sel, d, n);
}

static uint8_t info(enum vcam_entity e, uint8_t sel)
{
	return (uint8_t)get(e, UVC_GET_INFO, sel, 1, false);
}

/* Reads VC_REQUEST_ERROR_CODE_CONTROL (which resets it). */
static uint8_t error_code(void)
{
	uint8_t b = 0xee;
	ck_assert_int_eq(req(VCAM_ENTITY_INTERFACE, UVC_GET_CUR, UVC_VC_REQUEST_ERROR_CODE_CONTROL,
			     &b, 1),
			 1);
	return b;
}

#define PU VCAM_ENTITY_PROCESSING
#define CT VCAM_ENTITY_CAMERA
#define XU VCAM_ENTITY_EXTENSION
#define VC VCAM_ENTITY_INTERFACE
#define INFO_RW (UVC_CONTROL_CAP_GET | UVC_CONTROL_CAP_SET)
#define INFO_AUTO (INFO_RW | UVC_CONTROL_CAP_AUTOUPDATE)
#define INFO_DISABLED (INFO_AUTO | UVC_CONTROL_CAP_DISABLED)

/* ---- the table ---- */

START_TEST(test_table_self_check)
{
	char msg[128] = "";
	ck_assert_msg(vcam_controls_self_check(msg, sizeof(msg)) == 0, "%s", msg);
}
END_TEST

START_TEST(test_bitmaps_and_names)
{
	/* Exactly the controls uvcvideo 6.1 maps to V4L2 controls (see controls.c). */
	uint32_t pu = 0x1fff; /* bits 0..12: brightness .. WB temperature auto */
	uint32_t ct = 1u << 1 | 1u << 2 | 1u << 3 | 1u << 5 | 1u << 7 | 1u << 9 | 1u << 10 |
		      1u << 11 | 1u << 12 | 1u << 17 | 1u << 18;
	ck_assert_uint_eq(vcam_controls_bitmap(c, PU), pu);
	ck_assert_uint_eq(vcam_controls_bitmap(c, CT), ct);
	ck_assert_uint_eq(vcam_controls_bitmap(c, XU), 0x7);
	ck_assert_uint_eq(vcam_controls_bitmap(c, VC), 0);
	ck_assert_uint_eq(vcam_controls_xu_count(c), 3);
	ck_assert_str_eq(vcam_controls_name(PU, UVC_PU_BRIGHTNESS_CONTROL), "brightness");
	ck_assert_str_eq(vcam_controls_name(CT, UVC_CT_PANTILT_ABSOLUTE_CONTROL),
			 "pan_tilt_absolute");
	ck_assert_str_eq(vcam_controls_name(XU, VCAM_XU_LED_MODE), "xu_led_mode");
	ck_assert_ptr_null(vcam_controls_name(PU, UVC_PU_WHITE_BALANCE_COMPONENT_AUTO_CONTROL));
	ck_assert_ptr_null(vcam_controls_name(CT, UVC_CT_IRIS_RELATIVE_CONTROL));
	/* {7663616d-7563-4573-8d1e-3c5a9f2b6e01}: first groups little-endian. */
	ck_assert_uint_eq(vcam_xu_guid[0], 0x6d);
	ck_assert_uint_eq(vcam_xu_guid[3], 0x76);
	ck_assert_uint_eq(vcam_xu_guid[7], 0x45);
	ck_assert_uint_eq(vcam_xu_guid[8], 0x8d);
	ck_assert_uint_eq(vcam_xu_guid[15], 0x01);
}
END_TEST

/* Every offered control, seen from the host: GET_INFO/LEN/CUR work, DEF, MIN
 * and MAX (where supported) are accepted by SET_CUR and read back, and
 * selectors that are not offered STALL with "invalid control". */
START_TEST(test_sweep_every_control)
{
	static const enum vcam_entity entities[] = { CT, PU, XU };
	for (unsigned e = 0; e < 3; e++) {
		unsigned found = 0;
		for (unsigned sel = 1; sel < 0x20; sel++) {
			uint8_t d[8], d2[8];
			int r = req(entities[e], UVC_GET_INFO, (uint8_t)sel, d, 1);
			if (r < 0) {
				ck_assert_uint_eq(error_code(), VCAM_ERR_INVALID_CONTROL);
				ck_assert_ptr_null(vcam_controls_name(entities[e], (uint8_t)sel));
				continue;
			}
			found++;
			ck_assert_ptr_nonnull(vcam_controls_name(entities[e], (uint8_t)sel));
			uint8_t caps = d[0];
			ck_assert(caps & UVC_CONTROL_CAP_GET);
			ck_assert(!(caps & UVC_CONTROL_CAP_DISABLED)); /* nothing automatic yet */
			ck_assert(!(caps & UVC_CONTROL_CAP_ASYNCHRONOUS));
			unsigned size = (unsigned)get(entities[e], UVC_GET_LEN, (uint8_t)sel, 2, false);
			ck_assert_uint_ge(size, 1);
			ck_assert_uint_le(size, 8);
			ck_assert_int_eq(req(entities[e], UVC_GET_CUR, (uint8_t)sel, d, (uint16_t)size),
					 (int)size);
			if (!(caps & UVC_CONTROL_CAP_SET))
				continue;
			static const uint8_t attrs[] = { UVC_GET_DEF, UVC_GET_MIN, UVC_GET_MAX,
							 UVC_GET_DEF };
			for (unsigned a = 0; a < sizeof(attrs); a++) {
				if (req(entities[e], attrs[a], (uint8_t)sel, d, (uint16_t)size) < 0) {
					ck_assert_uint_eq(error_code(), VCAM_ERR_INVALID_REQUEST);
					continue;
				}
				ck_assert_msg(req(entities[e], UVC_SET_CUR, (uint8_t)sel, d,
						  (uint16_t)size) == 0,
					      "%s: SET_CUR of request 0x%02x's value",
					      vcam_controls_name(entities[e], (uint8_t)sel), attrs[a]);
				ck_assert_int_eq(req(entities[e], UVC_GET_CUR, (uint8_t)sel, d2,
						     (uint16_t)size),
						 (int)size);
				ck_assert_mem_eq(d, d2, size);
			}
		}
		ck_assert_uint_eq(found, (unsigned)__builtin_popcount(vcam_controls_bitmap(c,
											    entities[e])));
	}
}
END_TEST

/* ---- read-back, ranges, attributes ---- */

START_TEST(test_brightness)
{
	unsigned gen = vcam_controls_picture_generation(c);
	ck_assert_int_eq(vcam_controls_brightness(c), 0);
	ck_assert_int_eq(get(PU, UVC_GET_MIN, UVC_PU_BRIGHTNESS_CONTROL, 2, true), -64);
	ck_assert_int_eq(get(PU, UVC_GET_MAX, UVC_PU_BRIGHTNESS_CONTROL, 2, true), 64);
	ck_assert_int_eq(get(PU, UVC_GET_RES, UVC_PU_BRIGHTNESS_CONTROL, 2, true), 1);
	ck_assert_int_eq(get(PU, UVC_GET_DEF, UVC_PU_BRIGHTNESS_CONTROL, 2, true), 0);
	ck_assert_int_eq(get(PU, UVC_GET_LEN, UVC_PU_BRIGHTNESS_CONTROL, 2, false), 2);
	ck_assert_uint_eq(info(PU, UVC_PU_BRIGHTNESS_CONTROL), INFO_RW);

	ck_assert_int_eq(set(PU, UVC_PU_BRIGHTNESS_CONTROL, 2, 32), 0);
	ck_assert_int_eq(get(PU, UVC_GET_CUR, UVC_PU_BRIGHTNESS_CONTROL, 2, true), 32);
	ck_assert_int_eq(vcam_controls_brightness(c), 32);
	ck_assert_uint_ne(vcam_controls_picture_generation(c), gen);
	gen = vcam_controls_picture_generation(c);
	ck_assert_int_eq(set(PU, UVC_PU_BRIGHTNESS_CONTROL, 2, 32), 0);
	ck_assert_uint_eq(vcam_controls_picture_generation(c), gen);
	ck_assert_int_eq(set(PU, UVC_PU_BRIGHTNESS_CONTROL, 2, -64), 0);
	ck_assert_int_eq(vcam_controls_brightness(c), -64);
	ck_assert_uint_ne(vcam_controls_picture_generation(c), gen);
	gen = vcam_controls_picture_generation(c);
	/* Other controls leave the picture alone. */
	ck_assert_int_eq(set(PU, UVC_PU_CONTRAST_CONTROL, 2, 70), 0);
	ck_assert_uint_eq(vcam_controls_picture_generation(c), gen);
}
END_TEST

START_TEST(test_typical_ranges)
{
	ck_assert_int_eq(get(PU, UVC_GET_MIN, UVC_PU_WHITE_BALANCE_TEMPERATURE_CONTROL, 2, false),
			 2800);
	ck_assert_int_eq(get(PU, UVC_GET_MAX, UVC_PU_WHITE_BALANCE_TEMPERATURE_CONTROL, 2, false),
			 6500);
	ck_assert_int_eq(get(PU, UVC_GET_RES, UVC_PU_WHITE_BALANCE_TEMPERATURE_CONTROL, 2, false),
			 10);
	ck_assert_int_eq(get(PU, UVC_GET_DEF, UVC_PU_WHITE_BALANCE_TEMPERATURE_CONTROL, 2, false),
			 4600);
	ck_assert_int_eq(get(CT, UVC_GET_MIN, UVC_CT_EXPOSURE_TIME_ABSOLUTE_CONTROL, 4, false), 3);
	ck_assert_int_eq(get(CT, UVC_GET_MAX, UVC_CT_EXPOSURE_TIME_ABSOLUTE_CONTROL, 4, false),
			 2047);
	ck_assert_int_eq(get(CT, UVC_GET_DEF, UVC_CT_EXPOSURE_TIME_ABSOLUTE_CONTROL, 4, false), 156);
	ck_assert_int_eq(get(CT, UVC_GET_LEN, UVC_CT_EXPOSURE_TIME_ABSOLUTE_CONTROL, 2, false), 4);
	ck_assert_uint_eq(info(CT, UVC_CT_EXPOSURE_TIME_ABSOLUTE_CONTROL), INFO_AUTO);
	ck_assert_int_eq(get(CT, UVC_GET_LEN, UVC_CT_PANTILT_ABSOLUTE_CONTROL, 2, false), 8);
	ck_assert_int_eq(get(CT, UVC_GET_LEN, UVC_CT_ZOOM_RELATIVE_CONTROL, 2, false), 3);
	ck_assert_int_eq(get(PU, UVC_GET_LEN, UVC_PU_WHITE_BALANCE_COMPONENT_CONTROL, 2, false), 4);

	/* White balance component: blue then red, 0..1023, 512 each. */
	uint8_t d[4];
	ck_assert_int_eq(req(PU, UVC_GET_MAX, UVC_PU_WHITE_BALANCE_COMPONENT_CONTROL, d, 4), 4);
	ck_assert_int_eq(le(d, 2, false), 1023);
	ck_assert_int_eq(le(d + 2, 2, false), 1023);
	put_le(d, 2, 500);
	put_le(d + 2, 2, 600);
	ck_assert_int_eq(req(PU, UVC_SET_CUR, UVC_PU_WHITE_BALANCE_COMPONENT_CONTROL, d, 4), 0);
	memset(d, 0, 4);
	ck_assert_int_eq(req(PU, UVC_GET_CUR, UVC_PU_WHITE_BALANCE_COMPONENT_CONTROL, d, 4), 4);
	ck_assert_int_eq(le(d, 2, false), 500);
	ck_assert_int_eq(le(d + 2, 2, false), 600);
}
END_TEST

START_TEST(test_pan_tilt_absolute)
{
	uint8_t d[8];
	ck_assert_int_eq(req(CT, UVC_GET_MIN, UVC_CT_PANTILT_ABSOLUTE_CONTROL, d, 8), 8);
	ck_assert_int_eq(le(d, 4, true), -36000);
	ck_assert_int_eq(le(d + 4, 4, true), -36000);
	ck_assert_int_eq(req(CT, UVC_GET_RES, UVC_CT_PANTILT_ABSOLUTE_CONTROL, d, 8), 8);
	ck_assert_int_eq(le(d, 4, true), 3600);
	put_le(d, 4, 7200);
	put_le(d + 4, 4, -3600);
	ck_assert_int_eq(req(CT, UVC_SET_CUR, UVC_CT_PANTILT_ABSOLUTE_CONTROL, d, 8), 0);
	memset(d, 0, 8);
	ck_assert_int_eq(req(CT, UVC_GET_CUR, UVC_CT_PANTILT_ABSOLUTE_CONTROL, d, 8), 8);
	ck_assert_int_eq(le(d, 4, true), 7200);
	ck_assert_int_eq(le(d + 4, 4, true), -3600);
	/* Tilt off the 1-degree grid, pan beyond the range: out of range. */
	put_le(d + 4, 4, 1800);
	ck_assert_int_eq(req(CT, UVC_SET_CUR, UVC_CT_PANTILT_ABSOLUTE_CONTROL, d, 8), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_OUT_OF_RANGE);
	put_le(d, 4, 39600);
	put_le(d + 4, 4, 0);
	ck_assert_int_eq(req(CT, UVC_SET_CUR, UVC_CT_PANTILT_ABSOLUTE_CONTROL, d, 8), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_OUT_OF_RANGE);
	ck_assert_int_eq(req(CT, UVC_GET_CUR, UVC_CT_PANTILT_ABSOLUTE_CONTROL, d, 8), 8);
	ck_assert_int_eq(le(d, 4, true), 7200);
}
END_TEST

/* ---- STALLs and VC_REQUEST_ERROR_CODE_CONTROL ---- */

START_TEST(test_out_of_range)
{
	ck_assert_int_eq(set(PU, UVC_PU_BRIGHTNESS_CONTROL, 2, 65), -1);
	ck_assert_uint_eq(vcam_controls_error(c), VCAM_ERR_OUT_OF_RANGE);
	ck_assert_uint_eq(error_code(), VCAM_ERR_OUT_OF_RANGE);
	ck_assert_uint_eq(error_code(), VCAM_ERR_NONE); /* reading it succeeded */
	ck_assert_int_eq(set(PU, UVC_PU_BRIGHTNESS_CONTROL, 2, -65), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_OUT_OF_RANGE);
	/* Off the RES grid is out of range too (UVC 4.2.1.2). */
	ck_assert_int_eq(set(PU, UVC_PU_WHITE_BALANCE_TEMPERATURE_CONTROL, 2, 4605), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_OUT_OF_RANGE);
	ck_assert_int_eq(set(PU, UVC_PU_WHITE_BALANCE_TEMPERATURE_CONTROL, 2, 2790), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_OUT_OF_RANGE);
	ck_assert_int_eq(set(CT, UVC_CT_FOCUS_ABSOLUTE_CONTROL, 2, 7), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_OUT_OF_RANGE);
	ck_assert_int_eq(set(CT, UVC_CT_PRIVACY_CONTROL, 1, 2), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_OUT_OF_RANGE);
	/* Nothing changed. */
	ck_assert_int_eq(get(PU, UVC_GET_CUR, UVC_PU_BRIGHTNESS_CONTROL, 2, true), 0);
	ck_assert_int_eq(get(PU, UVC_GET_CUR, UVC_PU_WHITE_BALANCE_TEMPERATURE_CONTROL, 2, false),
			 4600);
}
END_TEST

START_TEST(test_wrong_length)
{
	uint8_t d[8] = { 0 };
	ck_assert_int_eq(req(PU, UVC_SET_CUR, UVC_PU_BRIGHTNESS_CONTROL, d, 1), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_UNKNOWN);
	ck_assert_int_eq(req(PU, UVC_GET_CUR, UVC_PU_BRIGHTNESS_CONTROL, d, 4), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_UNKNOWN);
	ck_assert_int_eq(req(PU, UVC_GET_INFO, UVC_PU_BRIGHTNESS_CONTROL, d, 2), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_UNKNOWN);
	ck_assert_int_eq(req(PU, UVC_GET_LEN, UVC_PU_BRIGHTNESS_CONTROL, d, 1), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_UNKNOWN);
	ck_assert_int_eq(req(CT, UVC_SET_CUR, UVC_CT_PANTILT_ABSOLUTE_CONTROL, d, 4), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_UNKNOWN);
}
END_TEST

START_TEST(test_unsupported_requests)
{
	uint8_t d[8] = { 0 };
	/* Not among the control's requests in the spec. */
	ck_assert_int_eq(req(CT, UVC_GET_MIN, UVC_CT_AE_MODE_CONTROL, d, 1), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_INVALID_REQUEST);
	ck_assert_int_eq(req(PU, UVC_GET_MAX, UVC_PU_POWER_LINE_FREQUENCY_CONTROL, d, 1), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_INVALID_REQUEST);
	ck_assert_int_eq(req(CT, UVC_GET_DEF, UVC_CT_AE_PRIORITY_CONTROL, d, 1), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_INVALID_REQUEST);
	ck_assert_int_eq(req(CT, UVC_GET_RES, UVC_CT_PRIVACY_CONTROL, d, 1), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_INVALID_REQUEST);
	/* Not a request at all, and UVC 1.5's GET_*_ALL family. */
	ck_assert_int_eq(req(PU, 0x02, UVC_PU_BRIGHTNESS_CONTROL, d, 2), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_INVALID_REQUEST);
	ck_assert_int_eq(req(PU, 0x91, UVC_PU_BRIGHTNESS_CONTROL, d, 2), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_INVALID_REQUEST);
	/* Read-only controls. */
	ck_assert_int_eq(req(XU, UVC_SET_CUR, VCAM_XU_REQUEST_COUNTER, d, 4), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_INVALID_REQUEST);
	ck_assert_int_eq(req(VC, UVC_SET_CUR, UVC_VC_REQUEST_ERROR_CODE_CONTROL, d, 1), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_INVALID_REQUEST);
	ck_assert_int_eq(req(VC, UVC_GET_LEN, UVC_VC_VIDEO_POWER_MODE_CONTROL, d, 2), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_INVALID_REQUEST);
}
END_TEST

START_TEST(test_invalid_control_and_unit)
{
	uint8_t d[8] = { 0 };
	/* Defined by UVC but not offered (uvcvideo would not show them). */
	ck_assert_int_eq(req(PU, UVC_GET_INFO, UVC_PU_WHITE_BALANCE_COMPONENT_AUTO_CONTROL, d, 1),
			 -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_INVALID_CONTROL);
	ck_assert_int_eq(req(CT, UVC_SET_CUR, UVC_CT_IRIS_RELATIVE_CONTROL, d, 1), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_INVALID_CONTROL);
	ck_assert_int_eq(req(CT, UVC_GET_CUR, UVC_CT_SCANNING_MODE_CONTROL, d, 1), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_INVALID_CONTROL);
	ck_assert_int_eq(req(XU, UVC_GET_INFO, 4, d, 1), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_INVALID_CONTROL);
	ck_assert_int_eq(req(VC, UVC_GET_INFO, 3, d, 1), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_INVALID_CONTROL);
	ck_assert_int_eq(req((enum vcam_entity)9, UVC_GET_INFO, 1, d, 1), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_INVALID_UNIT);
	/* Refusals by the caller are kept the same way. */
	ck_assert_int_eq(vcam_controls_reject(c, VCAM_ERR_INVALID_UNIT), -1);
	ck_assert_uint_eq(vcam_controls_error(c), VCAM_ERR_INVALID_UNIT);
	ck_assert_uint_eq(error_code(), VCAM_ERR_INVALID_UNIT);
}
END_TEST

START_TEST(test_error_code_control)
{
	uint8_t d[2];
	ck_assert_uint_eq(info(VC, UVC_VC_REQUEST_ERROR_CODE_CONTROL), UVC_CONTROL_CAP_GET);
	ck_assert_uint_eq(error_code(), VCAM_ERR_NONE);
	ck_assert_int_eq(set(PU, UVC_PU_GAIN_CONTROL, 2, 101), -1);
	/* Any successful request clears it, not only reading it. */
	ck_assert_int_eq(req(PU, UVC_GET_CUR, UVC_PU_GAIN_CONTROL, d, 2), 2);
	ck_assert_uint_eq(vcam_controls_error(c), VCAM_ERR_NONE);
	ck_assert_uint_eq(error_code(), VCAM_ERR_NONE);
}
END_TEST

START_TEST(test_power_mode)
{
	ck_assert_uint_eq(info(VC, UVC_VC_VIDEO_POWER_MODE_CONTROL), INFO_RW);
	/* Full power, bus powered, no device dependent mode. */
	ck_assert_int_eq(get(VC, UVC_GET_CUR, UVC_VC_VIDEO_POWER_MODE_CONTROL, 1, false), 0x20);
	ck_assert_int_eq(set(VC, UVC_VC_VIDEO_POWER_MODE_CONTROL, 1, 0x00), 0);
	ck_assert_int_eq(set(VC, UVC_VC_VIDEO_POWER_MODE_CONTROL, 1, 0x20), 0); /* RO bits ignored */
	ck_assert_int_eq(set(VC, UVC_VC_VIDEO_POWER_MODE_CONTROL, 1, 0x01), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_INVALID_VALUE);
	ck_assert_int_eq(set(VC, UVC_VC_VIDEO_POWER_MODE_CONTROL, 1, 0x05), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_OUT_OF_RANGE);
	ck_assert_int_eq(get(VC, UVC_GET_CUR, UVC_VC_VIDEO_POWER_MODE_CONTROL, 1, false), 0x20);
}
END_TEST

START_TEST(test_power_line_frequency_versions)
{
	struct vcam_controls *c11 = vcam_controls_new(0x0110);
	uint8_t d = 3;
	ck_assert_ptr_nonnull(c11);
	ck_assert_int_eq(vcam_controls_request(c11, PU, UVC_GET_DEF,
					       UVC_PU_POWER_LINE_FREQUENCY_CONTROL, &d, 1),
			 1);
	ck_assert_uint_eq(d, 1); /* 50 Hz */
	d = 3;                   /* Auto exists from UVC 1.5 on */
	ck_assert_int_eq(vcam_controls_request(c11, PU, UVC_SET_CUR,
					       UVC_PU_POWER_LINE_FREQUENCY_CONTROL, &d, 1),
			 -1);
	ck_assert_uint_eq(vcam_controls_error(c11), VCAM_ERR_OUT_OF_RANGE);
	d = 2;
	ck_assert_int_eq(vcam_controls_request(c11, PU, UVC_SET_CUR,
					       UVC_PU_POWER_LINE_FREQUENCY_CONTROL, &d, 1),
			 0);
	vcam_controls_free(c11);

	ck_assert_int_eq(set(PU, UVC_PU_POWER_LINE_FREQUENCY_CONTROL, 1, 3), 0);
	ck_assert_int_eq(get(PU, UVC_GET_CUR, UVC_PU_POWER_LINE_FREQUENCY_CONTROL, 1, false), 3);
	ck_assert_int_eq(set(PU, UVC_PU_POWER_LINE_FREQUENCY_CONTROL, 1, 4), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_OUT_OF_RANGE);

	ck_assert_ptr_null(vcam_controls_new(0x0100));
	ck_assert_ptr_null(vcam_controls_new(0x0200));
}
END_TEST

/* ---- automatic modes ---- */

START_TEST(test_auto_modes_default_to_manual)
{
	ck_assert_int_eq(get(PU, UVC_GET_DEF, UVC_PU_WHITE_BALANCE_TEMPERATURE_AUTO_CONTROL, 1, false),
			 0);
	ck_assert_int_eq(get(PU, UVC_GET_CUR, UVC_PU_WHITE_BALANCE_TEMPERATURE_AUTO_CONTROL, 1, false),
			 0);
	ck_assert_int_eq(get(PU, UVC_GET_DEF, UVC_PU_HUE_AUTO_CONTROL, 1, false), 0);
	ck_assert_int_eq(get(CT, UVC_GET_DEF, UVC_CT_FOCUS_AUTO_CONTROL, 1, false), 0);
	ck_assert_int_eq(get(CT, UVC_GET_DEF, UVC_CT_AE_MODE_CONTROL, 1, false), 0x01);
	ck_assert_int_eq(get(CT, UVC_GET_CUR, UVC_CT_AE_MODE_CONTROL, 1, false), 0x01);
	ck_assert_uint_eq(info(PU, UVC_PU_WHITE_BALANCE_TEMPERATURE_CONTROL), INFO_AUTO);
	ck_assert_uint_eq(info(PU, UVC_PU_HUE_CONTROL), INFO_AUTO);
	ck_assert_uint_eq(info(CT, UVC_CT_FOCUS_ABSOLUTE_CONTROL), INFO_AUTO);
	ck_assert_uint_eq(info(CT, UVC_CT_IRIS_ABSOLUTE_CONTROL), INFO_AUTO);
}
END_TEST

START_TEST(test_ae_mode)
{
	/* Manual and Auto supported; Manual is the last V4L2 menu item. */
	ck_assert_int_eq(get(CT, UVC_GET_RES, UVC_CT_AE_MODE_CONTROL, 1, false), 0x03);
	ck_assert_int_eq(set(CT, UVC_CT_AE_MODE_CONTROL, 1, 0x08), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_INVALID_VALUE);
	ck_assert_int_eq(set(CT, UVC_CT_AE_MODE_CONTROL, 1, 0x04), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_INVALID_VALUE);
	ck_assert_int_eq(set(CT, UVC_CT_AE_MODE_CONTROL, 1, 0x03), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_OUT_OF_RANGE);
	ck_assert_int_eq(set(CT, UVC_CT_AE_MODE_CONTROL, 1, 0x00), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_OUT_OF_RANGE);
	ck_assert_int_eq(set(CT, UVC_CT_AE_MODE_CONTROL, 1, 0x10), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_OUT_OF_RANGE);

	ck_assert_int_eq(set(CT, UVC_CT_AE_MODE_CONTROL, 1, 0x02), 0);
	ck_assert_int_eq(get(CT, UVC_GET_CUR, UVC_CT_AE_MODE_CONTROL, 1, false), 0x02);
	/* Auto mode takes exposure time and iris over. */
	ck_assert_uint_eq(info(CT, UVC_CT_EXPOSURE_TIME_ABSOLUTE_CONTROL), INFO_DISABLED);
	ck_assert_uint_eq(info(CT, UVC_CT_IRIS_ABSOLUTE_CONTROL), INFO_DISABLED);
	ck_assert_uint_eq(info(CT, UVC_CT_FOCUS_ABSOLUTE_CONTROL), INFO_AUTO);
	ck_assert_int_eq(set(CT, UVC_CT_EXPOSURE_TIME_ABSOLUTE_CONTROL, 4, 500), 0);
	ck_assert_int_eq(get(CT, UVC_GET_CUR, UVC_CT_EXPOSURE_TIME_ABSOLUTE_CONTROL, 4, false), 156);
	ck_assert_int_eq(set(CT, UVC_CT_AE_MODE_CONTROL, 1, 0x01), 0);
	ck_assert_uint_eq(info(CT, UVC_CT_EXPOSURE_TIME_ABSOLUTE_CONTROL), INFO_AUTO);
	ck_assert_int_eq(get(CT, UVC_GET_CUR, UVC_CT_EXPOSURE_TIME_ABSOLUTE_CONTROL, 4, false), 500);
}
END_TEST

/* The uvcvideo S_EXT_CTRLS {white_balance_automatic=0, temperature=T} order:
 * the manual value arrives while auto is still on, and must win. */
START_TEST(test_wb_manual_value_kept_while_auto)
{
	ck_assert_int_eq(set(PU, UVC_PU_WHITE_BALANCE_TEMPERATURE_CONTROL, 2, 5000), 0);
	ck_assert_int_eq(set(PU, UVC_PU_WHITE_BALANCE_TEMPERATURE_AUTO_CONTROL, 1, 1), 0);
	ck_assert_uint_eq(info(PU, UVC_PU_WHITE_BALANCE_TEMPERATURE_CONTROL), INFO_DISABLED);
	ck_assert_uint_eq(info(PU, UVC_PU_WHITE_BALANCE_COMPONENT_CONTROL), INFO_DISABLED);
	/* The loop starts from the value in use. */
	ck_assert_int_eq(get(PU, UVC_GET_CUR, UVC_PU_WHITE_BALANCE_TEMPERATURE_CONTROL, 2, false),
			 5000);
	/* The component follows the AWB loop: (4600 - 5000) / 10 = -40. */
	uint8_t d[4];
	ck_assert_int_eq(req(PU, UVC_GET_CUR, UVC_PU_WHITE_BALANCE_COMPONENT_CONTROL, d, 4), 4);
	ck_assert_int_eq(le(d, 2, false), 472);
	ck_assert_int_eq(le(d + 2, 2, false), 552);

	ck_assert_int_eq(set(PU, UVC_PU_WHITE_BALANCE_TEMPERATURE_CONTROL, 2, 3000), 0);
	ck_assert_int_eq(get(PU, UVC_GET_CUR, UVC_PU_WHITE_BALANCE_TEMPERATURE_CONTROL, 2, false),
			 5000);
	/* Out-of-range values are refused whatever the mode. */
	ck_assert_int_eq(set(PU, UVC_PU_WHITE_BALANCE_TEMPERATURE_CONTROL, 2, 9000), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_OUT_OF_RANGE);

	ck_assert_int_eq(set(PU, UVC_PU_WHITE_BALANCE_TEMPERATURE_AUTO_CONTROL, 1, 0), 0);
	ck_assert_uint_eq(info(PU, UVC_PU_WHITE_BALANCE_TEMPERATURE_CONTROL), INFO_AUTO);
	ck_assert_int_eq(get(PU, UVC_GET_CUR, UVC_PU_WHITE_BALANCE_TEMPERATURE_CONTROL, 2, false),
			 3000);
	ck_assert_int_eq(req(PU, UVC_GET_CUR, UVC_PU_WHITE_BALANCE_COMPONENT_CONTROL, d, 4), 4);
	ck_assert_int_eq(le(d, 2, false), 512);
}
END_TEST

START_TEST(test_hue_and_focus_auto)
{
	ck_assert_int_eq(set(PU, UVC_PU_HUE_AUTO_CONTROL, 1, 1), 0);
	ck_assert_uint_eq(info(PU, UVC_PU_HUE_CONTROL), INFO_DISABLED);
	ck_assert_int_eq(set(PU, UVC_PU_HUE_CONTROL, 2, -30), 0);
	ck_assert_int_eq(get(PU, UVC_GET_CUR, UVC_PU_HUE_CONTROL, 2, true), 0);
	ck_assert_int_eq(set(CT, UVC_CT_FOCUS_AUTO_CONTROL, 1, 1), 0);
	ck_assert_uint_eq(info(CT, UVC_CT_FOCUS_ABSOLUTE_CONTROL), INFO_DISABLED);
	ck_assert_int_eq(vcam_controls_tick(c, 0, NULL, 0), 0);
	struct vcam_control_event ev[8];
	size_t n = vcam_controls_tick(c, 1 * SEC, ev, 8);
	/* Hue steps 0 -> 2, focus hunts 0 -> 5 (and both info bytes changed). */
	ck_assert_uint_eq(n, 4);
	ck_assert_int_eq(get(PU, UVC_GET_CUR, UVC_PU_HUE_CONTROL, 2, true), 2);
	ck_assert_int_eq(get(CT, UVC_GET_CUR, UVC_CT_FOCUS_ABSOLUTE_CONTROL, 2, false), 5);
	ck_assert_int_eq(set(PU, UVC_PU_HUE_AUTO_CONTROL, 1, 0), 0);
	ck_assert_int_eq(get(PU, UVC_GET_CUR, UVC_PU_HUE_CONTROL, 2, true), -30);
	ck_assert_int_eq(set(PU, UVC_PU_HUE_AUTO_CONTROL, 1, 2), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_OUT_OF_RANGE);
}
END_TEST

/* ---- the camera's own changes ---- */

static const struct vcam_control_event *find_event(const struct vcam_control_event *ev, size_t n,
						   enum vcam_entity e, uint8_t sel, uint8_t attr)
{
	for (size_t i = 0; i < n; i++)
		if (ev[i].entity == e && ev[i].selector == sel && ev[i].attribute == attr)
			return &ev[i];
	return NULL;
}

START_TEST(test_no_events_while_manual)
{
	struct vcam_control_event ev[16];
	for (uint64_t t = 0; t < 30 * SEC; t += 250 * MS)
		ck_assert_uint_eq(vcam_controls_tick(c, t, ev, 16), 0);
}
END_TEST

START_TEST(test_wb_drift_events)
{
	struct vcam_control_event ev[16];
	const struct vcam_control_event *e;
	const uint64_t t0 = 123456789;
	size_t n;

	ck_assert_int_eq(set(PU, UVC_PU_WHITE_BALANCE_TEMPERATURE_AUTO_CONTROL, 1, 1), 0);
	/* First tick: only the GET_INFO changes (D2) are news. */
	n = vcam_controls_tick(c, t0, ev, 16);
	ck_assert_uint_eq(n, 2);
	e = find_event(ev, n, PU, UVC_PU_WHITE_BALANCE_TEMPERATURE_CONTROL, VCAM_ATTR_INFO);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->length, 1);
	ck_assert_uint_eq(e->value[0], INFO_DISABLED);
	ck_assert_ptr_nonnull(
		find_event(ev, n, PU, UVC_PU_WHITE_BALANCE_COMPONENT_CONTROL, VCAM_ATTR_INFO));

	ck_assert_uint_eq(vcam_controls_tick(c, t0 + 999 * MS, ev, 16), 0);
	n = vcam_controls_tick(c, t0 + 1 * SEC, ev, 16);
	ck_assert_uint_eq(n, 2);
	e = find_event(ev, n, PU, UVC_PU_WHITE_BALANCE_TEMPERATURE_CONTROL, VCAM_ATTR_VALUE);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->length, 2);
	ck_assert_int_eq(le(e->value, 2, false), 4650);
	e = find_event(ev, n, PU, UVC_PU_WHITE_BALANCE_COMPONENT_CONTROL, VCAM_ATTR_VALUE);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->length, 4);
	ck_assert_int_eq(le(e->value, 2, false), 507);
	ck_assert_int_eq(le(e->value + 2, 2, false), 517);
	ck_assert_int_eq(get(PU, UVC_GET_CUR, UVC_PU_WHITE_BALANCE_TEMPERATURE_CONTROL, 2, false),
			 4650);
	ck_assert_uint_eq(vcam_controls_tick(c, t0 + 1 * SEC, ev, 16), 0);

	/* Catching up 24 more steps: up to 5600 by 50, then back down. */
	n = vcam_controls_tick(c, t0 + 25 * SEC + 500 * MS, ev, 16);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(get(PU, UVC_GET_CUR, UVC_PU_WHITE_BALANCE_TEMPERATURE_CONTROL, 2, false),
			 5350);
	for (uint64_t t = 26; t < 200; t++) {
		vcam_controls_tick(c, t0 + t * SEC, ev, 16);
		int64_t v = get(PU, UVC_GET_CUR, UVC_PU_WHITE_BALANCE_TEMPERATURE_CONTROL, 2, false);
		ck_assert_int_ge(v, 4000);
		ck_assert_int_le(v, 5600);
		ck_assert_int_eq((v - 2800) % 10, 0);
	}
	/* The picture does not depend on white balance (yet). */
	ck_assert_uint_eq(vcam_controls_picture_generation(c), 0);

	/* Auto off: back to the manual 4600, D2 cleared, both reported. */
	ck_assert_int_eq(set(PU, UVC_PU_WHITE_BALANCE_TEMPERATURE_AUTO_CONTROL, 1, 0), 0);
	n = vcam_controls_tick(c, t0 + 300 * SEC, ev, 16);
	ck_assert_uint_eq(n, 4);
	e = find_event(ev, n, PU, UVC_PU_WHITE_BALANCE_TEMPERATURE_CONTROL, VCAM_ATTR_VALUE);
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(le(e->value, 2, false), 4600);
	e = find_event(ev, n, PU, UVC_PU_WHITE_BALANCE_TEMPERATURE_CONTROL, VCAM_ATTR_INFO);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->value[0], INFO_AUTO);
	ck_assert_uint_eq(vcam_controls_tick(c, t0 + 400 * SEC, ev, 16), 0);
}
END_TEST

/* Two cameras fed the same requests and times say the same things. */
START_TEST(test_drift_deterministic)
{
	struct vcam_controls *a = vcam_controls_new(0x0110), *b = vcam_controls_new(0x0110);
	uint8_t on = 1, ae = 0x02;
	struct vcam_control_event ea[16], eb[16];

	ck_assert_int_eq(vcam_controls_request(a, PU, UVC_SET_CUR,
					       UVC_PU_WHITE_BALANCE_TEMPERATURE_AUTO_CONTROL, &on, 1),
			 0);
	ck_assert_int_eq(vcam_controls_request(b, PU, UVC_SET_CUR,
					       UVC_PU_WHITE_BALANCE_TEMPERATURE_AUTO_CONTROL, &on, 1),
			 0);
	ck_assert_int_eq(vcam_controls_request(a, CT, UVC_SET_CUR, UVC_CT_AE_MODE_CONTROL, &ae, 1), 0);
	ck_assert_int_eq(vcam_controls_request(b, CT, UVC_SET_CUR, UVC_CT_AE_MODE_CONTROL, &ae, 1), 0);
	uint64_t t = 5;
	for (int i = 0; i < 100; i++) {
		t += (uint64_t)(i * 37 % 1300) * MS;
		size_t na = vcam_controls_tick(a, t, ea, 16), nb = vcam_controls_tick(b, t, eb, 16);
		ck_assert_uint_eq(na, nb);
		for (size_t k = 0; k < na; k++) {
			ck_assert_int_eq(ea[k].entity, eb[k].entity);
			ck_assert_uint_eq(ea[k].selector, eb[k].selector);
			ck_assert_uint_eq(ea[k].attribute, eb[k].attribute);
			ck_assert_uint_eq(ea[k].length, eb[k].length);
			ck_assert_mem_eq(ea[k].value, eb[k].value, ea[k].length);
		}
	}
	vcam_controls_free(a);
	vcam_controls_free(b);
}
END_TEST

START_TEST(test_exposure_drift)
{
	struct vcam_control_event ev[16];
	const struct vcam_control_event *e;

	ck_assert_int_eq(set(CT, UVC_CT_AE_MODE_CONTROL, 1, 0x02), 0);
	ck_assert_uint_eq(vcam_controls_tick(c, 0, ev, 16), 2); /* exposure and iris D2 */
	size_t n = vcam_controls_tick(c, 1 * SEC, ev, 16);
	ck_assert_uint_eq(n, 2);
	e = find_event(ev, n, CT, UVC_CT_EXPOSURE_TIME_ABSOLUTE_CONTROL, VCAM_ATTR_VALUE);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->length, 4);
	ck_assert_int_eq(le(e->value, 4, false), 160);
	e = find_event(ev, n, CT, UVC_CT_IRIS_ABSOLUTE_CONTROL, VCAM_ATTR_VALUE);
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(le(e->value, 2, false), 210);
}
END_TEST

START_TEST(test_events_respect_max)
{
	struct vcam_control_event ev[4];
	ck_assert_int_eq(set(PU, UVC_PU_WHITE_BALANCE_TEMPERATURE_AUTO_CONTROL, 1, 1), 0);
	ck_assert_uint_eq(vcam_controls_tick(c, 0, ev, 1), 1);
	ck_assert_uint_eq(vcam_controls_tick(c, 0, ev, 1), 1);
	ck_assert_uint_eq(vcam_controls_tick(c, 0, ev, 4), 0);
	ck_assert_uint_eq(vcam_controls_tick(c, 1 * SEC, ev, 0), 0);
	ck_assert_uint_eq(vcam_controls_tick(c, 1 * SEC, ev, 4), 2);
}
END_TEST

START_TEST(test_zoom_relative_motion)
{
	struct vcam_control_event ev[16];
	const struct vcam_control_event *e;
	uint8_t d[3];

	/* Ranges as uvcvideo reads them: bSpeed 0..7, default "stopped". */
	ck_assert_int_eq(req(CT, UVC_GET_MIN, UVC_CT_ZOOM_RELATIVE_CONTROL, d, 3), 3);
	ck_assert_uint_eq(d[0], 0xff);
	ck_assert_uint_eq(d[2], 0);
	ck_assert_int_eq(req(CT, UVC_GET_MAX, UVC_CT_ZOOM_RELATIVE_CONTROL, d, 3), 3);
	ck_assert_uint_eq(d[0], 1);
	ck_assert_uint_eq(d[2], 7);
	ck_assert_int_eq(req(CT, UVC_GET_DEF, UVC_CT_ZOOM_RELATIVE_CONTROL, d, 3), 3);
	ck_assert_uint_eq(d[0] | d[1] | d[2], 0);

	uint8_t bad[][3] = { { 2, 0, 1 }, { 1, 1, 1 }, { 1, 0, 8 } };
	for (unsigned i = 0; i < 3; i++) {
		ck_assert_int_eq(req(CT, UVC_SET_CUR, UVC_CT_ZOOM_RELATIVE_CONTROL, bad[i], 3), -1);
		ck_assert_uint_eq(error_code(), VCAM_ERR_OUT_OF_RANGE);
	}

	uint8_t tele[3] = { 1, 0, 7 };
	ck_assert_int_eq(req(CT, UVC_SET_CUR, UVC_CT_ZOOM_RELATIVE_CONTROL, tele, 3), 0);
	ck_assert_uint_eq(vcam_controls_tick(c, 10 * SEC, ev, 16), 0);
	size_t n = vcam_controls_tick(c, 10 * SEC + 100 * MS, ev, 16);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(ev[0].selector, UVC_CT_ZOOM_ABSOLUTE_CONTROL);
	ck_assert_int_eq(le(ev[0].value, 2, false), 107);
	/* 300 steps of 1 at speed 7: the end of the range after 43 steps. */
	n = vcam_controls_tick(c, 20 * SEC, ev, 16);
	ck_assert_uint_eq(n, 2);
	e = find_event(ev, n, CT, UVC_CT_ZOOM_ABSOLUTE_CONTROL, VCAM_ATTR_VALUE);
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(le(e->value, 2, false), 400);
	e = find_event(ev, n, CT, UVC_CT_ZOOM_RELATIVE_CONTROL, VCAM_ATTR_VALUE);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->length, 3);
	ck_assert_uint_eq(e->value[0], 0); /* stopped */
	ck_assert_int_eq(req(CT, UVC_GET_CUR, UVC_CT_ZOOM_RELATIVE_CONTROL, d, 3), 3);
	ck_assert_uint_eq(d[0], 0);
	ck_assert_uint_eq(vcam_controls_tick(c, 30 * SEC, ev, 16), 0);

	/* Wide at speed 2 for 0.5 s, then stop: 400 - 5 * 2. */
	uint8_t wide[3] = { 0xff, 0, 2 }, stop[3] = { 0, 0, 0 };
	ck_assert_int_eq(req(CT, UVC_SET_CUR, UVC_CT_ZOOM_RELATIVE_CONTROL, wide, 3), 0);
	vcam_controls_tick(c, 31 * SEC, ev, 16);
	vcam_controls_tick(c, 31 * SEC + 500 * MS, ev, 16);
	ck_assert_int_eq(req(CT, UVC_SET_CUR, UVC_CT_ZOOM_RELATIVE_CONTROL, stop, 3), 0);
	vcam_controls_tick(c, 40 * SEC, ev, 16);
	ck_assert_int_eq(get(CT, UVC_GET_CUR, UVC_CT_ZOOM_ABSOLUTE_CONTROL, 2, false), 390);
}
END_TEST

START_TEST(test_pan_relative_motion)
{
	struct vcam_control_event ev[16];
	uint8_t right[4] = { 1, 4, 0, 0 }, d[4];

	ck_assert_int_eq(req(CT, UVC_GET_MAX, UVC_CT_PANTILT_RELATIVE_CONTROL, d, 4), 4);
	ck_assert_uint_eq(d[1], 4);
	ck_assert_uint_eq(d[3], 4);
	ck_assert_int_eq(req(CT, UVC_SET_CUR, UVC_CT_PANTILT_RELATIVE_CONTROL, right, 4), 0);
	vcam_controls_tick(c, 0, ev, 16);
	vcam_controls_tick(c, 100 * MS, ev, 16);
	uint8_t pt[8];
	ck_assert_int_eq(req(CT, UVC_GET_CUR, UVC_CT_PANTILT_ABSOLUTE_CONTROL, pt, 8), 8);
	ck_assert_int_eq(le(pt, 4, true), 4 * 3600);
	ck_assert_int_eq(le(pt + 4, 4, true), 0);
	vcam_controls_tick(c, 1 * SEC, ev, 16);
	ck_assert_int_eq(req(CT, UVC_GET_CUR, UVC_CT_PANTILT_ABSOLUTE_CONTROL, pt, 8), 8);
	ck_assert_int_eq(le(pt, 4, true), 36000);
	ck_assert_int_eq(req(CT, UVC_GET_CUR, UVC_CT_PANTILT_RELATIVE_CONTROL, d, 4), 4);
	ck_assert_uint_eq(d[0], 0);
}
END_TEST

/* ---- the extension unit ---- */

/* --msxu: the XU's metadata control (selector 9, bmControls bit 8), off
 * until the host sets it, as a camera with Microsoft's metadata has it. */
START_TEST(test_msxu_metadata_control)
{
	uint8_t d[4];
	ck_assert_uint_eq(vcam_controls_msxu_size(c), 0);
	ck_assert_int_eq(req(XU, UVC_GET_CUR, VCAM_XU_MSXU_METADATA, d, 4), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_INVALID_CONTROL);
	vcam_controls_enable_msxu(c);
	ck_assert_uint_eq(vcam_controls_bitmap(c, XU), 0x107);
	ck_assert_uint_eq(vcam_controls_xu_count(c), 4);
	ck_assert_int_eq(get(XU, UVC_GET_LEN, VCAM_XU_MSXU_METADATA, 2, false), 4);
	ck_assert_uint_eq(info(XU, VCAM_XU_MSXU_METADATA), INFO_RW);
	ck_assert_int_eq(get(XU, UVC_GET_CUR, VCAM_XU_MSXU_METADATA, 4, false), 0);
	ck_assert_int_eq(get(XU, UVC_GET_MAX, VCAM_XU_MSXU_METADATA, 4, false), VCAM_MSXU_MAX);
	ck_assert_int_eq(set(XU, VCAM_XU_MSXU_METADATA, 4, VCAM_MSXU_MAX), 0);
	ck_assert_uint_eq(vcam_controls_msxu_size(c), VCAM_MSXU_MAX);
	/* {0f3f95dc-2632-4c4e-92c9-a04782f43bc8}, first groups little-endian */
	ck_assert_uint_eq(vcam_msxu_guid[0], 0xdc);
	ck_assert_uint_eq(vcam_msxu_guid[15], 0xc8);
}
END_TEST

START_TEST(test_extension_unit)
{
	ck_assert_int_eq(get(XU, UVC_GET_LEN, VCAM_XU_LED_MODE, 2, false), 1);
	ck_assert_int_eq(get(XU, UVC_GET_LEN, VCAM_XU_TEST_PATTERN, 2, false), 2);
	ck_assert_int_eq(get(XU, UVC_GET_LEN, VCAM_XU_REQUEST_COUNTER, 2, false), 4);
	ck_assert_uint_eq(info(XU, VCAM_XU_LED_MODE), INFO_RW);
	ck_assert_uint_eq(info(XU, VCAM_XU_TEST_PATTERN), INFO_RW);
	ck_assert_uint_eq(info(XU, VCAM_XU_REQUEST_COUNTER), UVC_CONTROL_CAP_GET);

	ck_assert_int_eq(get(XU, UVC_GET_MIN, VCAM_XU_LED_MODE, 1, false), 0);
	ck_assert_int_eq(get(XU, UVC_GET_MAX, VCAM_XU_LED_MODE, 1, false), 3);
	ck_assert_int_eq(get(XU, UVC_GET_RES, VCAM_XU_LED_MODE, 1, false), 1);
	ck_assert_int_eq(get(XU, UVC_GET_DEF, VCAM_XU_LED_MODE, 1, false), 3);
	ck_assert_int_eq(get(XU, UVC_GET_CUR, VCAM_XU_LED_MODE, 1, false), 3);
	ck_assert_int_eq(set(XU, VCAM_XU_LED_MODE, 1, 2), 0);
	ck_assert_int_eq(get(XU, UVC_GET_CUR, VCAM_XU_LED_MODE, 1, false), 2);
	ck_assert_int_eq(set(XU, VCAM_XU_LED_MODE, 1, 4), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_OUT_OF_RANGE);

	ck_assert_int_eq(get(XU, UVC_GET_MAX, VCAM_XU_TEST_PATTERN, 2, false), 4);
	ck_assert_int_eq(set(XU, VCAM_XU_TEST_PATTERN, 2, 3), 0);
	ck_assert_int_eq(get(XU, UVC_GET_CUR, VCAM_XU_TEST_PATTERN, 2, false), 3);
	ck_assert_int_eq(set(XU, VCAM_XU_TEST_PATTERN, 2, 0x0100), -1);
	ck_assert_uint_eq(error_code(), VCAM_ERR_OUT_OF_RANGE);

	/* The counter counts accepted SET_CURs: two so far. */
	ck_assert_int_eq(get(XU, UVC_GET_CUR, VCAM_XU_REQUEST_COUNTER, 4, false), 2);
	ck_assert_int_eq(set(PU, UVC_PU_GAIN_CONTROL, 2, 10), 0);
	ck_assert_int_eq(set(PU, UVC_PU_GAIN_CONTROL, 2, 10), 0);
	ck_assert_int_eq(set(PU, UVC_PU_GAIN_CONTROL, 2, 1000), -1);
	ck_assert_int_eq(get(XU, UVC_GET_CUR, VCAM_XU_REQUEST_COUNTER, 4, false), 4);
	ck_assert_int_eq(get(XU, UVC_GET_MAX, VCAM_XU_REQUEST_COUNTER, 4, false), 0xffffffff);
	ck_assert_int_eq(get(XU, UVC_GET_RES, VCAM_XU_REQUEST_COUNTER, 4, false), 1);
}
END_TEST

/* ---- logging ---- */

struct log_record {
	unsigned count;
	char last[200];
};

static void record(void *opaque, const char *line)
{
	struct log_record *r = opaque;
	r->count++;
	snprintf(r->last, sizeof(r->last), "%s", line);
}

START_TEST(test_log_callback)
{
	struct log_record r = { 0 };
	uint8_t d[4];

	vcam_controls_set_log(c, record, &r);
	ck_assert_int_eq(set(PU, UVC_PU_BRIGHTNESS_CONTROL, 2, 32), 0);
	ck_assert_uint_eq(r.count, 1);
	ck_assert_str_eq(r.last, "control brightness = 32");
	ck_assert_int_eq(set(PU, UVC_PU_BRIGHTNESS_CONTROL, 2, 32), 0); /* no change */
	ck_assert_int_eq(set(PU, UVC_PU_BRIGHTNESS_CONTROL, 2, 99), -1);
	ck_assert_uint_eq(r.count, 1);
	put_le(d, 2, 500);
	put_le(d + 2, 2, 600);
	ck_assert_int_eq(req(PU, UVC_SET_CUR, UVC_PU_WHITE_BALANCE_COMPONENT_CONTROL, d, 4), 0);
	ck_assert_str_eq(r.last, "control white_balance_component = 500 600");
	ck_assert_int_eq(set(CT, UVC_CT_FOCUS_AUTO_CONTROL, 1, 1), 0);
	ck_assert_str_eq(r.last, "control focus_auto = 1");
	ck_assert_int_eq(set(CT, UVC_CT_FOCUS_ABSOLUTE_CONTROL, 2, 100), 0);
	ck_assert_str_eq(r.last, "control focus_absolute = 100 (kept for manual mode, automatic now)");
	vcam_controls_set_log(c, NULL, NULL);
	ck_assert_int_eq(set(PU, UVC_PU_BRIGHTNESS_CONTROL, 2, 1), 0);
	ck_assert_uint_eq(r.count, 4);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vcam-controls");
	TCase *tc = tcase_create("controls");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_table_self_check);
	tcase_add_test(tc, test_bitmaps_and_names);
	tcase_add_test(tc, test_sweep_every_control);
	tcase_add_test(tc, test_brightness);
	tcase_add_test(tc, test_typical_ranges);
	tcase_add_test(tc, test_pan_tilt_absolute);
	tcase_add_test(tc, test_out_of_range);
	tcase_add_test(tc, test_wrong_length);
	tcase_add_test(tc, test_unsupported_requests);
	tcase_add_test(tc, test_invalid_control_and_unit);
	tcase_add_test(tc, test_error_code_control);
	tcase_add_test(tc, test_power_mode);
	tcase_add_test(tc, test_power_line_frequency_versions);
	tcase_add_test(tc, test_auto_modes_default_to_manual);
	tcase_add_test(tc, test_ae_mode);
	tcase_add_test(tc, test_wb_manual_value_kept_while_auto);
	tcase_add_test(tc, test_hue_and_focus_auto);
	tcase_add_test(tc, test_no_events_while_manual);
	tcase_add_test(tc, test_wb_drift_events);
	tcase_add_test(tc, test_drift_deterministic);
	tcase_add_test(tc, test_exposure_drift);
	tcase_add_test(tc, test_events_respect_max);
	tcase_add_test(tc, test_zoom_relative_motion);
	tcase_add_test(tc, test_pan_relative_motion);
	tcase_add_test(tc, test_extension_unit);
	tcase_add_test(tc, test_msxu_metadata_control);
	tcase_add_test(tc, test_log_callback);
	suite_add_tcase(s, tc);

	return unit_run(s);
}
