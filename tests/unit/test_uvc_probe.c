/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The probe/commit control as bytes (src/uvc/probe.c), for each UVC version. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "unit_run.h"
#include "uvc/probe.h"

START_TEST(sizes_by_version)
{
	ck_assert_uint_eq(uvc_probe_size(0x0100), 26);
	ck_assert_uint_eq(uvc_probe_size(0x0110), 34);
	ck_assert_uint_eq(uvc_probe_size(0x0150), 48);
}
END_TEST

START_TEST(round_trip_and_field_offsets)
{
	struct uvc_probe p = {
		.hint = 0x0102, .format_index = 2, .frame_index = 3, .interval = 333333,
		.comp_quality = 5000, .max_video_frame_size = 0x11223344,
		.max_payload_transfer_size = 3072, .clock_frequency = 48000000,
		.framing_info = 3, .preferred_version = 1, .min_version = 1, .max_version = 1,
		.usage = 1, .bit_depth_luma = 8, .rate_control_modes = 0x0203,
		.layout_per_stream = { 1, 2, 3, 4, 5, 6, 7, 8 },
	};
	uint8_t raw[48], raw34[34];
	uvc_probe_encode(&p, raw, sizeof(raw));
	ck_assert_uint_eq(raw[0], 0x02);
	ck_assert_uint_eq(raw[2], 2);
	ck_assert_uint_eq(raw[3], 3);
	ck_assert_uint_eq(raw[4] | raw[5] << 8 | raw[6] << 16, 333333);
	ck_assert_uint_eq(raw[18], 0x44);
	ck_assert_uint_eq(raw[21], 0x11);
	ck_assert_uint_eq(raw[22] | raw[23] << 8, 3072);
	ck_assert_uint_eq(raw[30], 3);
	ck_assert_uint_eq(raw[47], 8);
	struct uvc_probe back;
	ck_assert_int_eq(uvc_probe_decode(raw, sizeof(raw), &back), 0);
	ck_assert_mem_eq(&back, &p, sizeof(p));
	/* only the three lengths the specification defines */
	ck_assert_int_eq(uvc_probe_decode(raw, 30, &back), -EINVAL);

	/* a 1.1 camera neither writes nor reads the 1.5 fields */
	uvc_probe_encode(&p, raw34, sizeof(raw34));
	uvc_probe_decode(raw34, sizeof(raw34), &back);
	ck_assert_uint_eq(back.max_version, 1);
	ck_assert_uint_eq(back.usage, 0);
	ck_assert_uint_eq(back.rate_control_modes, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("uvc-probe");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, sizes_by_version);
	tcase_add_test(tc, round_trip_and_field_offsets);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
