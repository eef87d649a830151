/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Probe/commit: the camera's answers (the wire layout is test_uvc_probe.c). */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "descriptors.h"
#include "payload.h"
#include "probe.h"
#include "unit_run.h"

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
	tcase_add_test(tc, negotiation_refuses_what_does_not_exist);
	tcase_add_test(tc, interval_snaps_to_a_supported_one);
	tcase_add_test(tc, payload_size_picks_an_alternate_setting);
	tcase_add_test(tc, min_max_default);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
