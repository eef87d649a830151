/* Probe/commit: wire layout for each UVC version and the camera's answers. */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "descriptors.h"
#include "payload.h"
#include "probe.h"
#include "unit_run.h"

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

START_TEST(negotiation_refuses_what_does_not_exist)
{
	const struct vcam_profile *prof = vcam_profile_find("default");
	struct uvc_probe asked = { .format_index = 1, .frame_index = 1 }, out;
	ck_assert_int_eq(vcam_probe_negotiate(prof, &asked, &out), 0);
	asked.format_index = 0;
	ck_assert_int_eq(vcam_probe_negotiate(prof, &asked, &out), -ERANGE);
	asked.format_index = 3;
	ck_assert_int_eq(vcam_probe_negotiate(prof, &asked, &out), -ERANGE);
	asked.format_index = 1;
	asked.frame_index = 3;
	ck_assert_int_eq(vcam_probe_negotiate(prof, &asked, &out), -ERANGE);
	asked.format_index = 2;
	ck_assert_int_eq(vcam_probe_negotiate(prof, &asked, &out), 0); /* MJPEG 1920x1080 */
	ck_assert_uint_eq(out.max_video_frame_size, 1920 * 1080 * 2);
}
END_TEST

START_TEST(interval_snaps_to_a_supported_one)
{
	const struct vcam_profile *prof = vcam_profile_find("default");
	struct uvc_probe asked = { .format_index = 1, .frame_index = 1 }, out;
	asked.interval = 0;
	vcam_probe_negotiate(prof, &asked, &out);
	ck_assert_uint_eq(out.interval, VCAM_FPS(30));
	asked.interval = VCAM_FPS(14);
	vcam_probe_negotiate(prof, &asked, &out);
	ck_assert_uint_eq(out.interval, VCAM_FPS(15));
	asked.interval = 100000000;
	vcam_probe_negotiate(prof, &asked, &out);
	ck_assert_uint_eq(out.interval, VCAM_FPS(5));
	asked.interval = 1;
	vcam_probe_negotiate(prof, &asked, &out);
	ck_assert_uint_eq(out.interval, VCAM_FPS(30));
}
END_TEST

START_TEST(payload_size_picks_an_alternate_setting)
{
	const struct vcam_profile *prof = vcam_profile_find("default");
	struct uvc_probe asked = { .format_index = 1, .frame_index = 1, .interval = VCAM_FPS(30) };
	struct uvc_probe out;
	vcam_probe_negotiate(prof, &asked, &out);
	/* YUYV 640x480@30 needs 2304 bytes per microframe: the 2x1024 setting falls short */
	ck_assert_uint_eq(out.max_payload_transfer_size, 3072);
	asked.interval = VCAM_FPS(5);
	vcam_probe_negotiate(prof, &asked, &out);
	ck_assert_uint_eq(out.max_payload_transfer_size, 800);
	ck_assert_uint_eq(out.clock_frequency, VCAM_CLOCK_HZ);

	const struct vcam_profile *bulk = vcam_profile_find("bulk");
	asked.interval = VCAM_FPS(30);
	vcam_probe_negotiate(bulk, &asked, &out);
	ck_assert_uint_eq(out.max_payload_transfer_size, 640 * 480 * 2 + VCAM_PAYLOAD_HEADER);
}
END_TEST

START_TEST(min_max_default)
{
	const struct vcam_profile *prof = vcam_profile_find("default");
	struct uvc_probe def, lo, hi;
	vcam_probe_default(prof, &def);
	ck_assert_uint_eq(def.format_index, 1);
	ck_assert_uint_eq(def.frame_index, 1);
	ck_assert_uint_eq(def.interval, VCAM_FPS(30));
	vcam_probe_min(prof, &def, &lo);
	vcam_probe_max(prof, &def, &hi);
	ck_assert_uint_le(lo.interval, def.interval);
	ck_assert_uint_eq(hi.interval, VCAM_FPS(5));
	ck_assert_uint_le(lo.comp_quality, hi.comp_quality);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vcam-probe");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, sizes_by_version);
	tcase_add_test(tc, round_trip_and_field_offsets);
	tcase_add_test(tc, negotiation_refuses_what_does_not_exist);
	tcase_add_test(tc, interval_snaps_to_a_supported_one);
	tcase_add_test(tc, payload_size_picks_an_alternate_setting);
	tcase_add_test(tc, min_max_default);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
